/*
 * settings - three small files in the config directory: gemini-api-key
 * (the key, mode 0600), device-credential (what signing in to the relay
 * stores, mode 0600) and settings.json ({"notifications": bool,
 * "notificationPolicy": "important"|"frequent", "allowRemoteAccess": bool,
 * "relayUrl": "wss://..."}, plus the parameters of params.h such as
 * "geminiBaseUrl" and "speechModel", read by hb_settings_param_*).  Each is
 * replaced atomically (temporary file, fsync, rename), so a reader never
 * sees half a file.  None is read from or written to a config folder that
 * is not private to this user (paths.h): another user's settings.json
 * could send the key to their base URL, or the credential to their relay.
 * This file holds settings.json's keys and the parameters; the two
 * secrets are settings_secret.c's, the file handling settings_file.c's.
 */
#include "settings.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "settings_file.h"
#include "url.h"

const char *hb_notify_policy_name(enum hb_notify_policy policy)
{
	return policy == HB_NOTIFY_FREQUENT ? "frequent" : "important";
}

int hb_notify_policy_parse(const char *name, enum hb_notify_policy *out)
{
	if (strcasecmp(name, "important") == 0)
		*out = HB_NOTIFY_IMPORTANT;
	else if (strcasecmp(name, "frequent") == 0)
		*out = HB_NOTIFY_FREQUENT;
	else
		return -1;
	return 0;
}

static int load_settings_file(const struct hb_paths *p, struct hb_settings *out, char *err, size_t errlen)
{
	json_t *root, *v;

	if (!(root = hb_settings_file_root(p, err, errlen)))
		return -1;
	if ((v = json_object_get(root, "notifications")) && json_is_boolean(v))
		out->notifications = json_is_true(v);
	if ((v = json_object_get(root, "notificationPolicy")) && json_is_string(v) &&
	    hb_notify_policy_parse(json_string_value(v), &out->policy) < 0) {
		snprintf(err, errlen, "%s: notificationPolicy must be important or frequent", SETTINGS_FILE);
		json_decref(root);
		return -1;
	}
	if ((v = json_object_get(root, "allowRemoteAccess")) && !json_is_boolean(v)) {
		snprintf(err, errlen, "%s: allowRemoteAccess must be true or false", SETTINGS_FILE);
		json_decref(root);
		return -1;
	}
	out->remote_access = json_is_true(v);
	if ((v = json_object_get(root, "browserControl")) && !json_is_boolean(v)) {
		snprintf(err, errlen, "%s: browserControl must be true or false", SETTINGS_FILE);
		json_decref(root);
		return -1;
	}
	out->browser = json_is_true(v);
	json_decref(root);
	return 0;
}

/* Where prm's value is: the environment's text (*env_value), or the
 * file's value (*v, held by *root, which the caller frees), or neither
 * (the default).  0, or -1 with err when the file is broken or holds a
 * value of another type. */
static int locate(const struct hb_paths *p, const struct hb_param *prm, const char **env_value, json_t **root,
		  json_t **v, char *err, size_t errlen)
{
	*env_value = prm->env ? getenv(prm->env) : NULL;
	*root = *v = NULL;
	if (*env_value && **env_value)
		return 0;
	*env_value = NULL;
	if (!(*root = hb_settings_file_root(p, err, errlen)))
		return -1;
	*v = json_object_get(*root, prm->key);
	if (*v && !(prm->kind == HB_PARAM_TEXT ? json_is_string(*v) : json_is_number(*v))) {
		snprintf(err, errlen, "%s: %s must be a %s", SETTINGS_FILE, prm->key,
			 prm->kind == HB_PARAM_TEXT ? "string" : "number");
		json_decref(*root);
		return -1;
	}
	return 0;
}

const char *hb_param_source_name(const struct hb_param *prm, enum hb_param_source from)
{
	return from == HB_PARAM_FROM_ENV ? prm->env : from == HB_PARAM_FROM_FILE ? SETTINGS_FILE : "default";
}

/* A text parameter, or a number's text as given (in the file, "%g"). */
static int param_text(const struct hb_paths *p, const struct hb_param *prm, char *out, size_t outlen,
		      enum hb_param_source *from, char *err, size_t errlen)
{
	const char *env, *value;
	char number[64];
	json_t *root, *v;
	int rc = 0;

	if (locate(p, prm, &env, &root, &v, err, errlen) < 0)
		return -1;
	*from = env ? HB_PARAM_FROM_ENV : v ? HB_PARAM_FROM_FILE : HB_PARAM_FROM_DEFAULT;
	if (v && prm->kind == HB_PARAM_NUMBER)
		snprintf(number, sizeof number, "%g", json_number_value(v));
	value = env ? env : !v ? prm->dflt : prm->kind == HB_PARAM_NUMBER ? number : json_string_value(v);
	if (strlen(value) >= outlen) {
		snprintf(err, errlen, "%s: %s is longer than %zu bytes", env ? prm->env : SETTINGS_FILE, prm->key,
			 outlen - 1);
		rc = -1;
	} else {
		memcpy(out, value, strlen(value) + 1);
	}
	json_decref(root);
	return rc;
}

