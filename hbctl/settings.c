/*
 * hbctl settings - show and change the settings the tools read on every
 * call.  They are files in the config directory, so this works with no
 * broker running; the broker and the services read them again on their
 * next request.  The Gemini key is read from standard input (a command
 * line shows in `ps`) and is never printed.
 *
 *	hbctl settings
 *	hbctl settings gemini-key set      (the key on standard input)
 *	hbctl settings gemini-key delete
 *	hbctl settings notifications on|off
 *	hbctl settings policy important|frequent
 */
#include <stdio.h>
#include <string.h>

#include "hbctl.h"
#include "paths.h"
#include "settings.h"

static int show(const struct hb_paths *p)
{
	struct hb_settings s;
	char err[512];

	if (hb_settings_load(p, &s, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: %s\n", err);
		return EXIT_FAIL;
	}
	printf("gemini-key     %s\n", !s.gemini_key ? "not set"
			       : s.gemini_key_from_env ? "set (GEMINI_API_KEY in the environment)" : "saved");
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

int cmd_settings(int argc, char **argv)
{
	struct hb_paths p;
	enum hb_notify_policy policy;
	char err[512];
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
		rc = hb_settings_delete_gemini_key(&p, err, sizeof err);
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
