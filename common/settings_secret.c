/*
 * settings_secret - the two secrets of the config folder, each a file of
 * its own with mode 0600: gemini-api-key (GEMINI_API_KEY in the
 * environment wins over it) and device-credential (what signing in to the
 * relay stores).  A file that is there but cannot be used is an error
 * that says so, never "not set"; no copy of a secret is left in memory
 * we free.
 */
#include "settings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "regular_file.h"
#include "settings_file.h"

#define KEY_FILE "gemini-api-key"
#define CREDENTIAL_FILE "device-credential"

/* Strip surrounding blanks and newlines in place. */
static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/* Blanks a secret file may have around its value (a newline an editor
 * added, say) on top of the value's own bound. */
#define SECRET_SLACK 64

/* volatile: the wipe of a secret must not be optimized away before free. */
static void wipe_free(char *buf, size_t len)
{
	volatile char *v = buf;

	for (size_t i = 0; i < len; i++)
		v[i] = 0;
	free(buf);
}

/* A secret file of the config folder (at most max bytes once trimmed)
 * into out: 0 when there is one, 1 when none is set (no file, or only
 * blanks), -1 with err ("The <what> file cannot be used: ...") when one is
 * there that cannot be used: a FIFO, a device or a huge file (which
 * hb_read_regular_file refuses without waiting on it), one that cannot
 * be read, or a config folder that is not private.  Saying so beats
 * "not set": the user put something there.  No copy is left behind. */
static int read_secret_file(const struct hb_paths *p, const char *name, const char *what, size_t max, char *out,
			    size_t outlen, char *err, size_t errlen)
{
	char path[HB_PATH_MAX], *buf, *k, why[HB_PATH_MAX + 256];
	size_t n;
	int rc = 0;

	if (hb_settings_check_dir(p, why, sizeof why) < 0) {
		snprintf(err, errlen, "The %s file cannot be used: %s", what, why);
		return -1;
	}
	if (hb_path_join(path, sizeof path, p->config, name) < 0) {
		snprintf(err, errlen, "The %s file cannot be used: the config folder's path %s is too long", what,
			 p->config);
		return -1;
	}
	if (hb_read_regular_file(path, max + SECRET_SLACK, &buf, &n, why, sizeof why) < 0) {
		if (errno == ENOENT)
			return 1;
		snprintf(err, errlen, "The %s file cannot be used: %s", what, why);
		return -1;
	}
	k = trim(buf);
	if (!*k) {
		rc = 1;
	} else if (strlen(k) > max || strlen(k) >= outlen) {
		snprintf(err, errlen, "The %s file cannot be used: %s holds %zu bytes, more than the %zu it may have; "
			 "fix or delete it", what, path, strlen(k), max < outlen ? max : outlen - 1);
		rc = -1;
	} else {
		memcpy(out, k, strlen(k) + 1);
	}
	wipe_free(buf, n);
	return rc;
}

/* The saved key alone, as read_secret_file. */
int hb_settings_saved_gemini_key(const struct hb_paths *p, char *key, size_t keylen, char *err, size_t errlen)
{
	return read_secret_file(p, KEY_FILE, "Gemini key", HB_GEMINI_KEY_MAX, key, keylen, err, errlen);
}

int hb_settings_gemini_key(const struct hb_paths *p, char *key, size_t keylen, char *err, size_t errlen)
{
	const char *env = getenv("GEMINI_API_KEY");

	if (env && *env && strlen(env) < keylen) {
		memcpy(key, env, strlen(env) + 1);
		return 0;
	}
	return hb_settings_saved_gemini_key(p, key, keylen, err, errlen);
}

int hb_settings_save_gemini_key(const struct hb_paths *p, const char *key, char *err, size_t errlen)
{
	size_t len = strlen(key);

	if (len == 0 || len > HB_GEMINI_KEY_MAX || strpbrk(key, " \t\r\n")) {
		snprintf(err, errlen, "a Gemini API key is 1 to %d characters without blanks", HB_GEMINI_KEY_MAX);
		return -1;
	}
	return hb_settings_file_replace(p, KEY_FILE, key, 0600, err, errlen);
}

/* Remove a secret file of the config folder; what names it in err. */
static int delete_secret_file(const struct hb_paths *p, const char *name, const char *what, char *err,
			      size_t errlen)
{
	char path[HB_PATH_MAX];

	if (hb_settings_check_dir(p, err, errlen) < 0)
		return -1;
	if (hb_path_join(path, sizeof path, p->config, name) < 0 || (unlink(path) < 0 && errno != ENOENT)) {
		snprintf(err, errlen, "cannot delete the saved %s: %s", what, strerror(errno));
		return -1;
	}
	return 0;
}

int hb_settings_delete_gemini_key(const struct hb_paths *p, char *err, size_t errlen)
{
	return delete_secret_file(p, KEY_FILE, "Gemini key", err, errlen);
}

int hb_settings_device_credential(const struct hb_paths *p, char *cred, size_t credlen, char *err, size_t errlen)
{
	return read_secret_file(p, CREDENTIAL_FILE, "device credential", HB_DEVICE_CREDENTIAL_MAX, cred, credlen, err,
				errlen);
}

int hb_settings_save_device_credential(const struct hb_paths *p, const char *cred, char *err, size_t errlen)
{
	size_t len = strlen(cred);

	for (const unsigned char *c = (const unsigned char *)cred; *c; c++)
		if (*c <= 0x20 || *c >= 0x7f)
			len = 0;
	if (len == 0 || len > HB_DEVICE_CREDENTIAL_MAX) {
		snprintf(err, errlen, "a device credential is 1 to %d printable ASCII characters without blanks",
			 HB_DEVICE_CREDENTIAL_MAX);
		return -1;
	}
	return hb_settings_file_replace(p, CREDENTIAL_FILE, cred, 0600, err, errlen);
}

int hb_settings_delete_device_credential(const struct hb_paths *p, char *err, size_t errlen)
{
	return delete_secret_file(p, CREDENTIAL_FILE, "device credential", err, errlen);
}
