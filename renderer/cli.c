/*
 * hb-explainer - the explainer renderer from the command line, for the
 * explainer worker and for a person:
 *
 *	hb-explainer check DIR
 *	hb-explainer preview DIR SCENE --at start|end|SECONDS -o FILE.png
 *	hb-explainer sheet DIR -o FILE.png
 *	hb-explainer render DIR -o FILE.mp4 [--threads N] [--preset P] [--crf N]
 *	                    [--captions file|burn] [--poster FILE.png]
 *
 * A render writes the captions (captions.h) beside the video, FILE.vtt
 * and FILE.srt, when the manifest's scenes have captions; "--captions
 * burn" also draws them into the picture.  --poster writes the poster
 * frame (preview.h).
 * Exit status: 0 done, 1 the folder has problems or the work failed
 * (every problem on stderr as FILE:LINE: sentence), 2 a usage error.
 * Every file is written beside its target and renamed only when complete.
 */
#include <libxml/parser.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "canvas.h"
#include "captions.h"
#include "fonts.h"
#include "folder.h"
#include "pipeline.h"
#include "preview.h"
#include "problems.h"

#define USAGE                                                                                      \
	"usage: hb-explainer check DIR\n"                                                          \
	"       hb-explainer preview DIR SCENE --at start|end|SECONDS -o FILE.png\n"              \
	"       hb-explainer sheet DIR -o FILE.png\n"                                              \
	"       hb-explainer render DIR -o FILE.mp4 [--threads N] [--preset P] [--crf N]\n"             \
	"                           [--captions file|burn] [--poster FILE.png]\n"

struct cli_options {
	const char *out, *at, *preset, *poster;
	int threads, crf;
	int burn_captions;
	const char *args[2];
	int nargs;
};

static int usage(const char *why)
{
	if (why)
		fprintf(stderr, "hb-explainer: %s\n", why);
	fputs(USAGE, stderr);
	return 2;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

/* The options after the command; -1 after printing the usage. */
static int parse_options(int argc, char **argv, struct cli_options *o)
{
	memset(o, 0, sizeof *o);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--captions") == 0 || strcmp(a, "--poster") == 0) {
			if (!v || (strcmp(a, "--captions") == 0 && strcmp(v, "file") != 0 && strcmp(v, "burn") != 0)) {
				fprintf(stderr, "hb-explainer: %s needs %s\n", a,
					strcmp(a, "--poster") == 0 ? "a file name" : "file or burn");
				return -1;
			}
			i++;
			if (strcmp(a, "--poster") == 0)
				o->poster = v;
			else
				o->burn_captions = strcmp(v, "burn") == 0;
		} else if (strcmp(a, "-o") == 0 || strcmp(a, "--at") == 0 || strcmp(a, "--preset") == 0 ||
			   strcmp(a, "--threads") == 0 || strcmp(a, "--crf") == 0) {
			if (!v) {
				fprintf(stderr, "hb-explainer: %s needs a value\n", a);
				return -1;
			}
			i++;
			if (strcmp(a, "-o") == 0)
				o->out = v;
			else if (strcmp(a, "--at") == 0)
				o->at = v;
			else if (strcmp(a, "--preset") == 0)
				o->preset = v;
			else if (strcmp(a, "--threads") == 0 ? parse_int(v, 1, 32, &o->threads) < 0
							       : parse_int(v, 1, 51, &o->crf) < 0) {
				fprintf(stderr, "hb-explainer: %s %s: not a number in range (threads 1..32, crf 1..51)\n",
					a, v);
				return -1;
			}
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "hb-explainer: unknown option %s\n", a);
			return -1;
		} else if (o->nargs < 2) {
			o->args[o->nargs++] = a;
		} else {
			fprintf(stderr, "hb-explainer: one argument too many: %s\n", a);
			return -1;
		}
	}
	return 0;
}

/* Opens the folder; prints its problems. */
static int open_folder(const char *dir, struct explainer *e)
{
	struct problems p = { 0 };
	int rc = explainer_open(dir, e, &p);

	problems_print(&p, stderr);
	problems_free(&p);
	return rc;
}

static int setup_fonts(void)
{
	char err[512];

	if (fonts_setup(err, sizeof err) < 0) {
		fprintf(stderr, "hb-explainer: %s\n", err);
		return -1;
	}
	return 0;
}

static int cmd_check(const struct cli_options *o)
{
	struct explainer e;
	struct problems p = { 0 };
	struct scene **scenes;

	if (o->nargs != 1 || o->out || o->at || o->poster || o->burn_captions)
		return usage("check takes DIR only");
	if (open_folder(o->args[0], &e) < 0)
		return 1;
	/* The scenes' characters are checked against the fonts. */
	if (setup_fonts() < 0) {
		explainer_free(&e);
		return 1;
	}
	scenes = scenes_load(&e, &p);
	problems_print(&p, stderr);
	if (scenes)
		printf("%s: %s %dx%d at %d fps, %zu scenes, %ld frames, %.2f s: ok\n", o->args[0],
		       canvas_format_name(e.width, e.height), e.width, e.height, e.fps, e.n, e.total_frames,
		       (double)e.total_frames / e.fps);
	scenes_free(scenes, e.n);
	problems_free(&p);
	explainer_free(&e);
	return scenes ? 0 : 1;
}