int hb_settings_param_text(const struct hb_paths *p, enum hb_param_id id, char *out, size_t outlen,
			   enum hb_param_source *from, char *err, size_t errlen)
{
	return param_text(p, hb_param(id), out, outlen, from, err, errlen);
}

int hb_settings_param_string(const struct hb_paths *p, enum hb_param_id id, char *out, size_t outlen, char *err,
			     size_t errlen)
{
	enum hb_param_source from;

	return param_text(p, hb_param(id), out, outlen, &from, err, errlen);
}

static int param_number(const struct hb_paths *p, const struct hb_param *prm, double *out, char *err,
			size_t errlen)
{
	const char *env;
	json_t *root, *v;
	char *end;

	if (locate(p, prm, &env, &root, &v, err, errlen) < 0)
		return -1;
	*out = v ? json_number_value(v) : hb_param_default_number(prm);
	json_decref(root);
	if (env) {
		*out = strtod(env, &end);
		if (end == env || *end) {
			snprintf(err, errlen, "%s: %s is not a number", prm->env, prm->key);
			return -1;
		}
	}
	if (!(*out >= prm->min && *out <= prm->max)) {
		snprintf(err, errlen, "%s: %s is %g; it must be from %g to %g", env ? prm->env : SETTINGS_FILE,
			 prm->key, *out, prm->min, prm->max);
		return -1;
	}
	return 0;
}

int hb_settings_param_number(const struct hb_paths *p, enum hb_param_id id, double *out, char *err, size_t errlen)
{
	return param_number(p, hb_param(id), out, err, errlen);
}

int hb_settings_load(const struct hb_paths *p, struct hb_settings *out, char *err, size_t errlen)
{
	char key[HB_GEMINI_KEY_MAX + 1], cred[HB_DEVICE_CREDENTIAL_MAX + 1], why[HB_PATH_MAX + 512];
	const char *env = getenv("GEMINI_API_KEY");

	memset(out, 0, sizeof *out);
	out->policy = HB_NOTIFY_IMPORTANT;
	/* A file there that cannot be used counts as saved: the tools stay
	 * listed and the link comes up, so that the one reader of the secret
	 * says what is wrong with it instead of "not set". */
	out->gemini_key = hb_settings_gemini_key(p, key, sizeof key, why, sizeof why) != 1;
	out->gemini_key_from_env = env && *env;
	out->gemini_key_saved = hb_settings_saved_gemini_key(p, key, sizeof key, why, sizeof why) != 1;
	memset(key, 0, sizeof key);
	out->signed_in = hb_settings_device_credential(p, cred, sizeof cred, why, sizeof why) != 1;
	memset(cred, 0, sizeof cred);
	return load_settings_file(p, out, err, errlen);
}

/* Only the two keys change: the others (geminiBaseUrl, the models) stay. */
static int save_settings(const struct hb_paths *p, const struct hb_settings *s, char *err, size_t errlen)
{
	json_t *root = hb_settings_file_root(p, err, errlen);
	char *text;
	int rc = -1;

	if (!root)
		return -1;
	if (json_object_set_new(root, "notifications", json_boolean(s->notifications)) < 0 ||
	    json_object_set_new(root, "notificationPolicy", json_string(hb_notify_policy_name(s->policy))) < 0 ||
	    !(text = json_dumps(root, JSON_COMPACT))) {
		snprintf(err, errlen, "out of memory while writing %s", SETTINGS_FILE);
	} else {
		rc = hb_settings_file_replace(p, SETTINGS_FILE, text, 0600, err, errlen);
		free(text);
	}
	json_decref(root);
	return rc;
}

int hb_settings_set_notifications(const struct hb_paths *p, int on, char *err, size_t errlen)
{
	struct hb_settings s;

	if (hb_settings_load(p, &s, err, errlen) < 0)
		return -1;
	s.notifications = on != 0;
	return save_settings(p, &s, err, errlen);
}

int hb_settings_set_policy(const struct hb_paths *p, enum hb_notify_policy policy, char *err, size_t errlen)
{
	struct hb_settings s;

	if (hb_settings_load(p, &s, err, errlen) < 0)
		return -1;
	s.policy = policy;
	return save_settings(p, &s, err, errlen);
}

int hb_settings_check_relay_url(const char *url, char *err, size_t errlen)
{
	struct hb_url u;

	if (!*url)
		snprintf(err, errlen, "the relay URL is empty");
	else if (strlen(url) > HB_RELAY_URL_MAX)
		snprintf(err, errlen, "the relay URL is longer than %d bytes", HB_RELAY_URL_MAX);
	else if (hb_url_parse(url, &u) < 0)
		snprintf(err, errlen, "the relay URL is not an absolute URL like wss://relay.example/device "
				      "(no blanks or non-ASCII characters)");
	else if (hb_url_scheme_is(&u, "ws") && !hb_url_host_is_loopback(&u))
		snprintf(err, errlen, "the relay URL must start with wss://; ws:// is only for a relay on this "
				      "machine (127.0.0.1, [::1] or localhost)");
	else if (!hb_url_scheme_is(&u, "ws") && !hb_url_scheme_is(&u, "wss"))
		snprintf(err, errlen, "the relay URL must start with wss://");
	else if (u.userinfo)
		snprintf(err, errlen, "the relay URL must not hold a user name or password (user@): the device "
				      "credential is sent by the link itself");
	else if (u.has_fragment)
		snprintf(err, errlen, "the relay URL must not have a #fragment");
	else
		return 0;
	return -1;
}

