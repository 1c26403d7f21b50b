/*
 * config - parse the services file.  Strict: an unknown key, a duplicate
 * service or tool, or a missing exec is an error at start-up, where a
 * person sees it, rather than a surprise at the first call.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paths.h"
#include "secrets.h"

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* Split value on blanks into out[max]; returns the count or -1. */
static int split_words(char *value, char **out, int max)
{
	int n = 0;

	for (char *w = strtok(value, " \t"); w; w = strtok(NULL, " \t")) {
		if (n == max || !(out[n] = strdup(w)))
			return -1;
		n++;
	}
	return n;
}

/* Secrets whether a service declares them or not (common/secrets.h): an
 * old config without secrets lines must not hand the Gemini key to every
 * service. */

/* A portable environment variable name: [A-Za-z_][A-Za-z0-9_]*. */
static int env_name_ok(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

/* secrets = NAME... or env = NAME|PREFIX*...: added to the names of
 * earlier lines in list (max of them). */
static int add_names(const char *key, char **list, int max, int patterns, char *value, char *why, size_t whylen)
{
	int n = 0;

	while (list[n])
		n++;
	for (char *w = strtok(value, " \t"); w; w = strtok(NULL, " \t")) {
		size_t len = strlen(w);
		int star = patterns && len > 1 && w[len - 1] == '*';

		if (star)
			w[len - 1] = '\0';
		if (!(patterns && strcmp(w, "*") == 0) && !env_name_ok(w))
			return snprintf(why, whylen, "%s: \"%s\" is not an environment variable name%s", key, w,
					patterns ? " (or a prefix of names ending in *, or * for all)" : ""), -1;
		if (star)
			w[len - 1] = '*';
		if (n == max)
			return snprintf(why, whylen, "more than %d %s", max, key), -1;
		if (!(list[n] = strdup(w)))
			return snprintf(why, whylen, "out of memory"), -1;
		n++;
	}
	return 0;
}

int config_is_secret(const struct broker_config *cfg, const char *name, size_t len)
{
	for (const char *const *a = hb_always_secret; *a; a++)
		if (strlen(*a) == len && strncmp(*a, name, len) == 0)
			return 1;
	for (int i = 0; i < cfg->nservices; i++)
		for (char *const *s = cfg->services[i].secrets; *s; s++)
			if (strlen(*s) == len && strncmp(*s, name, len) == 0)
				return 1;
	return 0;
}

static int tool_taken(const struct broker_config *cfg, const char *tool)
{
	for (int i = 0; i < cfg->nservices; i++)
		for (int j = 0; j < cfg->services[i].ntools; j++)
			if (strcmp(cfg->services[i].tools[j], tool) == 0)
				return 1;
	return 0;
}

/* DURATION: a whole number with ms, s or m after it (a bare number is
 * seconds); -1 when it is none. */
static long long parse_duration_ms(const char *value)
{
	char *end;
	long long n = strtoll(value, &end, 10);

	if (end == value || n < 0 || n > CONFIG_IDLE_MAX_MS)
		return -1;
	if (strcmp(end, "ms") == 0)
		return n;
	if (!*end || strcmp(end, "s") == 0)
		return n * 1000;
	if (strcmp(end, "m") == 0)
		return n * 60000;
	return -1;
}

static int set_key(struct broker_config *cfg, struct service_config *svc, const char *key,
		   char *value, const char *libexec, char *why, size_t whylen)
{
	if (strcmp(key, "exec") == 0) {
		int n = value[0] == '/' ? snprintf(svc->exec, sizeof svc->exec, "%s", value)
					: snprintf(svc->exec, sizeof svc->exec, "%s/%s", libexec, value);
		if (n < 0 || (size_t)n >= sizeof svc->exec)
			return snprintf(why, whylen, "exec path too long"), -1;
	} else if (strcmp(key, "args") == 0) {
		if (split_words(value, svc->args, CONFIG_MAX_ARGS) < 0)
			return snprintf(why, whylen, "more than %d args", CONFIG_MAX_ARGS), -1;
	} else if (strcmp(key, "concurrency") == 0) {
		char *end;
		long n = strtol(value, &end, 10);
		if (*end || n < 1 || n > 256)
			return snprintf(why, whylen, "concurrency must be 1..256"), -1;
		svc->concurrency = (int)n;
	} else if (strcmp(key, "call-limit") == 0) {
		char *end;
		long n = strtol(value, &end, 10);
		if (end == value || *end || n < 1 || n > CONFIG_CALL_LIMIT_MAX_S)
			return snprintf(why, whylen, "call-limit must be a number of seconds from 1 to %d",
					CONFIG_CALL_LIMIT_MAX_S), -1;
		svc->call_limit_ms = n * 1000LL;
	} else if (strcmp(key, "start") == 0) {
		if (strcmp(value, "boot") != 0 && strcmp(value, "demand") != 0)
			return snprintf(why, whylen, "start must be boot or demand"), -1;
		svc->on_demand = strcmp(value, "demand") == 0;
	} else if (strcmp(key, "idle") == 0) {
		long long ms = parse_duration_ms(value);
		if (ms < 1 || ms > CONFIG_IDLE_MAX_MS)
			return snprintf(why, whylen, "idle must be a duration from 1ms to 24h (500ms, 60s, 10m)"), -1;
		svc->idle_ms = ms;
		svc->idles = 1;
	} else if (strcmp(key, "wake") == 0) {
		static const struct {
			const char *name;
			enum hb_dir dir;
		} dirs[] = { { "config", HB_DIR_CONFIG }, { "data", HB_DIR_DATA }, { "cache", HB_DIR_CACHE } };
		svc->wake = CONFIG_NO_WAKE;
		for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
			if (strcmp(value, dirs[i].name) == 0)
				svc->wake = (int)dirs[i].dir;
		if (svc->wake == CONFIG_NO_WAKE)
			return snprintf(why, whylen, "wake must be a folder of hbcode's: config, data or cache"), -1;
	} else if (strcmp(key, "tools") == 0) {
		char *words[CONFIG_MAX_TOOLS];
		int n = split_words(value, words, CONFIG_MAX_TOOLS);
		if (n < 0)
			return snprintf(why, whylen, "more than %d tools", CONFIG_MAX_TOOLS), -1;
		for (int i = 0; i < n; i++) {
			if (tool_taken(cfg, words[i])) {
				snprintf(why, whylen, "tool %s is already served by another service", words[i]);
				for (int j = i; j < n; j++)
					free(words[j]);
				return -1;
			}
			svc->tools[svc->ntools++] = words[i];
		}
	} else if (strcmp(key, "secrets") == 0) {
		return add_names(key, svc->secrets, CONFIG_MAX_SECRETS, 0, value, why, whylen);
	} else if (strcmp(key, "env") == 0) {
		return add_names(key, svc->env, CONFIG_MAX_ENV, 1, value, why, whylen);
	} else if (strcmp(key, "confine") == 0) {
		char what[256];

		if (svc->confine[0])
			return snprintf(why, whylen, "confine is given twice"), -1;
		if (hb_confine_check(value, what, sizeof what) < 0)
			return snprintf(why, whylen, "confine: %.200s", what), -1;
		snprintf(svc->confine, sizeof svc->confine, "%s", value);
	} else {
		return snprintf(why, whylen, "unknown key \"%s\"", key), -1;
	}
	return 0;
}

int config_load(struct broker_config *cfg, const char *path, const char *libexec,
		char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	struct service_config *svc = NULL;
	char line[2048], why[256] = "";
	int lineno = 0;

	memset(cfg, 0, sizeof *cfg);
	if (!f) {
		snprintf(err, errlen, "cannot open %s", path);
		return -1;
	}
	while (fgets(line, sizeof line, f)) {
		char *s, *eq, *hash = strchr(line, '#');

		lineno++;
		if (hash)
			*hash = '\0';
		s = trim(line);
		if (!*s)
			continue;
		if (strncmp(s, "[service ", 9) == 0 && s[strlen(s) - 1] == ']') {
			s[strlen(s) - 1] = '\0';
			s = trim(s + 9);
			if (cfg->nservices == CONFIG_MAX_SERVICES || !*s || strlen(s) >= CONFIG_NAME_MAX) {
				snprintf(why, sizeof why, "bad or too many services");
				goto bad;
			}
			for (int i = 0; i < cfg->nservices; i++)
				if (strcmp(cfg->services[i].name, s) == 0) {
					snprintf(why, sizeof why, "service %s appears twice", s);
					goto bad;
				}
			svc = &cfg->services[cfg->nservices++];
			snprintf(svc->name, sizeof svc->name, "%s", s);
			svc->concurrency = 4;
			svc->call_limit_ms = CONFIG_CALL_LIMIT_S * 1000LL;
			svc->idle_ms = CONFIG_IDLE_MS;
			svc->wake = CONFIG_NO_WAKE;
			continue;
		}
		if (!svc || !(eq = strchr(s, '='))) {
			snprintf(why, sizeof why, "expected [service NAME] or key = value");
			goto bad;
		}
		*eq = '\0';
		if (set_key(cfg, svc, trim(s), trim(eq + 1), libexec, why, sizeof why) < 0)
			goto bad;
	}
	fclose(f);
	for (int i = 0; i < cfg->nservices; i++) {
		cfg->services[i].idles |= cfg->services[i].on_demand; /* a demand service always idles */
		if (!cfg->services[i].exec[0]) {
			snprintf(err, errlen, "%s: service %s has no exec", path, cfg->services[i].name);
			config_free(cfg);
			return -1;
		}
	}
	return 0;
bad:
	fclose(f);
	snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
	config_free(cfg);
	return -1;
}

void config_free(struct broker_config *cfg)
{
	for (int i = 0; i < cfg->nservices; i++) {
		for (char **a = cfg->services[i].args; *a; a++)
			free(*a);
		for (int j = 0; j < cfg->services[i].ntools; j++)
			free(cfg->services[i].tools[j]);
		for (char **s = cfg->services[i].secrets; *s; s++)
			free(*s);
		for (char **s = cfg->services[i].env; *s; s++)
			free(*s);
	}
	memset(cfg, 0, sizeof *cfg);
}
