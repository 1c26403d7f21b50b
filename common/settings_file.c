/*
 * settings_file - see settings_file.h.
 */
#include "settings_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "regular_file.h"

int hb_settings_check_dir(const struct hb_paths *p, char *err, size_t errlen)
{
	if (hb_dir_check_private(p, HB_DIR_CONFIG, err, errlen) == 0 || errno == ENOENT)
		return 0; /* no folder yet: nothing set, nothing to trust */
	return -1;
}

json_t *hb_settings_file_root(const struct hb_paths *p, char *err, size_t errlen)
{
	char path[HB_PATH_MAX], *text;
	json_error_t jerr;
	json_t *root;
	size_t len;

	if (hb_path_join(path, sizeof path, p->config, SETTINGS_FILE) < 0) {
		snprintf(err, errlen, "the config directory path is too long");
		return NULL;
	}
	if (hb_settings_check_dir(p, err, errlen) < 0)
		return NULL;
	/* Never a blocking open or an unbounded read: every call of most
	 * services and the broker's catalog come through here. */
	if (hb_read_regular_file(path, HB_SETTINGS_MAX_BYTES, &text, &len, err, errlen) < 0)
		return errno == ENOENT ? json_object() : NULL; /* none yet: the defaults */
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!root || !json_is_object(root)) {
		snprintf(err, errlen, "%s is not a JSON object (%s); fix or delete it", path,
			 root ? "wrong type" : jerr.text);
		json_decref(root);
		return NULL;
	}
	return root;
}

int hb_settings_file_replace(const struct hb_paths *p, const char *name, const char *data, mode_t mode,
			char *err, size_t errlen)
{
	char path[HB_PATH_MAX], tmp[HB_PATH_MAX + 16];
	size_t len = strlen(data);
	int fd;

	if (hb_dir_make_private(p, HB_DIR_CONFIG, err, errlen) < 0)
		return -1;
	if (hb_path_join(path, sizeof path, p->config, name) < 0) {
		snprintf(err, errlen, "the config directory path %s is too long", p->config);
		return -1;
	}
	snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		return -1;
	}
	if (fchmod(fd, mode) < 0 || write(fd, data, len) != (ssize_t)len || fsync(fd) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	close(fd);
	if (rename(tmp, path) < 0) {
		snprintf(err, errlen, "cannot replace %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

int hb_settings_file_set_one(const struct hb_paths *p, const char *key, json_t *value, char *err, size_t errlen)
{
	json_t *root = hb_settings_file_root(p, err, errlen);
	char *text = NULL;
	int rc = -1;

	if (!root) {
		json_decref(value);
		return -1;
	}
	if ((value ? json_object_set_new(root, key, value) : (json_object_del(root, key), 0)) < 0 ||
	    !(text = json_dumps(root, JSON_COMPACT)))
		snprintf(err, errlen, "out of memory while writing %s", SETTINGS_FILE);
	else
		rc = hb_settings_file_replace(p, SETTINGS_FILE, text, 0600, err, errlen);
	free(text);
	json_decref(root);
	return rc;
}
