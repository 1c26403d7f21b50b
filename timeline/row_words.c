/*
 * row_words - see row_words.h.  Numbers a person reads: tokens grouped by
 * thousands, seconds with one decimal, money to a hundredth of a cent,
 * times in the local zone.
 */
#include "row_words.h"

#include <string.h>
#include <time.h>

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* n with a comma every three digits: 4,210. */
static void grouped(FILE *f, long long n)
{
	char digits[32];
	int len = snprintf(digits, sizeof digits, "%lld", n < 0 ? -n : n);

	if (n < 0)
		fputc('-', f);
	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			fputc(',', f);
		fputc(digits[i], f);
	}
}

/* A duration: "12.3 s", "4 s", "2 min 5 s". */
static void seconds(FILE *f, long long ms)
{
	if (ms >= 60000)
		fprintf(f, "%lld min %lld s", ms / 60000, ms % 60000 / 1000);
	else if (ms % 1000 == 0)
		fprintf(f, "%lld s", ms / 1000);
	else
		fprintf(f, "%.1f s", (double)ms / 1000.0);
}

int tl_turn_went_wrong(const json_t *row)
{
	return strcmp(str(row, "status"), "completed") != 0;
}

void tl_turn_words(FILE *f, const json_t *row)
{
	const json_t *ms = json_object_get(row, "durationMs"), *in = json_object_get(row, "tokensIn");
	const json_t *cached = json_object_get(row, "cachedTokensIn"), *out = json_object_get(row, "tokensOut");
	const json_t *cost = json_object_get(row, "costUsd");

	fputs(*str(row, "status") ? str(row, "status") : "ended", f);
	if (json_is_integer(ms)) {
		fputs(" · ", f);
		seconds(f, json_integer_value(ms));
	}
	if (json_is_integer(in)) {
		fputs(" · ", f);
		grouped(f, json_integer_value(in));
		fputs(" in", f);
		if (json_integer_value(cached) > 0) {
			fputs(" (", f);
			grouped(f, json_integer_value(cached));
			fputs(" cached)", f);
		}
		fputs(" / ", f);
		grouped(f, json_integer_value(out));
		fputs(" out tokens", f);
	}
	if (json_is_number(cost))
		fprintf(f, " · $%.4f", json_number_value(cost));
}

void tl_retry_words(FILE *f, const json_t *row)
{
	const json_t *delay = json_object_get(row, "delayMs"), *attempt = json_object_get(row, "attempt");
	const json_t *max = json_object_get(row, "maxAttempts");

	fputs("retrying", f);
	if (json_is_integer(delay)) {
		fputs(" in ", f);
		seconds(f, json_integer_value(delay));
	}
	if (json_is_integer(attempt)) {
		fprintf(f, " (attempt %lld", (long long)json_integer_value(attempt));
		if (json_is_integer(max))
			fprintf(f, " of %lld", (long long)json_integer_value(max));
		fputc(')', f);
	}
	if (*str(row, "reason"))
		fprintf(f, ": %s", str(row, "reason"));
	else if (json_is_integer(json_object_get(row, "httpStatus")))
		fprintf(f, ": HTTP %lld", (long long)json_integer_value(json_object_get(row, "httpStatus")));
}

/* Claude's rateLimitType as a person names the limit. */
static const char *limit_name(const char *type)
{
	static const char *const names[][2] = {
		{ "five_hour", "five-hour" },	     { "seven_day", "weekly" },
		{ "seven_day_opus", "weekly Opus" }, { "seven_day_sonnet", "weekly Sonnet" },
		{ "overage", "overage" },
	};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(type, names[i][0]) == 0)
			return names[i][1];
	return type;
}

void tl_rate_limit_words(FILE *f, const json_t *row)
{
	const json_t *at = json_object_get(row, "resetsAt");
	const char *type = str(row, "limitType");
	char when[32] = "";
	struct tm tm;
	time_t t;

	if (json_is_integer(at)) {
		t = (time_t)json_integer_value(at);
		/* a weekly limit may reset on another day: name it */
		if (!localtime_r(&t, &tm) ||
		    !strftime(when, sizeof when, strncmp(type, "seven_day", 9) == 0 ? "%a %H:%M" : "%H:%M", &tm))
			when[0] = '\0';
	}
	if (strcmp(str(row, "status"), "rejected") == 0)
		fprintf(f, "rate limited%s%s", *when ? " until " : "", when);
	else
		fprintf(f, "near the rate limit%s%s", *when ? ", resets " : "", when);
	if (*type)
		fprintf(f, " (%s limit)", limit_name(type));
}
