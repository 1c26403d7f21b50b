/*
 * usage - hbctl usage [--json]: the plan usage of the active Claude
 * account (hbctl accounts; the default one is this computer's Claude
 * sign-in), page 003 "Accounts and usage".
 *
 * Reading usage starts Claude Code (a one-shot host's `usage` read), so a
 * reading is kept a minute in the cache folder (claude_usage.h) and every
 * reader in that minute gets it; hb-claude-bridge clears it when a run
 * ends, since the run changed the usage; readers that find none read in
 * turn (a lock), so that two at once start Claude Code once.  Shown: the
 * rolling five-hour window and the weekly windows; the weekly window of
 * third-party apps is left out, as the page says.  An API-key account
 * has no plan windows, and says so.
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

static int print_reading(const char *account, const json_t *r, long age)
{
	int main_account = strcmp(account, HB_CLAUDE_ACCOUNT_DEFAULT) == 0;

	const json_t *limits = json_object_get(r, "rateLimits");
	const char *plan = json_string_value(json_object_get(r, "subscriptionType"));
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
		const json_t *w = json_object_get(limits, windows[i].key);
		const json_t *u = json_object_get(w, "utilization");
		if (!json_is_object(w))
			continue;
		printf("  %s: ", windows[i].name);
		if (json_is_number(u))
			printf("%.0f%% used", json_number_value(u));
		else
			printf("usage not given");
		if (json_is_string(json_object_get(w, "resets_at"))) /* ISO 8601, as the SDK gives it */
			printf(", resets %s", json_string_value(json_object_get(w, "resets_at")));
		putchar('\n');
		shown++;
	}
	if (!shown)
		printf("  Claude gave no five-hour or weekly window for it now.\n");
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

int cmd_usage(int argc, char **argv)
{
	int as_json = argc == 3 && strcmp(argv[2], "--json") == 0, rc = 0;
	struct hb_paths paths;
	char err[512], account[HB_CLAUDE_ACCOUNT_NAME_MAX];
	time_t now = time(NULL);
	json_t *reading;
	time_t at;
	long age = 0;

	if (argc > 3 || (argc == 3 && !as_json)) {
		fprintf(stderr, "usage: hbctl usage [--json]\n");
		return EXIT_USAGE;
	}
	if (hb_paths_resolve(&paths, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: %s\n", err);
		return EXIT_FAIL;
	}
	if (accounts_use_active(account, sizeof account) < 0)
		return EXIT_FAIL;
	if ((reading = hb_claude_usage_cached(&paths, account, now, &at))) {
		age = (long)(now - at);
	} else {
		/* In turn with other readers: the one before may be reading. */
		int lock = hb_claude_usage_lock(&paths, account, USAGE_LOCK_WAIT_MS, err, sizeof err);
		if (lock < 0)
			fprintf(stderr, "hbctl: usage: reading without the lock: %s\n", err);
		now = time(NULL);
		if ((reading = hb_claude_usage_cached(&paths, account, now, &at)))
			age = (long)(now - at);
		else
			reading = read_now(argv[0], &paths, account, now, &rc);
		if (lock >= 0)
			close(lock);
		if (!reading)
			return rc;
	}
	if (as_json) {
		char *text = json_dumps(reading, JSON_COMPACT);
		if (text)
			puts(text);
		else
			rc = EXIT_FAIL;
		free(text);
	} else {
		rc = print_reading(account, reading, age);
	}
	json_decref(reading);
	return rc;
}
