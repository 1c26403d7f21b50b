/*
 * hbctl settings - show and change the settings the tools read on every
 * call.  They are files in the config directory, so this works with no
 * broker running; the broker and the services read them again on their
 * next request.  The Gemini key is read from standard input (a command
 * line shows in `ps`) and is never printed; so is the device credential
 * that signing in to the relay stores.
 *
 * GEMINI_API_KEY in the environment of hbctl or of the running broker
 * (its status says) is a key no setting can remove: the listing says so,
 * and deleting the saved key then fails with the same sentence.
 *
 *	hbctl settings
 *	hbctl settings --all               (every parameter of common/params.c:
 *	                                    value, where it came from, default)
 *	hbctl settings gemini-key set      (the key on standard input)
 *	hbctl settings gemini-key delete
 *	hbctl settings notifications on|off
 *	hbctl settings policy important|frequent
 *	hbctl settings relay-url set URL | relay-url delete
 *	hbctl settings remote-access on|off
 *	hbctl settings device-credential set   (on standard input)
 *	hbctl settings device-credential delete
 *	hbctl settings browser on|off
 *	hbctl settings browser-url set URL | browser-url delete
 *	hbctl settings codex-path set PATH | codex-path delete
 *	hbctl settings agent-host set "COMMAND LINE" | agent-host delete
 *	hbctl settings claude-path set PATH | claude-path delete
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "hbctl.h"
#include "paths.h"
#include "settings.h"
#include "protocol.h"

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
	hb_env_set_str(&req, "op", HB_OP_STATUS);
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

/* A saved secret's line: rc is its reader's (0 usable, -1 with err); a
 * file that cannot be used shows its sentence and fails the command. */
static int secret_line(const char *label, int saved, int rc, const char *err)
{
	if (!saved)
		printf("%snot set\n", label);
	else if (rc < 0)
		printf("%snot usable: %s\n", label, err);
	else
		printf("%ssaved\n", label);
	return saved && rc < 0 ? EXIT_FAIL : 0;
}

/* The relay link's settings; a bad saved URL is shown as its sentence
 * (and the exit status says so), never as the URL. */
static int show_relay(const struct hb_paths *p, const struct hb_settings *s)
{
	char url[HB_RELAY_URL_MAX + 1], err[HB_PATH_MAX + 512], cred[HB_DEVICE_CREDENTIAL_MAX + 1];
	int rc = 0;

	if (hb_settings_relay_url(p, url, sizeof url, err, sizeof err) < 0) {
		printf("relay-url      not usable: %s\n", err);
		rc = EXIT_FAIL;
	} else {
		printf("relay-url      %s\n", *url ? url : "not set");
	}
	printf("remote-access  %s\n", s->remote_access ? "on" : "off");
	if (secret_line("device-credential ", s->signed_in,
			s->signed_in ? hb_settings_device_credential(p, cred, sizeof cred, err, sizeof err) : 1, err))
		rc = EXIT_FAIL;
	memset(cred, 0, sizeof cred);
	return rc;
}

static int show_browser(const struct hb_paths *p, const struct hb_settings *s)
{
	char url[HB_BROWSER_URL_MAX + 1], err[HB_PATH_MAX + 512];
	int rc = 0;

	printf("browser        %s\n", s->browser ? "on" : "off");
	if (hb_settings_browser_url(p, url, sizeof url, err, sizeof err) < 0) {
		printf("browser-url    not usable: %s\n", err);
		rc = EXIT_FAIL;
	} else {
		printf("browser-url    %s\n", *url ? url : "not set (Chrome's DevToolsActivePort is looked for)");
	}
	return rc;
}

/* The agents' programs (the broker starts them for sessions whose agent
 * is not running; svc-explainer for its worker; hbctl accounts runs
 * Claude's own sign-in): any text, checked when it is used. */
static const struct agent_setting {
	const char *what;
	enum hb_param_id id;
	const char *unset;
} agent_settings[] = {
	{ "codex-path", HB_PARAM_CODEX_PATH, "not set (codex, from PATH)" },
	{ "agent-host", HB_PARAM_AGENT_HOST, "not set (the agent host installed with hbcode)" },
	{ "claude-path", HB_PARAM_CLAUDE_PATH, "not set (claude from PATH, else the one the agent host brings)" },
};

