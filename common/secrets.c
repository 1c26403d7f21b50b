/*
 * secrets - see secrets.h.
 */
#include "secrets.h"

#include <stdlib.h>

const char *const hb_always_secret[] = { "GEMINI_API_KEY", NULL };

void hb_forget_secrets(void)
{
	for (const char *const *s = hb_always_secret; *s; s++)
		unsetenv(*s);
}
