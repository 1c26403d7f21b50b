/*
 * bench-speech - the speech benchmark, one run, one table.
 *
 *   HB_BUILD=build bench-speech
 *
 * Starts the fake Gemini server (tests/fake-gemini) answering every
 * request after a fixed latency L, and hb-broker with svc-speech pointed
 * at it, both in a temporary folder.  For texts of N pieces it times
 * synthesize_speech end to end (client -> broker -> svc-speech -> fake
 * and back, the WAV written) beside the ideal ceil(N/3) x L of three
 * requests at a time, and gives the ratio.  Then, in this process, the
 * cost per minute of audio of reading an answer (JSON, base64, samples),
 * of stitching (samples and silences into the WAV file) and of resampling
 * a 16 kHz part.
 *
 * Sizes from the environment (defaults in brackets): HB_BENCH_SPEECH_LATENCY_MS
 * [1000], HB_BENCH_SPEECH_PIECES ["1 2 3 4 6 9 12"], HB_BENCH_SPEECH_ROUNDS [3,
 * the median is shown], HB_BENCH_SPEECH_SAMPLES_PER_CHAR [1600: 24,000
 * samples a second at 15 characters a second, about two minutes of audio
 * for a full piece of 1,760 characters, so the answers are as large as
 * real ones].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../svc-speech/audio.h"
#include "../../svc-speech/wav.h"
#include "../harness/fake_gemini.h"
#include "../harness/harness.h"
#include "settings.h"

static const char config[] = "[service svc-speech]\n"
			     "exec = @BUILD@/svc-speech\n"
			     "concurrency = 4\n"
			     "tools = synthesize_speech\n";

static long env_num(const char *name, long dflt)
{
	const char *v = getenv(name);
	long n = v ? strtol(v, NULL, 10) : 0;

	return n > 0 ? n : dflt;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* {"text": N pieces of 16 sentences of 110 characters} as JSON text. */
static char *speech_args(int pieces)
{
	size_t len = (size_t)pieces * 16 * 110;
	char *t = malloc(len + 1), *out;
	json_t *a;

	if (!t)
		return NULL;
	for (int p = 0; p < pieces; p++)
		for (int s = 0; s < 16; s++) {
			char *at = t + ((size_t)p * 16 + (size_t)s) * 110;
			int n = snprintf(at, 111, "Piece %d sentence %d", p, s);
			memset(at + n, 'a', (size_t)(108 - n));
			memcpy(at + 108, ". ", 2);
		}
	t[len] = '\0';
	a = json_pack("{s:s}", "text", t);
	out = a ? json_dumps(a, JSON_COMPACT) : NULL;
	json_decref(a);
	free(t);
	return out;
}

/* The fake's own time per request beyond the latency (median, ms): the
 * part of the excess over the ideal that is the stand-in's, not ours. */
static double fake_overhead(struct fake_gemini *g, long latency)
{
	json_t *recs = fg_records(g), *r;
	double v[256];
	size_t i, n = 0;

	json_array_foreach(recs, i, r)
		if (n < 256)
			v[n++] = json_number_value(json_object_get(r, "doneMs")) -
				 json_number_value(json_object_get(r, "arrivedMs")) - (double)latency;
	json_decref(recs);
	if (fg_clear(g) < 0 || n == 0)
		return 0;
	qsort(v, n, sizeof v[0], cmp_double);
	return v[n / 2];
}

/* The wall times of synthesize_speech for each size; 0 or -1. */
static int bench_wall(struct fixture *f, struct fake_gemini *g, long latency)
{
	const char *sizes = getenv("HB_BENCH_SPEECH_PIECES");
	long rounds = env_num("HB_BENCH_SPEECH_ROUNDS", 3);
	char list[200];

	snprintf(list, sizeof list, "%s", sizes && *sizes ? sizes : "1 2 3 4 6 9 12");
	printf("synthesize_speech end to end, fake Gemini latency %ld ms, median of %ld rounds:\n", latency, rounds);
	printf("  %6s  %10s  %10s  %7s  %9s  %s\n", "pieces", "wall ms", "ideal ms", "ratio", "audio s",
	       "fake's own ms/request");
	for (char *save = NULL, *w = strtok_r(list, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		int n = atoi(w), ok = 0;
		char *args = speech_args(n), *text = NULL;
		double t[64], ideal = (double)((n + 2) / 3) * (double)latency, audio = 0;

		if (n <= 0 || !args || rounds > 64)
			return -1;
		for (long r = 0; r < rounds; r++) {
			double t0 = now_ms();
			json_t *res;

			if (fx_call(f, "synthesize_speech", args, &ok, &text) < 0 || !ok) {
				fprintf(stderr, "bench-speech: the call failed: %s\n", text ? text : "?");
				return -1;
			}
			t[r] = now_ms() - t0;
			res = json_loads(text, 0, NULL);
			audio = json_number_value(json_object_get(res, "durationSeconds"));
			if (remove(json_string_value(json_object_get(res, "file"))) != 0)
				fprintf(stderr, "bench-speech: cannot remove the file\n");
			json_decref(res);
			free(text);
		}
		qsort(t, (size_t)rounds, sizeof t[0], cmp_double);
		printf("  %6d  %10.1f  %10.0f  %7.3f  %9.1f  %6.1f\n", n, t[rounds / 2], ideal, t[rounds / 2] / ideal, audio,
		       fake_overhead(g, latency));
		free(args);
	}
	return 0;
}

/* The text of a TTS answer holding `seconds` of audio at rate, as Gemini
 * sends it (the samples themselves do not matter here). */
static char *answer_of(long seconds, long rate)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t bytes = (size_t)(seconds * rate * 2), o = 0;
	char *b64 = malloc(bytes / 3 * 4 + 8), mime[64], *text;
	json_t *j;

	if (!b64)
		return NULL;
	for (size_t i = 0; i + 3 <= bytes; i += 3) {
		unsigned v = (unsigned)(i * 7919u);
		b64[o++] = a[v & 63];
		b64[o++] = a[(v >> 6) & 63];
		b64[o++] = a[(v >> 12) & 63];
		b64[o++] = a[(v >> 18) & 63];
	}
	b64[o] = '\0';
	snprintf(mime, sizeof mime, "audio/L16;codec=pcm;rate=%ld", rate);
	j = json_pack("{s:[{s:{s:s, s:[{s:{s:s, s:s}}]}, s:s}]}", "candidates", "content", "role", "model", "parts",
		      "inlineData", "mimeType", mime, "data", b64, "finishReason", "STOP");
	free(b64);
	text = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	return text;
}

