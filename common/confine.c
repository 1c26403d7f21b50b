/*
 * confine - the declaration of what a service may reach (confine.h):
 * its words checked, its folders resolved; the platform's seam
 * (confine_linux.c, or nothing elsewhere) applies it.
 */
#include "confine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* The folder of word (after "read=" or "write="): 0 with its path, or -1. */
static int folder_of(const char *word, const struct hb_paths *p, int for_write, char *out, size_t outlen,
		     char *err, size_t errlen)
{
	static const struct {
		const char *name;
		enum hb_dir dir;
	} bases[] = { { "data", HB_DIR_DATA }, { "cache", HB_DIR_CACHE }, { "config", HB_DIR_CONFIG },
		      { "runtime", HB_DIR_RUNTIME } };
	const char *slash = strchr(word, '/');
	size_t baselen = slash ? (size_t)(slash - word) : strlen(word);

	if ((strcmp(word, "xdg-config") == 0 || strncmp(word, "xdg-config/", 11) == 0) && !for_write) {
		const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME"), *rest = word + 10;

		/* a file or folder in it, by a plain relative path */
		if (*rest && (!rest[1] || strstr(rest, "..") ||
			      strspn(rest + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./") !=
				      strlen(rest + 1)))
			goto bad;
		if (p && xdg && xdg[0] == '/')
			snprintf(out, outlen, "%s%s", xdg, rest);
		else if (p && home && home[0] == '/')
			snprintf(out, outlen, "%s/.config%s", home, rest);
		else if (p)
			return snprintf(err, errlen, "xdg-config: neither XDG_CONFIG_HOME nor HOME is set"), -1;
		return 0;
	}
	for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
		if (strlen(bases[i].name) != baselen || strncmp(word, bases[i].name, baselen) != 0)
			continue;
		if (slash && (!slash[1] || strstr(slash, "..") || strspn(slash + 1, "abcdefghijklmnopqrstuvwxyz0123456789-_/") !=
									 strlen(slash + 1)))
			break;
		if (p && snprintf(out, outlen, "%s%s", hb_paths_dir(p, bases[i].dir), slash ? slash : "") >= (int)outlen)
			return snprintf(err, errlen, "%s: the path is too long", word), -1;
		return 0;
	}
bad:
	snprintf(err, errlen,
		 "\"%.64s\" is not a folder a service may be given: data, cache, config, runtime (each with a "
		 "sub-folder if need be), xdg-config%s",
		 word, for_write ? "" : ", or any");
	return -1;
}

/* Both: check (p NULL) or resolve into out. */
static int parse(const char *spec, const struct hb_paths *p, struct hb_confine *out, char *err, size_t errlen)
{
	char copy[HB_CONFINE_SPEC_MAX], *save = NULL;
	int network_seen = 0;

	memset(out, 0, sizeof *out);
	if (strlen(spec) >= sizeof copy)
		return snprintf(err, errlen, "the confine line is longer than %d bytes", HB_CONFINE_SPEC_MAX - 1), -1;
	snprintf(copy, sizeof copy, "%s", spec);
	for (char *w = strtok_r(copy, " \t;", &save); w; w = strtok_r(NULL, " \t;", &save)) {
		if (strcmp(w, "network=none") == 0 || strcmp(w, "network=any") == 0) {
			out->network = strcmp(w, "network=any") == 0;
			network_seen = 1;
		} else if (strcmp(w, "exec") == 0) {
			out->exec = 1;
		} else if (strcmp(w, "read=any") == 0) {
			out->read_any = 1;
		} else if (strncmp(w, "read=", 5) == 0) {
			if (out->nread == HB_CONFINE_MAX_FOLDERS)
				return snprintf(err, errlen, "more than %d read folders", HB_CONFINE_MAX_FOLDERS), -1;
			if (folder_of(w + 5, p, 0, out->read[out->nread], HB_PATH_MAX, err, errlen) < 0)
				return -1;
			out->nread++;
		} else if (strncmp(w, "write=", 6) == 0) {
			if (out->nwrite == HB_CONFINE_MAX_FOLDERS)
				return snprintf(err, errlen, "more than %d write folders", HB_CONFINE_MAX_FOLDERS), -1;
			if (folder_of(w + 6, p, 1, out->write[out->nwrite], HB_PATH_MAX, err, errlen) < 0)
				return -1;
			out->nwrite++;
		} else {
			return snprintf(err, errlen,
					"\"%.64s\" is not a confine word: network=none|any, read=FOLDER, write=FOLDER, "
					"exec",
					w), -1;
		}
	}
	if (!network_seen)
		return snprintf(err, errlen, "a confine line says network=none or network=any"), -1;
	return 0;
}

int hb_confine_check(const char *spec, char *err, size_t errlen)
{
	struct hb_confine *c = malloc(sizeof *c);
	int rc;

	if (!c)
		return snprintf(err, errlen, "out of memory"), -1;
	rc = parse(spec, NULL, c, err, errlen);
	free(c);
	return rc;
}

int hb_confine_parse(const char *spec, const struct hb_paths *p, struct hb_confine *out, char *err,
		     size_t errlen)
{
	const char *failpoints = getenv("HB_FAILPOINTS");

	if (parse(spec, p, out, err, errlen) < 0)
		return -1;
	/* a test's crash points (failpoint.h) are files the service removes */
	if (failpoints && failpoints[0] == '/' && out->nwrite < HB_CONFINE_MAX_FOLDERS &&
	    snprintf(out->write[out->nwrite], HB_PATH_MAX, "%s", failpoints) < HB_PATH_MAX)
		out->nwrite++;
	for (int i = 0; i < out->nwrite; i++) {
		/* the four folders are private (paths.h); a sub-folder is ours */
		if (hb_paths_make_private(p, err, errlen) < 0)
			return -1;
		if (hb_mkdir_p(out->write[i], 0700) < 0) {
			snprintf(err, errlen, "cannot make %s: %s", out->write[i], strerror(errno));
			return -1;
		}
	}
	return 0;
}

int hb_confine_from_env(char *err, size_t errlen)
{
	const char *spec = getenv("HB_CONFINE");
	struct hb_confine *c;
	struct hb_paths p;
	int rc = -1;

	if (!spec || !*spec)
		return 0;
	if (!(c = malloc(sizeof *c)))
		return snprintf(err, errlen, "out of memory"), -1;
	if (hb_paths_resolve(&p, err, errlen) == 0 && hb_confine_parse(spec, &p, c, err, errlen) == 0 &&
	    hb_confine_apply(c, err, errlen) == 0)
		rc = 0;
	free(c);
	return rc;
}
