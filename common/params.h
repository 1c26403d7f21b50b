/*
 * params - the one table of the parameters the tools read from
 * settings.json: per parameter its key there, the environment variable
 * that wins over it (set for hb-broker, or by the tests to point a tool at
 * a fake), its default and a line saying what it is.  Nothing here reads
 * a file: the values are read through settings.h (hb_settings_param_*),
 * and `hbctl settings --all` lists every one with its default, its value
 * and where the value came from, the way `postconf -d`/`postconf -n` list
 * Postfix's.  The switches (notifications, browser control, remote access)
 * and the secrets (the Gemini key, the device credential) have readers of
 * their own in settings.h, and are not parameters.
 */
#ifndef HB_PARAMS_H
#define HB_PARAMS_H

enum hb_param_id {
	HB_PARAM_CODEX_PATH,
	HB_PARAM_AGENT_HOST,
	HB_PARAM_CLAUDE_PATH,
	HB_PARAM_CLAUDE_ACCOUNT,
	HB_PARAM_GEMINI_BASE_URL,
	HB_PARAM_SPEECH_MODEL,
	HB_PARAM_VIDEO_MODEL,
	HB_PARAM_VIDEO_TEMPERATURE,
	HB_PARAM_EXPLAINER_WORKER_MINUTES,
	HB_PARAM_EXPLAINER_VOICE,
	HB_PARAM_RELAY_URL,
	HB_PARAM_RELAY_CA_FILE,
	HB_PARAM_BROWSER_URL,
	HB_PARAM_REPLY_STYLE,
	HB_PARAM_COUNT
};

enum hb_param_kind { HB_PARAM_TEXT, HB_PARAM_NUMBER };

struct hb_param {
	const char *key;          /* in settings.json */
	const char *env;          /* the variable that wins over the file, or NULL */
	enum hb_param_kind kind;
	const char *dflt;         /* the default, as text (a number's too) */
	double min, max;          /* a number's range */
	const char *what;         /* what it is, one line */
};

/* The entry of id (0 <= id < HB_PARAM_COUNT). */
const struct hb_param *hb_param(enum hb_param_id id);
/* The entry whose key is key, or NULL. */
const struct hb_param *hb_param_find(const char *key);
/* A number parameter's default. */
double hb_param_default_number(const struct hb_param *prm);

#endif
