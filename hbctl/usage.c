/*
 * usage - hbctl usage [--agent claude|codex] [--json]: the plan usage of
 * both agents, each window with when it resets.  Claude: the active
 * account's (hbctl accounts; the default one is this computer's Claude
 * sign-in), page 003 "Accounts and usage".  Codex: the rate limits codex
 * app-server reported last (after its model's answers; hb-codex-bridge
 * keeps them, claude_usage.h), with their age: codex reports them only
 * while it runs, so nothing is started to read them.
 *
 * Reading usage starts Claude Code (a one-shot host's `usage` read), so a
 * reading is kept a minute in the cache folder (claude_usage.h) and every
 * reader in that minute gets it; hb-claude-bridge clears it when a run
 * ends, since the run changed the usage; readers that find none read in
 * turn (a lock), so that two at once start Claude Code once.  Shown: the
 * rolling five-hour window and the weekly windows; the weekly window of
 * third-party apps is left out, as the page says, and the per-model
 * weekly windows the SDK gives (model_scoped) follow, each under its
 * model's name.  An API-key account has no plan windows, and says so.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "claude_account.h"
#include "claude_usage.h"
#include "hbctl.h"
#include "paths.h"

/* How long a reader waits for the one before it: a reading takes a few
 * seconds, one start of Claude Code. */
#define USAGE_LOCK_WAIT_MS 120000

/* The windows shown, in this order, with their names for a person. */
static const struct {
	const char *key, *name;
} windows[] = {
	{ "five_hour", "five-hour window" },
	{ "seven_day", "weekly window" },
	{ "seven_day_opus", "weekly window, Opus" },
	{ "seven_day_sonnet", "weekly window, Sonnet" },
};

/* "  NAME[, MODEL]: 42% used, resets 2026-12-02T03:00:00Z" */
static void print_claude_window(const char *name, const char *model, const json_t *w)
{
	const json_t *u = json_object_get(w, "utilization");

	printf("  %s%s%s: ", name, model ? ", " : "", model ? model : "");
	if (json_is_number(u))
		printf("%.0f%% used", json_number_value(u));
	else
		printf("usage not given");
	if (json_is_string(json_object_get(w, "resets_at"))) /* ISO 8601, as the SDK gives it */
		printf(", resets %s", json_string_value(json_object_get(w, "resets_at")));
	putchar('\n');
}

static int print_reading(const char *account, const json_t *r, long age)
{
	int main_account = strcmp(account, HB_CLAUDE_ACCOUNT_DEFAULT) == 0;

	const json_t *limits = json_object_get(r, "rateLimits");
	const char *plan = json_string_value(json_object_get(r, "subscriptionType"));
	const json_t *w;
	size_t i, shown = 0;

	if (!plan && !json_is_true(json_object_get(r, "rateLimitsAvailable"))) {
		printf("%s%s uses an API key: an API-key account has no plan usage windows.\n",
		       main_account ? "The default account (this computer's Claude sign-in)" : "The account ",
		       main_account ? "" : account);
		return 0;
	}
	printf("%s%s, plan %s, read %ld s ago:\n", main_account ? "Default account (this computer's Claude sign-in)"
							    : "Account ", main_account ? "" : account,
	       plan ? plan : "unknown", age);
	for (i = 0; i < sizeof windows / sizeof windows[0]; i++) {
		if (!json_is_object(w = json_object_get(limits, windows[i].key)))
			continue;
		print_claude_window(windows[i].name, NULL, w);
		shown++;
	}
	json_array_foreach(json_object_get(limits, "model_scoped"), i, w) {
		const char *model = json_string_value(json_object_get(w, "display_name"));
		print_claude_window("weekly window", model ? model : "a model", w);
		shown++;
	}
	if (!shown)
		printf("  Claude gave no five-hour or weekly window for it now.\n");
	return 0;
}

/* One window of Codex's: "five-hour window: 42% used, resets
 * 2026-12-02T03:00:00Z" (resetsAt is in seconds since 1970). */
static void print_codex_window(const json_t *w)
{
	const json_t *used = json_object_get(w, "usedPercent");
	json_int_t minutes = json_integer_value(json_object_get(w, "windowDurationMins"));
	time_t resets = (time_t)json_integer_value(json_object_get(w, "resetsAt"));
	char when[32];
	struct tm tm;

	if (minutes == 300)
		printf("  five-hour window: ");
	else if (minutes == 10080)
		printf("  weekly window: ");
	else if (minutes > 0)
		printf("  %lld-minute window: ", (long long)minutes);
	else
		printf("  window: ");
	if (json_is_number(used))
		printf("%.0f%% used", json_number_value(used));
	else
		printf("usage not given");
	if (json_is_integer(json_object_get(w, "resetsAt")) && gmtime_r(&resets, &tm) &&
	    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm))
		printf(", resets %s", when);
	putchar('\n');
}

