/*
 * hbctl settings - show and change the settings the tools read on every
 * call.  They are files in the config directory, so this works with no
 * broker running; the broker and the services read them again on their
 * next request.  The Gemini key is read from standard input (a command
 * line shows in `ps`) and is never printed.
 *
 * GEMINI_API_KEY in the environment of hbctl or of the running broker
 * (its status says) is a key no setting can remove: the listing says so,
 * and deleting the saved key then fails with the same sentence.
 *
 *	hbctl settings
 *	hbctl settings gemini-key set      (the key on standard input)
 *	hbctl settings gemini-key delete
 *	hbctl settings notifications on|off
 *	hbctl settings policy important|frequent
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "hbctl.h"
#include "paths.h"
#include "settings.h"

/* Whether the running broker has GEMINI_API_KEY in its environment (and
 * so hands it to the services configured for it).  No broker: no; said
 * quietly, settings work without one. */
static int broker_has_env_key(void)
{
	struct hb_env req, reply;
	struct hb_client c;
	json_t *st = NULL;
	char err[512];
	int yes = 0;

	if (hb_client_open(&c, NULL, 2000, err, sizeof err) < 0)
		return 0;
	hb_env_init(&req);
	hb_env_set_str(&req, "op", "status");
	if (hb_client_request(&c, &req, &reply, err, sizeof err) == 0) {
		st = json_loads(hb_env_str_or(&reply, "json", "{}"), 0, NULL);
		yes = json_is_true(json_object_get(json_object_get(st, "broker"), "geminiKeyFromEnv"));
		json_decref(st);
		hb_env_free(&reply);
	}
	hb_client_close(&c);
	return yes;
}

/* The sentence about GEMINI_API_KEY, or NULL when neither has it. */
static const char *env_key_note(const struct hb_settings *s, int in_broker)
{
	if (in_broker)
		return s->gemini_key_from_env ? "from the environment (GEMINI_API_KEY, set for hb-broker and for hbctl); "
						"deleting it in settings cannot remove it: unset it where hb-broker is started"
					      : "from the environment (GEMINI_API_KEY, set for hb-broker); deleting it in "
						"settings cannot remove it: unset it where hb-broker is started";
	if (s->gemini_key_from_env)
		return "from the environment (GEMINI_API_KEY, set for hbctl); deleting it in settings cannot remove "
		       "it: unset it where hbctl and hb-broker are started";
	return NULL;
}

static int load(const struct hb_paths *p, struct hb_settings *s, const char **note)
{
	char err[HB_PATH_MAX + 512];

	if (hb_settings_load(p, s, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: %s\n", err);
		return EXIT_FAIL;
	}
	*note = env_key_note(s, broker_has_env_key());
	return 0;
}

static int show(const struct hb_paths *p)
{
	struct hb_settings s;
	const char *note;

	if (load(p, &s, &note) != 0)
		return EXIT_FAIL;
	if (note)
		printf("gemini-key     %s%s\n", note, s.gemini_key_saved ? " (a key is saved too)" : "");
	else
		printf("gemini-key     %s\n", s.gemini_key_saved ? "saved" : "not set");
	printf("notifications  %s\n", s.notifications ? "on" : "off");
	printf("policy         %s\n", hb_notify_policy_name(s.policy));
	return 0;
}

static int set_key(const struct hb_paths *p, char *err, size_t errlen)
{
	char key[HB_GEMINI_KEY_MAX + 2];
	size_t n;
	int rc;

	if (!fgets(key, sizeof key, stdin)) {
		snprintf(err, errlen, "give the key on standard input");
		return -1;
	}
	n = strcspn(key, "\r\n");
	key[n] = '\0';
	rc = hb_settings_save_gemini_key(p, key, err, errlen);
	memset(key, 0, sizeof key);
	return rc;
}

/* The saved key goes; a key in the environment stays, and says so. */
static int delete_key(const struct hb_paths *p)
{
	struct hb_settings s;
	const char *note;
	char err[HB_PATH_MAX + 512];

	if (hb_settings_delete_gemini_key(p, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: %s\n", err);
		return EXIT_FAIL;
	}
	if (load(p, &s, &note) != 0)
		return EXIT_FAIL;
	if (note) {
		fprintf(stderr, "hbctl: the saved key is deleted, but a key still comes %s\n", note);
		return EXIT_FAIL;
	}
	return show(p);
}

int cmd_settings(int argc, char **argv)
{
	struct hb_paths p;
	enum hb_notify_policy policy;
	char err[HB_PATH_MAX + 512];
	int rc;

	if (hb_paths_resolve(&p, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: %s\n", err);
		return EXIT_FAIL;
	}
	if (argc == 2)
		return show(&p);
	if (argc != 4)
		return usage();
	if (strcmp(argv[2], "gemini-key") == 0 && strcmp(argv[3], "set") == 0)
		rc = set_key(&p, err, sizeof err);
	else if (strcmp(argv[2], "gemini-key") == 0 && strcmp(argv[3], "delete") == 0)
		return delete_key(&p);
	else if (strcmp(argv[2], "notifications") == 0 && (strcmp(argv[3], "on") == 0 || strcmp(argv[3], "off") == 0))
		rc = hb_settings_set_notifications(&p, strcmp(argv[3], "on") == 0, err, sizeof err);
	else if (strcmp(argv[2], "policy") == 0 && hb_notify_policy_parse(argv[3], &policy) == 0)
		rc = hb_settings_set_policy(&p, policy, err, sizeof err);
	else
		return usage();
	if (rc < 0) {
		fprintf(stderr, "hbctl: %s\n", err);
		return EXIT_FAIL;
	}
	return show(&p);
}
