/*
 * settings - what the user set in the desktop's Settings that the tools
 * depend on: the Gemini API key, desktop and phone notifications, the
 * "Agent notifications" policy, and the device link to the regional relay
 * (its URL, "Allow Remote Access", and the device credential that signing
 * in stores).
 *
 * Read again for every catalog request and every call (never cached), so a
 * change takes effect at once.  The key lives in a 0600 file in the config
 * directory, or comes from GEMINI_API_KEY; the device credential lives in a
 * 0600 file beside it.  Neither is ever logged or printed, and struct
 * hb_settings only says whether there is one.
 */
#ifndef HB_SETTINGS_H
#define HB_SETTINGS_H

#include <stddef.h>

#include "params.h"
#include "paths.h"
#include "settings_file.h" /* HB_SETTINGS_MAX_BYTES, hb_settings_check_dir */

enum hb_notify_policy { HB_NOTIFY_IMPORTANT, HB_NOTIFY_FREQUENT };

struct hb_settings {
	int gemini_key;                 /* a key is saved (or in the environment) */
	int gemini_key_from_env;        /* GEMINI_API_KEY of this process */
	int gemini_key_saved;           /* the file, whatever the environment; one
					 * that cannot be used counts: its reader says why */
	int notifications;              /* desktop and phone notifications on */
	enum hb_notify_policy policy;
	int remote_access;              /* "Allow Remote Access" on */
	int signed_in;                  /* a device credential is saved (usable or not, as above) */
	int browser;                    /* browser control (use_user_browser) on */
};

#define HB_GEMINI_KEY_MAX 256
#define HB_RELAY_URL_MAX 1024           /* bytes, without the NUL */
#define HB_DEVICE_CREDENTIAL_MAX 4096   /* bytes, without the NUL */
#define HB_BROWSER_URL_MAX 256          /* bytes, without the NUL */

/* 0, or -1 with err (a broken settings file is an error, not a default;
 * so is a settings.json that is not a regular file, e.g. a FIFO, or is
 * larger than HB_SETTINGS_MAX_BYTES: each refused at once, never waited
 * on). */
int hb_settings_load(const struct hb_paths *p, struct hb_settings *out, char *err, size_t errlen);
/* The key itself, for the one place that sends it; 0 when there is one
 * (GEMINI_API_KEY first, then the file of a private config folder), 1
 * when none is set, -1 with err naming the file and what is wrong with
 * it (a FIFO, too large, unreadable: the sentences of regular_file.h). */
int hb_settings_gemini_key(const struct hb_paths *p, char *key, size_t keylen, char *err, size_t errlen);
/* The saved file's key alone (GEMINI_API_KEY not looked at), as above. */
int hb_settings_saved_gemini_key(const struct hb_paths *p, char *key, size_t keylen, char *err, size_t errlen);
/* Save (0600, written to a temporary name and renamed) or delete. */
int hb_settings_save_gemini_key(const struct hb_paths *p, const char *key, char *err, size_t errlen);
int hb_settings_delete_gemini_key(const struct hb_paths *p, char *err, size_t errlen);
int hb_settings_set_notifications(const struct hb_paths *p, int on, char *err, size_t errlen);
int hb_settings_set_policy(const struct hb_paths *p, enum hb_notify_policy policy, char *err, size_t errlen);
/* A parameter of params.h: its environment variable when that is set
 * and not empty (tests point the Gemini client at a local fake that way),
 * else its key in settings.json, else its default.  0, or -1 with err
 * when the file is broken, the value is not of the parameter's type or
 * does not fit in outlen; a number must be within the parameter's range,
 * and err names where a bad value came from. */
int hb_settings_param_string(const struct hb_paths *p, enum hb_param_id id, char *out, size_t outlen, char *err,
			     size_t errlen);
int hb_settings_param_number(const struct hb_paths *p, enum hb_param_id id, double *out, char *err,
			     size_t errlen);
enum hb_param_source { HB_PARAM_FROM_DEFAULT, HB_PARAM_FROM_FILE, HB_PARAM_FROM_ENV };
/* Any parameter's value as text (a number in the file as "%g"), and where
 * it came from, for a listing (hbctl settings --all); a number's range is
 * not checked here.  0, or -1 with err. */
int hb_settings_param_text(const struct hb_paths *p, enum hb_param_id id, char *out, size_t outlen,
			   enum hb_param_source *from, char *err, size_t errlen);
/* "default", "settings.json", or the parameter's variable. */
const char *hb_param_source_name(const struct hb_param *prm, enum hb_param_source from);
/* The relay link.  A relay URL is wss://host[:port][/path][?query], or
 * ws:// to a loopback host (127.0.0.1, [::1], localhost: the tests' fake
 * relay); no user@ and no #fragment.  0, or -1 with a sentence that does
 * not repeat the URL (it could hold a password). */
int hb_settings_check_relay_url(const char *url, char *err, size_t errlen);
/* The saved relayUrl, checked again; "" when none is set.  0, or -1 with
 * err when settings.json is broken or the URL saved there is not one. */
int hb_settings_relay_url(const struct hb_paths *p, char *url, size_t urllen, char *err, size_t errlen);
int hb_settings_set_relay_url(const struct hb_paths *p, const char *url, char *err, size_t errlen);
int hb_settings_delete_relay_url(const struct hb_paths *p, char *err, size_t errlen);
int hb_settings_set_remote_access(const struct hb_paths *p, int on, char *err, size_t errlen);
/* The credential itself, for the one place that sends it (the relay
 * protocol's hello); 0 when one is saved, 1 when none is (signed out),
 * -1 with err as hb_settings_gemini_key's.  The caller wipes its copy. */
int hb_settings_device_credential(const struct hb_paths *p, char *cred, size_t credlen, char *err, size_t errlen);
/* Save (1 to HB_DEVICE_CREDENTIAL_MAX printable ASCII bytes, no blanks;
 * 0600, a temporary name and a rename) or delete ("signed out"). */
int hb_settings_save_device_credential(const struct hb_paths *p, const char *cred, char *err, size_t errlen);
int hb_settings_delete_device_credential(const struct hb_paths *p, char *err, size_t errlen);

/* Browser control (svc-browser's use_user_browser): off until the user
 * turns it on.  A browser URL is Chrome's remote debugging address on
 * this machine, http://127.0.0.1:PORT (or [::1], localhost), for a Chrome
 * whose DevToolsActivePort file is not in a standard place; "" when none
 * is set (then the standard places are searched).  0, or -1 with err. */
int hb_settings_set_browser(const struct hb_paths *p, int on, char *err, size_t errlen);
int hb_settings_check_browser_url(const char *url, char *err, size_t errlen);
int hb_settings_browser_url(const struct hb_paths *p, char *url, size_t urllen, char *err, size_t errlen);
/* A text parameter (e.g. HB_PARAM_CODEX_PATH) set to value in
 * settings.json, or removed when value is NULL; every other key stays.
 * 0, or -1 with err. */
int hb_settings_param_set(const struct hb_paths *p, enum hb_param_id id, const char *value, char *err,
			  size_t errlen);
int hb_settings_set_browser_url(const struct hb_paths *p, const char *url, char *err, size_t errlen);
int hb_settings_delete_browser_url(const struct hb_paths *p, char *err, size_t errlen);

const char *hb_notify_policy_name(enum hb_notify_policy policy);
/* "important" / "frequent" (any case); -1 otherwise. */
int hb_notify_policy_parse(const char *name, enum hb_notify_policy *out);

#endif
