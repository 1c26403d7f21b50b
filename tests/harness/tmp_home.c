/*
 * tmp_home - a throwaway HB_HOME for unit tests (see tmp_home.h).
 */
#include "tmp_home.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int fx_tmp_home(char *home, size_t size, const char *prefix, ...)
{
	static const char *const moved[] = {"HB_CONFIG_DIR", "HB_DATA_DIR", "HB_CACHE_DIR", "HB_RUNTIME_DIR"};
	const char *name;
	va_list ap;

	if ((size_t)snprintf(home, size, "/tmp/%s.XXXXXX", prefix) >= size || !mkdtemp(home) ||
	    setenv("HB_HOME", home, 1) < 0)
		return -1;
	for (size_t i = 0; i < sizeof moved / sizeof moved[0]; i++)
		unsetenv(moved[i]);
	va_start(ap, prefix);
	while ((name = va_arg(ap, const char *)))
		unsetenv(name);
	va_end(ap);
	return 0;
}

int fx_tmp_home_remove(const char *home)
{
	char cmd[300];

	if ((size_t)snprintf(cmd, sizeof cmd, "rm -rf '%s'", home) >= sizeof cmd)
		return -1;
	return system(cmd) == 0 ? 0 : -1;
}