int hb_settings_relay_url(const struct hb_paths *p, char *url, size_t urllen, char *err, size_t errlen)
{
	char why[256];

	if (hb_settings_param_string(p, HB_PARAM_RELAY_URL, url, urllen, err, errlen) < 0)
		return -1;
	if (*url && hb_settings_check_relay_url(url, why, sizeof why) < 0) {
		snprintf(err, errlen, "%s: relayUrl: %s; set it again with hbctl settings relay-url set",
			 SETTINGS_FILE, why);
		*url = '\0';
		return -1;
	}
	return 0;
}

int hb_settings_set_relay_url(const struct hb_paths *p, const char *url, char *err, size_t errlen)
{
	json_t *v;

	if (hb_settings_check_relay_url(url, err, errlen) < 0)
		return -1;
	if (!(v = json_string(url))) {
		snprintf(err, errlen, "out of memory while writing %s", SETTINGS_FILE);
		return -1;
	}
	return hb_settings_file_set_one(p, hb_param(HB_PARAM_RELAY_URL)->key, v, err, errlen);
}

int hb_settings_delete_relay_url(const struct hb_paths *p, char *err, size_t errlen)
{
	return hb_settings_file_set_one(p, hb_param(HB_PARAM_RELAY_URL)->key, NULL, err, errlen);
}

int hb_settings_set_remote_access(const struct hb_paths *p, int on, char *err, size_t errlen)
{
	struct hb_settings s;

	/* A broken settings.json stays an error here too, not overwritten. */
	if (hb_settings_load(p, &s, err, errlen) < 0)
		return -1;
	return hb_settings_file_set_one(p, "allowRemoteAccess", json_boolean(on != 0), err, errlen);
}

int hb_settings_set_browser(const struct hb_paths *p, int on, char *err, size_t errlen)
{
	struct hb_settings s;

	if (hb_settings_load(p, &s, err, errlen) < 0)
		return -1;
	return hb_settings_file_set_one(p, "browserControl", json_boolean(on != 0), err, errlen);
}

int hb_settings_check_browser_url(const char *url, char *err, size_t errlen)
{
	struct hb_url u;

	if (!*url)
		snprintf(err, errlen, "the browser URL is empty");
	else if (strlen(url) > HB_BROWSER_URL_MAX)
		snprintf(err, errlen, "the browser URL is longer than %d bytes", HB_BROWSER_URL_MAX);
	else if (hb_url_parse(url, &u) < 0 || !hb_url_scheme_is(&u, "http") || u.userinfo || u.has_fragment ||
		 u.has_query)
		snprintf(err, errlen, "the browser URL must be like http://127.0.0.1:9222 (Chrome's remote "
				      "debugging address, without user, query or #fragment)");
	else if (!hb_url_host_is_loopback(&u))
		snprintf(err, errlen, "the browser URL must name this machine (127.0.0.1, [::1] or localhost): "
				      "Chrome's remote debugging is never reached over the network");
	else
		return 0;
	return -1;
}

int hb_settings_browser_url(const struct hb_paths *p, char *url, size_t urllen, char *err, size_t errlen)
{
	char why[256];

	if (hb_settings_param_string(p, HB_PARAM_BROWSER_URL, url, urllen, err, errlen) < 0)
		return -1;
	if (*url && hb_settings_check_browser_url(url, why, sizeof why) < 0) {
		snprintf(err, errlen, "%s: browserUrl: %s; set it again with hbctl settings browser-url set",
			 SETTINGS_FILE, why);
		*url = '\0';
		return -1;
	}
	return 0;
}

int hb_settings_param_set(const struct hb_paths *p, enum hb_param_id id, const char *value, char *err,
			  size_t errlen)
{
	const char *key = hb_param(id)->key;
	json_t *v = NULL;

	if (value && !(v = json_string(value))) {
		snprintf(err, errlen, "%s: %s is not UTF-8 text", SETTINGS_FILE, key);
		return -1;
	}
	return hb_settings_file_set_one(p, key, v, err, errlen);
}

int hb_settings_set_browser_url(const struct hb_paths *p, const char *url, char *err, size_t errlen)
{
	json_t *v;

	if (hb_settings_check_browser_url(url, err, errlen) < 0)
		return -1;
	if (!(v = json_string(url))) {
		snprintf(err, errlen, "out of memory while writing %s", SETTINGS_FILE);
		return -1;
	}
	return hb_settings_file_set_one(p, hb_param(HB_PARAM_BROWSER_URL)->key, v, err, errlen);
}

int hb_settings_delete_browser_url(const struct hb_paths *p, char *err, size_t errlen)
{
	return hb_settings_file_set_one(p, hb_param(HB_PARAM_BROWSER_URL)->key, NULL, err, errlen);
}