static const struct agent_setting *agent_setting(const char *what)
{
	for (size_t i = 0; i < sizeof agent_settings / sizeof agent_settings[0]; i++)
		if (strcmp(agent_settings[i].what, what) == 0)
			return &agent_settings[i];
	return NULL;
}

static int show_agents(const struct hb_paths *p)
{
	char value[4096], err[HB_PATH_MAX + 512];
	enum hb_param_source from;
	int rc = 0;

	for (size_t i = 0; i < sizeof agent_settings / sizeof agent_settings[0]; i++) {
		const struct agent_setting *a = &agent_settings[i];
		const struct hb_param *prm = hb_param(a->id);

		if (hb_settings_param_text(p, a->id, value, sizeof value, &from, err, sizeof err) < 0) {
			printf("%-14s not usable: %s\n", a->what, err);
			rc = EXIT_FAIL;
		} else if (from == HB_PARAM_FROM_DEFAULT || !*value) {
			printf("%-14s %s\n", a->what, a->unset);
		} else {
			printf("%-14s %s%s%s%s\n", a->what, value, from == HB_PARAM_FROM_ENV ? " (from " : "",
			       from == HB_PARAM_FROM_ENV ? prm->env : "", from == HB_PARAM_FROM_ENV ? ")" : "");
		}
	}
	return rc;
}

/* --all: every parameter of params.h, three lines each: its value, where
 * the value came from and its default, and what it is. */
static int show_all(const struct hb_paths *p)
{
	char value[4096], err[HB_PATH_MAX + 512];
	enum hb_param_source from;
	int rc = 0;

	for (int id = 0; id < HB_PARAM_COUNT; id++) {
		const struct hb_param *prm = hb_param((enum hb_param_id)id);

		int usable = hb_settings_param_text(p, (enum hb_param_id)id, value, sizeof value, &from, err,
						    sizeof err) == 0;

		if (usable)
			printf("%s =%s%s\n    from: %s;", prm->key, *value ? " " : "", value,
			       hb_param_source_name(prm, from));
		else
			printf("%s: not usable: %s\n   ", prm->key, err);
		printf(" default: %s%s%s\n    %s\n", *prm->dflt ? prm->dflt : "(empty)", prm->env ? "; variable: " : "",
		       prm->env ? prm->env : "", prm->what);
		if (!usable)
			rc = EXIT_FAIL;
	}
	return rc;
}

/* The saved key's line: a file that cannot be used shows its sentence.
 * Without GEMINI_API_KEY in hbctl's environment the reader reads the file. */
static int show_key(const struct hb_paths *p, const struct hb_settings *s, const char *note)
{
	char key[HB_GEMINI_KEY_MAX + 1], err[HB_PATH_MAX + 512];
	int rc;

	if (note) {
		printf("gemini-key     %s%s\n", note, s->gemini_key_saved ? " (a key is saved too)" : "");
		return 0;
	}
	rc = secret_line("gemini-key     ", s->gemini_key_saved,
			 s->gemini_key_saved ? hb_settings_gemini_key(p, key, sizeof key, err, sizeof err) : 1, err);
	memset(key, 0, sizeof key);
	return rc;
}

static int show(const struct hb_paths *p)
{
	struct hb_settings s;
	const char *note;
	int rc;

	if (load(p, &s, &note) != 0)
		return EXIT_FAIL;
	rc = show_key(p, &s, note);
	printf("notifications  %s\n", s.notifications ? "on" : "off");
	printf("policy         %s\n", hb_notify_policy_name(s.policy));
	if (show_relay(p, &s))
		rc = EXIT_FAIL;
	if (show_browser(p, &s))
		rc = EXIT_FAIL;
	return show_agents(p) ? EXIT_FAIL : rc;
}

/* One line of standard input, without its line end, into buf (size
 * len); what names it in the sentences.  The caller wipes buf. */
