/*
 * finish - narrate, fit, gate, render and save (see finish.h).
 */
#include "finish.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "captions.h"
#include "clock.h"
#include "folder.h"
#include "log.h"
#include "narration.h"
#include "preview.h"
#include "problems.h"
#include "script.h"
#include "sha256.h"

#define SAY_NAME_HEX 16

/* "say-<16 hex of the text's SHA-256>.wav" */
static void say_name(const char *text, char *out, size_t outlen)
{
	char hex[HB_SHA256_HEX_LEN + 1];

	hb_sha256_hex(text, strlen(text), hex);
	snprintf(out, outlen, "say-%.*s.wav", SAY_NAME_HEX, hex);
}

/* Scene i's narration in the folder, made now unless a good one is there;
 * *seconds its length.  0, or -1 with err. */
static int narrate(const struct finish_request *r, const char *text, const char *name, double *seconds,
		   int *made, char *err, size_t errlen)
{
	char path[4096], why[512];
	size_t samples;

	snprintf(path, sizeof path, "%s/%s", r->workdir, name);
	*made = 0;
	if (narration_probe(path, &samples, why, sizeof why) < 0) {
		unlink(path); /* a half-written one from a killed finish */
		if (r->speak(r->speak_arg, text, path, err, errlen) < 0)
			return -1;
		if (narration_probe(path, &samples, why, sizeof why) < 0) {
			snprintf(err, errlen, "the narration of \"%.60s...\" came back unusable: %s", text, why);
			unlink(path);
			return -1;
		}
		*made = 1;
	}
	*seconds = (double)samples / EXPLAINER_NARRATION_RATE;
	return 0;
}

/* The narration of every scene of the folder's script. */
static int narrate_all(const struct finish_request *r, const struct script *s, double *seconds, char **names,
		       struct finish_outcome *out, char *err, size_t errlen)
{
	for (size_t i = 0; i < s->n; i++) {
		char name[64];
		int made;

		if (r->render->deadline_ms > 0 && hb_monotonic_ms() >= r->render->deadline_ms) {
			snprintf(err, errlen, "the time limit was reached before the narration of scene %zu of %zu",
				 i + 1, s->n);
			return -1;
		}
		say_name(s->v[i].say, name, sizeof name);
		if (!(names[i] = strdup(name))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (narrate(r, s->v[i].say, name, &seconds[i], &made, err, errlen) < 0)
			return -1;
		out->synthesized += (size_t)made;
		if (r->render->cancel && atomic_load(r->render->cancel)) {
			snprintf(err, errlen, "cancelled");
			return -1;
		}
	}
	return 0;
}

/* Narrations no scene speaks any more (an earlier finish's) would be kept
 * in the video's source for nothing. */
static void remove_unspoken(const char *dir, char *const *names, size_t n)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name), i;
		char path[4096];

		if (strncmp(de->d_name, "say-", 4) != 0 || len < 8 || strcmp(de->d_name + len - 4, ".wav") != 0)
			continue;
		for (i = 0; i < n && strcmp(names[i], de->d_name) != 0; i++)
			;
		if (i < n)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
}

/* The next video's companions: both caption files (always, so every
 * revision has them) and the poster. */
static int render_companions(const struct explainer *e, const struct video_entry *entry, char *err, size_t errlen)
{
	struct captions c;
	int rc = -1;

	if (captions_build(e, &c, err, errlen) < 0)
		return -1;
	if (captions_write_vtt(&c, entry->next_vtt, err, errlen) == 0 &&
	    captions_write_srt(&c, entry->next_srt, err, errlen) == 0 &&
	    poster_write(e, entry->next_poster, err, errlen) == 0)
		rc = 0;
	captions_free(&c);
	return rc;
}

/* Renders the folder's finished manifest to the entry's next video, with
 * its captions and poster. */
static int render(const struct finish_request *r, struct finish_outcome *out, char *err, size_t errlen)
{
	struct problems p = { 0 };
	struct explainer e;
	int rc = -1;

	if (explainer_open(r->workdir, &e, &p) == 0) {
		rc = render_explainer(&e, r->entry->next_video, r->render, &out->stats, &p, err, errlen);
		if (rc == 0)
			rc = render_companions(&e, r->entry, err, errlen);
		explainer_free(&e);
	} else {
		problems_first(&p, err, errlen);
	}
	problems_free(&p);
	return rc;
}

int explainer_finish(const struct finish_request *r, struct finish_outcome *out, char *err, size_t errlen)
{
	struct workdir_answer checked = workdir_check(r->workdir), made;
	struct problems p = { 0 };
	struct script s = { 0 };
	double *seconds = NULL;
	char **names = NULL;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (!checked.ok) {
		snprintf(err, errlen, "%s", checked.text);
		workdir_answer_free(&checked);
		return -1;
	}
	workdir_answer_free(&checked);
	if (script_load(r->workdir, &s, &p) < 0) {
		problems_first(&p, err, errlen);
		goto out;
	}
	seconds = calloc(s.n ? s.n : 1, sizeof *seconds);
	names = calloc(s.n ? s.n : 1, sizeof *names);
	if (!seconds || !names) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (narrate_all(r, &s, seconds, names, out, err, errlen) < 0)
		goto out;
	remove_unspoken(r->workdir, names, s.n);
	made = workdir_manifest(r->workdir, seconds, (const char *const *)names, s.n, r->poster, &out->fit);
	if (!made.ok) {
		out->gate_failed = out->fit.n == s.n && s.n > 0 &&
				   (out->fit.total < FIT_TOTAL_MIN_S || out->fit.total > FIT_TOTAL_MAX_S);
		snprintf(err, errlen, "%s", made.text);
		workdir_answer_free(&made);
		goto out;
	}
	workdir_answer_free(&made);
	if (render(r, out, err, errlen) < 0 ||
	    videos_commit_revision(r->entry, r->workdir, r->entry->next_video, out->fit.total, (long)s.n, err,
				   errlen) < 0) {
		char why[256];
		if (videos_abort_render(r->entry, why, sizeof why) < 0)
			log_warn(NULL, "the failed render could not be thrown away cleanly: %s", why);
		goto out;
	}
	rc = 0;
out:
	for (size_t i = 0; names && i < s.n; i++)
		free(names[i]);
	free(names);
	free(seconds);
	script_free(&s);
	problems_free(&p);
	return rc;
}

void finish_outcome_free(struct finish_outcome *out)
{
	workdir_fit_free(&out->fit);
}
