/*
 * settings_file - the config folder's files as settings.c and
 * settings_secret.c write them: settings.json read whole (never a default
 * for a broken file) and set a key at a time, and any file of the folder
 * replaced atomically (temporary file, fsync, rename), so that a reader
 * never sees half a file.  Private to the settings module, but for the folder check and the
 * size bound, which settings.h passes on.
 */
#ifndef HB_SETTINGS_FILE_H
#define HB_SETTINGS_FILE_H

#include <jansson.h>
#include <stddef.h>
#include <sys/types.h>

#include "paths.h"

#define SETTINGS_FILE "settings.json"
/* settings.json holds a few short keys; one far larger is a mistake, and
 * read on every call it would cost each of them its whole length. */
#define HB_SETTINGS_MAX_BYTES (1024 * 1024)

/* 0 when the config folder is private to this user or not there yet;
 * -1 with the sentence of hb_dir_check_private.  Every reader and writer
 * of the settings checks it; hb_gemini_configure says it before "no key". */
int hb_settings_check_dir(const struct hb_paths *p, char *err, size_t errlen);

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