static int read_secret_line(char *buf, size_t len, const char *what, char *err, size_t errlen)
{
	size_t n;

	if (!fgets(buf, (int)len, stdin)) {
		snprintf(err, errlen, "give the %s on standard input", what);
		return -1;
	}
	n = strcspn(buf, "\r\n");
	if (!buf[n] && n == len - 1 && !feof(stdin)) {
		snprintf(err, errlen, "the %s on standard input is too long", what);
		return -1;
	}
	buf[n] = '\0';
	return 0;
}

static int set_key(const struct hb_paths *p, char *err, size_t errlen)
{
	char key[HB_GEMINI_KEY_MAX + 2];
	int rc;

	rc = read_secret_line(key, sizeof key, "key", err, errlen);
	if (rc == 0)
		rc = hb_settings_save_gemini_key(p, key, err, errlen);
	memset(key, 0, sizeof key);
	return rc;
}

static int set_credential(const struct hb_paths *p, char *err, size_t errlen)
{
	char *cred = calloc(1, HB_DEVICE_CREDENTIAL_MAX + 2);
	int rc;

	if (!cred) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = read_secret_line(cred, HB_DEVICE_CREDENTIAL_MAX + 2, "device credential", err, errlen);
	if (rc == 0)
		rc = hb_settings_save_device_credential(p, cred, err, errlen);
	memset(cred, 0, HB_DEVICE_CREDENTIAL_MAX + 2);
	free(cred);
	return rc;
}

/* The relay-url, remote-access and device-credential verbs: 0 or -1 with
 * err; 1 when argv names none of them. */
static int relay_verb(const struct hb_paths *p, const char *what, const char *verb, const char *arg, char *err,
		      size_t errlen)
{
	if (strcmp(what, "relay-url") == 0 && strcmp(verb, "set") == 0 && arg)
		return hb_settings_set_relay_url(p, arg, err, errlen);
	if (agent_setting(what) &&
	    ((strcmp(verb, "set") == 0 && arg && *arg) || (strcmp(verb, "delete") == 0 && !arg)))
		return hb_settings_param_set(p, agent_setting(what)->id, arg, err, errlen);
	if (strcmp(what, "browser-url") == 0 && strcmp(verb, "set") == 0 && arg)
		return hb_settings_set_browser_url(p, arg, err, errlen);
	if (arg)
		return 1;
	if (strcmp(what, "browser-url") == 0 && strcmp(verb, "delete") == 0)
		return hb_settings_delete_browser_url(p, err, errlen);
	if (strcmp(what, "relay-url") == 0 && strcmp(verb, "delete") == 0)
		return hb_settings_delete_relay_url(p, err, errlen);
	if (strcmp(what, "remote-access") == 0 && (strcmp(verb, "on") == 0 || strcmp(verb, "off") == 0))
		return hb_settings_set_remote_access(p, strcmp(verb, "on") == 0, err, errlen);
	if (strcmp(what, "device-credential") == 0 && strcmp(verb, "set") == 0)
		return set_credential(p, err, errlen);
	if (strcmp(what, "device-credential") == 0 && strcmp(verb, "delete") == 0)
		return hb_settings_delete_device_credential(p, err, errlen);
	return 1;
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
	if (argc == 3 && strcmp(argv[2], "--all") == 0)
		return show_all(&p);
	if (argc != 4 && argc != 5)
		return usage();
	if ((rc = relay_verb(&p, argv[2], argv[3], argc == 5 ? argv[4] : NULL, err, sizeof err)) != 1)
		; /* one of the relay link's */
	else if (argc != 4)
		return usage();
	else if (strcmp(argv[2], "gemini-key") == 0 && strcmp(argv[3], "set") == 0)
		rc = set_key(&p, err, sizeof err);
	else if (strcmp(argv[2], "gemini-key") == 0 && strcmp(argv[3], "delete") == 0)
		return delete_key(&p);
	else if (strcmp(argv[2], "notifications") == 0 && (strcmp(argv[3], "on") == 0 || strcmp(argv[3], "off") == 0))
		rc = hb_settings_set_notifications(&p, strcmp(argv[3], "on") == 0, err, sizeof err);
	else if (strcmp(argv[2], "browser") == 0 && (strcmp(argv[3], "on") == 0 || strcmp(argv[3], "off") == 0))
		rc = hb_settings_set_browser(&p, strcmp(argv[3], "on") == 0, err, sizeof err);
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
