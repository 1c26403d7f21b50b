/*
 * deployed - the services of deploy/services.conf as the tests start them:
 * a test runs a deployed service from the tree's own file, never from a
 * copy of its lines that could drift from what is deployed.  One
 * difference: the `start`, `idle` and `wake` lines are left out, so every
 * service a test names is started with the broker, ready when the test
 * begins and never stopped for idleness (on-demand starts and idle stops
 * have their own tests, itest_ondemand and itest_idle_work).
 */
#include "harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Remove the lines "start = ...", "idle = ..." and "wake = ..." of
 * section, in place. */
static void drop_start_lines(char *section)
{
	char *line = section, *to = section;

	while (*line) {
		size_t len = strcspn(line, "\n") + (line[strcspn(line, "\n")] == '\n');
		if (strncmp(line, "start ", 6) != 0 && strncmp(line, "start=", 6) != 0 &&
		    strncmp(line, "idle ", 5) != 0 && strncmp(line, "idle=", 5) != 0 &&
		    strncmp(line, "wake ", 5) != 0 && strncmp(line, "wake=", 5) != 0) {
			memmove(to, line, len);
			to += len;
		}
		line += len;
	}
	*to = '\0';
}

char *fx_deployed_service(const char *name)
{
	const char *build = getenv("HB_BUILD");
	char path[700], head[200], *text = calloc(1, 65536), *at, *out = NULL;
	FILE *in;
	size_t n;

	snprintf(path, sizeof path, "%s/../deploy/services.conf", build ? build : "build");
	if (!text || (!(in = fopen(path, "r")) && !(in = fopen("deploy/services.conf", "r")))) {
		free(text);
		return NULL;
	}
	n = fread(text, 1, 65535, in);
	fclose(in);
	text[n] = '\0';
	snprintf(head, sizeof head, "[service %s]", name);
	if ((at = strstr(text, head))) {
		n = strcspn(at + 1, "[") + 1; /* up to the next section */
		if ((out = malloc(n + 1))) {
			memcpy(out, at, n);
			out[n] = '\0';
			drop_start_lines(out);
		}
	}
	free(text);
	return out;
}

char *fx_deployed_config(const char *extra, ...)
{
	char *text = NULL, *section;
	const char *name;
	size_t len = 0;
	int missing = 0;
	va_list ap;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		return NULL;
	va_start(ap, extra);
	while ((name = va_arg(ap, const char *))) {
		if (!(section = fx_deployed_service(name))) {
			fprintf(stderr, "harness: deploy/services.conf has no [service %s]\n", name);
			missing = 1;
			continue;
		}
		fprintf(out, "%s\n", section);
		free(section);
	}
	va_end(ap);
	if (extra)
		fputs(extra, out);
	if (fclose(out) != 0 || missing) {
		free(text);
		return NULL;
	}
	return text;
}

char *fx_config_add_lines(char *conf, const char *name, const char *lines)
{
	char head[200], *at, *out = NULL;
	size_t before;

	snprintf(head, sizeof head, "[service %s]\n", name);
	if (conf && (at = strstr(conf, head)) && (out = malloc(strlen(conf) + strlen(lines) + 1))) {
		before = (size_t)(at - conf) + strlen(head);
		memcpy(out, conf, before);
		strcpy(out + before, lines);
		strcat(out, conf + before);
	} else if (conf) {
		fprintf(stderr, "harness: the config has no [service %s]\n", name);
	}
	free(conf);
	return out;
}
