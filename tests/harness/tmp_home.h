/*
 * tmp_home - a throwaway HB_HOME for unit tests that read or write the
 * hbcode folders (settings.json, the error log, the agent host's place),
 * so no test touches the folders of the person running it.
 */
#ifndef HB_TMP_HOME_H
#define HB_TMP_HOME_H

#include <stddef.h>

/* Make /tmp/PREFIX.XXXXXX (its path into home, size bytes) and set it as
 * HB_HOME, with HB_CONFIG_DIR, HB_DATA_DIR, HB_CACHE_DIR, HB_RUNTIME_DIR
 * and each further name (the list ends with NULL) removed from the
 * environment.  0, or -1. */
int fx_tmp_home(char *home, size_t size, const char *prefix, ...);
/* Remove home and all below it: 0, or -1. */
int fx_tmp_home_remove(const char *home);

#endif