/* Codex's windows as codex reported them last; 0. */
static int print_codex(const json_t *limits, long age)
{
	const char *plan = json_string_value(json_object_get(limits, "planType"));

	if (!limits) {
		printf("Codex has reported no rate limits yet: codex app-server reports them after its model's "
		       "answers, so they show once a Codex turn has run.\n");
		return 0;
	}
	printf("Codex, plan %s, reported %ld s ago:\n", plan ? plan : "unknown", age);
	if (json_is_object(json_object_get(limits, "primary")))
		print_codex_window(json_object_get(limits, "primary"));
	if (json_is_object(json_object_get(limits, "secondary")))
		print_codex_window(json_object_get(limits, "secondary"));
	return 0;
}

/* A fresh reading from a one-shot host, kept for the next minute. */
static json_t *read_now(const char *argv0, const struct hb_paths *paths, const char *account, time_t now, int *rc)
{
	json_t *params = json_object(), *reply = NULL, *reading;
	const char *message;
	char err[512];

	*rc = claude_read(argv0, "usage", params, &reply);
	json_decref(params);
	if (*rc != 0)
		return NULL;
	reading = json_object_get(reply, "result");
	if (!json_is_object(reading)) {
		message = json_string_value(json_object_get(json_object_get(reply, "error"), "message"));
		fprintf(stderr, "hbctl: usage: %s\n", message ? message : "the agent host gave no reading");
		json_decref(reply);
		*rc = EXIT_FAIL;
		return NULL;
	}
	json_incref(reading);
	json_decref(reply);
	/* Not kept: the next reader starts Claude Code again, nothing worse. */
	if (hb_claude_usage_store(paths, account, reading, now, err, sizeof err) < 0)
		fprintf(stderr, "hbctl: usage: the reading is not kept for other readers: %s\n", err);
	return reading;
}

/* The Claude reading of the active account, whose name goes into
 * account (NULL with *rc when there is none), and its age in *age. */
static json_t *claude_reading(const char *argv0, const struct hb_paths *paths, char account[HB_CLAUDE_ACCOUNT_NAME_MAX],
			      long *age, int *rc)
{
	char err[512];
	time_t now = time(NULL), at;
	json_t *reading;

	*rc = 0;
	if (accounts_use_active(account, HB_CLAUDE_ACCOUNT_NAME_MAX) < 0) {
		*rc = EXIT_FAIL;
		return NULL;
	}
	if ((reading = hb_claude_usage_cached(paths, account, now, &at))) {
		*age = (long)(now - at);
	} else {
		/* In turn with other readers: the one before may be reading. */
		int lock = hb_claude_usage_lock(paths, account, USAGE_LOCK_WAIT_MS, err, sizeof err);
		if (lock < 0)
			fprintf(stderr, "hbctl: usage: reading without the lock: %s\n", err);
		now = time(NULL);
		if ((reading = hb_claude_usage_cached(paths, account, now, &at)))
			*age = (long)(now - at);
		else
			reading = read_now(argv0, paths, account, now, rc);
		if (lock >= 0)
			close(lock);
	}
	return reading;
}

int cmd_usage(int argc, char **argv)
{
	int as_json = 0, rc = 0, want_claude = 1, want_codex = 1;
	struct hb_paths paths;
	char err[512], account[HB_CLAUDE_ACCOUNT_NAME_MAX] = "";
	json_t *reading = NULL, *codex = NULL;
	time_t now = time(NULL), at = 0;
	long age = 0;

	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0 && !as_json) {
			as_json = 1;
		} else if (strcmp(argv[i], "--agent") == 0 && i + 1 < argc && want_claude && want_codex &&
			   (strcmp(argv[i + 1], "claude") == 0 || strcmp(argv[i + 1], "codex") == 0)) {
			want_claude = strcmp(argv[++i], "claude") == 0;
			want_codex = !want_claude;
		} else {
			fprintf(stderr, "usage: hbctl usage [--agent claude|codex] [--json]\n");
			return EXIT_USAGE;
		}
	}
	if (hb_paths_resolve(&paths, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: %s\n", err);
		return EXIT_FAIL;
	}
	if (want_codex)
		codex = hb_codex_usage_last(&paths, now, &at);
	if (want_claude && !(reading = claude_reading(argv[0], &paths, account, &age, &rc)) && !want_codex) {
		json_decref(codex);
		return rc;
	}
	if (as_json) {
		/* Claude's reading at the top, as before Codex was shown;
		 * Codex's under "codex", with when it came. */
		json_t *out = reading ? json_incref(reading) : json_object();
		char *text;
		if (want_codex)
			json_object_set_new(out, "codex", codex ? json_pack("{s:O, s:I}", "rateLimits", codex, "reportedAt",
									    (json_int_t)at)
								: json_null());
		text = json_dumps(out, JSON_COMPACT);
		if (text)
			puts(text);
		else
			rc = EXIT_FAIL;
		free(text);
		json_decref(out);
	} else {
		if (reading)
			print_reading(account, reading, age);
		if (want_codex)
			print_codex(codex, (long)(now - at));
	}
	json_decref(reading);
	json_decref(codex);
	return rc;
}