static int cmd_preview(const struct cli_options *o)
{
	struct problems missing = { 0 };
	struct explainer e;
	char err[1024];
	int rc;

	if (o->nargs != 2 || !o->out || !o->at || o->poster || o->burn_captions)
		return usage("preview takes DIR SCENE --at start|end|SECONDS -o FILE.png");
	if (open_folder(o->args[0], &e) < 0)
		return 1;
	rc = setup_fonts() < 0 ? 1 : preview_write(&e, o->args[1], o->at, o->out, &missing, err, sizeof err) < 0;
	if (rc)
		fprintf(stderr, "%s\n", err);
	/* The frame is written, boxes and all; check and render refuse it. */
	else if (missing.n > 0)
		fprintf(stderr, "hb-explainer: warning: the frame is written, but check and render refuse these "
			"characters:\n");
	problems_print(&missing, stderr);
	problems_free(&missing);
	explainer_free(&e);
	return rc;
}

static int cmd_sheet(const struct cli_options *o)
{
	struct explainer e;
	char err[1024];
	int rc;

	if (o->nargs != 1 || !o->out || o->at || o->poster || o->burn_captions)
		return usage("sheet takes DIR -o FILE.png");
	if (open_folder(o->args[0], &e) < 0)
		return 1;
	rc = setup_fonts() < 0 ? 1 : sheet_write(&e, o->out, err, sizeof err) < 0 ? 1 : 0;
	if (rc)
		fprintf(stderr, "%s\n", err);
	explainer_free(&e);
	return rc;
}

static atomic_int cancel_render;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&cancel_render, 1);
}

struct progress_state {
	int tty;
	int last_tenth;
};

static void show_progress(void *arg, const char *phase, long done, long total)
{
	struct progress_state *ps = arg;

	if (strcmp(phase, "rendering") != 0 || total <= 0) {
		fprintf(stderr, "%s%s\n", ps->tty ? "\r" : "", phase);
		return;
	}
	if (ps->tty) {
		fprintf(stderr, "\rrendering %ld/%ld frames (%ld%%)", done, total, done * 100 / total);
		if (done == total)
			fputc('\n', stderr);
	} else if ((int)(done * 10 / total) > ps->last_tenth) {
		ps->last_tenth = (int)(done * 10 / total);
		fprintf(stderr, "rendering %ld/%ld frames\n", done, total);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The captions beside the rendered video and the poster, when asked. */
static int write_extras(const struct cli_options *o, const struct explainer *e)
{
	char vtt[4096], srt[4096], err[1024];
	int written;

	if (captions_write_beside(e, o->out, vtt, srt, sizeof vtt, &written, err, sizeof err) < 0 ||
	    (o->poster && poster_write(e, o->poster, err, sizeof err) < 0)) {
		fprintf(stderr, "hb-explainer: %s (the video %s is written)\n", err, o->out);
		return -1;
	}
	if (written)
		printf("%s, %s: captions\n", vtt, srt);
	if (o->poster)
		printf("%s: poster\n", o->poster);
	return 0;
}

static int cmd_render(const struct cli_options *o)
{
	struct progress_state ps = { isatty(2), 0 };
	struct render_options ro = { .threads = o->threads, .preset = o->preset, .crf = o->crf,
				     .progress = show_progress, .progress_arg = &ps, .cancel = &cancel_render,
				     .burn_captions = o->burn_captions };
	struct sigaction sa;
	struct render_stats st;
	struct problems p = { 0 };
	struct explainer e;
	char err[1024];
	double start;
	int rc;

	if (o->nargs != 1 || !o->out || o->at)
		return usage("render takes DIR -o FILE.mp4");
	if (open_folder(o->args[0], &e) < 0)
		return 1;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	start = now_s();
	rc = setup_fonts() < 0 ? -1 : render_explainer(&e, o->out, &ro, &st, &p, err, sizeof err);
	if (rc == 0) {
		double took = now_s() - start, length = (double)st.frames / e.fps;
		printf("%s: %ld frames (%.2f s), %ld drawn, %ld reused, in %.2f s (%.2fx real time)\n", o->out,
		       st.frames, length, st.drawn, st.frames - st.drawn, took, took > 0 ? length / took : 0);
		rc = write_extras(o, &e);
	} else if (p.n) {
		problems_print(&p, stderr);
	} else {
		fprintf(stderr, "hb-explainer: %s: %s; nothing was written to %s\n", o->args[0], err, o->out);
	}
	problems_free(&p);
	explainer_free(&e);
	return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct cli_options o;
	int rc;

	if (argc < 2)
		return usage(NULL);
	if (parse_options(argc - 2, argv + 2, &o) < 0)
		return usage(NULL);
	xmlInitParser();
	if (strcmp(argv[1], "check") == 0)
		rc = cmd_check(&o);
	else if (strcmp(argv[1], "preview") == 0)
		rc = cmd_preview(&o);
	else if (strcmp(argv[1], "sheet") == 0)
		rc = cmd_sheet(&o);
	else if (strcmp(argv[1], "render") == 0)
		rc = cmd_render(&o);
	else
		rc = usage("unknown command");
	xmlCleanupParser();
	return rc;
}
