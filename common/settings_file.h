/*
 * settings_file - the config folder's files as settings.c and
 * settings_secret.c write them: settings.json read whole (never a default
 * for a broken file) and set a key at a time, and any file of the folder
 * replaced atomically (temporary file, fsync, rename), so that a reader
 * never sees half a file.  Private to the settings module.
 */
#ifndef HB_SETTINGS_FILE_H
#define HB_SETTINGS_FILE_H

#include <jansson.h>
#include <stddef.h>
#include <sys/types.h>

#include "paths.h"

#define SETTINGS_FILE "settings.json"

/* settings.json as an object: an empty one when there is no file yet,
 * NULL with err when it is broken (fix or delete it: never a default). */
json_t *hb_settings_file_root(const struct hb_paths *p, char *err, size_t errlen);
/* Write data to name in the config folder atomically with the given mode. */
int hb_settings_file_replace(const struct hb_paths *p, const char *name, const char *data, mode_t mode, char *err,
			     size_t errlen);
/* settings.json with one key set to value (taken), or removed when value
 * is NULL; every other key stays as it was. */
int hb_settings_file_set_one(const struct hb_paths *p, const char *key, json_t *value, char *err, size_t errlen);

#endif