/* Parse and decode one answer text, as the client and svc-speech do. */
static int read_answer(const char *text, struct speech_audio *au, char *err, size_t errlen)
{
	struct hb_gemini_reply reply;
	char *copy = strdup(text); /* the client reads into a buffer it then owns */
	int rc;

	memset(&reply, 0, sizeof reply);
	rc = copy && hb_gemini_parse_answer(&reply, copy, strlen(copy)) == 0 &&
			     speech_audio_from_answer(&reply, au, err, errlen) == SPEECH_AUDIO_OK
		     ? 0
		     : -1;
	hb_gemini_reply_free(&reply);
	return rc;
}

/* The costs of reading answers and of stitching, per minute of audio. */
static int bench_stitch(const char *dir)
{
	const long part_s = 120, parts = 5; /* ten minutes in two-minute parts */
	char *ans = answer_of(part_s, SPEECH_RATE), *slow = answer_of(part_s, 16000);
	struct speech_audio au[5];
	struct speech_wav w;
	char err[512];
	double t0, read_ms, write_ms, resample_ms, minutes = (double)(part_s * parts) / 60.0;

	if (!ans || !slow)
		return -1;
	t0 = now_ms();
	for (long i = 0; i < parts; i++)
		if (read_answer(ans, &au[i], err, sizeof err) < 0)
			return fprintf(stderr, "bench-speech: %s\n", err), -1;
	read_ms = now_ms() - t0;
	t0 = now_ms();
	if (speech_wav_open(&w, dir, "bench", SPEECH_RATE, err, sizeof err) < 0)
		return fprintf(stderr, "bench-speech: %s\n", err), -1;
	for (long i = 0; i < parts; i++)
		if ((i > 0 && speech_wav_silence(&w, SPEECH_RATE * 180 / 1000, err, sizeof err) < 0) ||
		    speech_wav_append(&w, au[i].samples, au[i].n, err, sizeof err) < 0)
			return fprintf(stderr, "bench-speech: %s\n", err), -1;
	if (speech_wav_finish(&w, err, sizeof err) < 0)
		return fprintf(stderr, "bench-speech: %s\n", err), -1;
	write_ms = now_ms() - t0;
	if (remove(w.path) != 0)
		fprintf(stderr, "bench-speech: cannot remove %s\n", w.path);
	for (long i = 0; i < parts; i++)
		free(au[i].samples);
	t0 = now_ms();
	if (read_answer(slow, &au[0], err, sizeof err) < 0)
		return fprintf(stderr, "bench-speech: %s\n", err), -1;
	resample_ms = now_ms() - t0;
	free(au[0].samples);
	free(ans);
	free(slow);
	printf("\nPer minute of audio (%.0f minutes in %ld parts of %ld s, in-process):\n", minutes, parts, part_s);
	printf("  read the answers (JSON -> base64 -> samples)   %7.2f ms\n", read_ms / minutes);
	printf("  stitch (samples + 180 ms silences -> WAV, fsync) %7.2f ms\n", write_ms / minutes);
	printf("  a 16 kHz part: read and resample to 24 kHz     %7.2f ms\n", resample_ms / (double)(part_s / 60));
	return 0;
}

int main(void)
{
	long latency = env_num("HB_BENCH_SPEECH_LATENCY_MS", 1000);
	long spc = env_num("HB_BENCH_SPEECH_SAMPLES_PER_CHAR", 1600);
	char gdir[64] = "/tmp/hbbenchgem.XXXXXX", control[160], url[120], err[256], cache[HB_PATH_MAX + 32];
	const char *env[] = { url, NULL };
	struct fake_gemini g;
	struct fixture f;
	struct hb_paths p;
	int rc;

	if (!mkdtemp(gdir) || fg_start(&g, gdir) < 0)
		return 1;
	snprintf(control, sizeof control, "{\"delayMs\":%ld,\"samplesPerChar\":%ld}", latency, spc);
	snprintf(url, sizeof url, "HB_GEMINI_BASE_URL=%s", g.base_url);
	unsetenv("GEMINI_API_KEY");
	if (fg_control(&g, control) < 0 || fx_start(&f, config, env) < 0 || hb_paths_resolve(&p, err, sizeof err) < 0 ||
	    hb_settings_save_gemini_key(&p, "AIzaBenchmarkKey", err, sizeof err) < 0) {
		fg_stop(&g);
		return 1;
	}
	rc = bench_wall(&f, &g, latency);
	/* Keep the records from growing over the stitching run. */
	fg_stop(&g);
	snprintf(cache, sizeof cache, "%s/bench-speech", p.cache);
	if (rc == 0)
		rc = bench_stitch(cache);
	fx_stop(&f, NULL);
	snprintf(err, sizeof err, "rm -rf '%s'", gdir);
	if (system(err) != 0)
		fprintf(stderr, "bench-speech: cannot remove %s\n", gdir);
	return rc == 0 ? 0 : 1;
}
