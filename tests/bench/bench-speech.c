/*
 * bench-speech - the speech benchmark, one run, three tables.
 *
 *   HB_BUILD=build bench-speech
 *
 * Starts the fake Gemini server (tests/fake-gemini) answering every
 * request after a fixed latency L, and hb-broker with svc-speech pointed
 * at it, both in a temporary folder.  One untimed call first lets the
 * fake build its answers.  For texts of N pieces it times
 * synthesize_speech end to end (client -> broker -> svc-speech -> fake and
 * back, the WAV written; one client connection, as an agent's bridge
 * keeps one) beside the ideal ceil(N/3) x L of three requests at a time,
 * gives the ratio against the 5 % target and, from the fake's own record
 * of each request, how much of the wall time was the fake's own (its time
 * beyond L before its answer was in the socket: the stand-in's cost, not
 * svc-speech's).
 *
 * Then where the excess over the ideal went, along the chain of requests
 * that ended last (each request starts when the one before it on its
 * worker ended): before the first request reached the fake, the fake's
 * own time, the answers on the wire (from the fake's last write call to
 * the last byte taken by svc-speech, which reads and decodes as the bytes
 * come), between one answer's last byte and the next request, and after
 * the last byte (the last parts written, the flush, the rename, the
 * answer through the broker).  The parts add up to the wall time minus
 * L per request of the chain.
 *
 * Then, in this process, the cost per minute of audio of reading an
 * answer (the service's streaming reader, beside the whole-text parse it
 * replaced), of stitching (samples and silences into the WAV file) and of
 * resampling a 16 kHz part.
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

#include "../../svc-speech/answer.h"
#include "../../svc-speech/audio.h"
#include "../../svc-speech/wav.h"
#include "../harness/fake_gemini.h"
#include "../harness/harness.h"
#include "base64.h"
#include "bench_stats.h"
#include "gemini.h"
#include "settings.h"

#define TARGET 1.05
#define MAX_ROUNDS 64
#define MAX_REQS 256
#define PARALLEL 3 /* svc-speech's requests at a time (synth.h) */

static const char config[] = "[service svc-speech]\n"
			     "exec = @BUILD@/svc-speech\n"
			     "concurrency = 4\n"
			     "tools = synthesize_speech\n";

/* One request as the fake recorded it, in its clock (ms). */
struct req {
	long seq;
	double arrived, wrote, finished;
	int sent;
};

/* One timed call and where its time went (ms). */
struct round {
	double wall, fake_median, fake_chain, to_fake, wire, between, tail;
	size_t chain;  /* requests on the chain */
	int traced;    /* the fake's records were complete */
};

static long env_num(const char *name, long dflt)
{
	const char *v = getenv(name);
	long n = v ? strtol(v, NULL, 10) : 0;

	return n > 0 ? n : dflt;
}

static double clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

static int cmp_round(const void *a, const void *b)
{
	double x = ((const struct round *)a)->wall, y = ((const struct round *)b)->wall;

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

static struct req *find(struct req *r, size_t n, long seq)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].seq == seq)
			return &r[i];
	return NULL;
}

/* The requests of the record file ("end" and "sent" lines joined), and
 * the fake's clock origin in Unix ms.  The number of requests, or -1. */
static long read_requests(const struct fake_gemini *g, struct req *out, double *origin)
{
	FILE *f = fopen(g->record, "r");
	char *line = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		json_t *j = json_loads(line, 0, NULL);
		const char *e = json_string_value(json_object_get(j, "event"));
		long seq = (long)json_integer_value(json_object_get(j, "seq"));
		struct req *r = e ? find(out, n, seq) : NULL;

		if (e && !r && n < MAX_REQS && (strcmp(e, "end") == 0 || strcmp(e, "sent") == 0)) {
			r = &out[n++];
			memset(r, 0, sizeof *r);
			r->seq = seq;
		}
		if (r && strcmp(e, "end") == 0) {
			r->arrived = json_number_value(json_object_get(j, "arrivedMs"));
		} else if (r && strcmp(e, "sent") == 0) {
			r->wrote = json_number_value(json_object_get(j, "wroteMs"));
			r->finished = json_number_value(json_object_get(j, "finishedMs"));
			*origin = json_number_value(json_object_get(j, "clockMs"));
			r->sent = 1;
		}
		json_decref(j);
	}
	free(line);
	fclose(f);
	return (long)n;
}

/* The fake writes a "sent" line when the kernel took an answer's last
 * byte, which may be a moment after svc-speech had it all: wait for them
 * (2 s at most; without them the round has no breakdown). */
static long requests_of_call(const struct fake_gemini *g, struct req *r, double *origin, long want)
{
	long n = -1;

	for (int i = 0; i < 400; i++) {
		long sent = 0;

		if ((n = read_requests(g, r, origin)) < 0)
			return -1;
		for (long k = 0; k < n; k++)
			sent += r[k].sent;
		if (n >= want && sent == n)
			return n;
		fx_sleep_ms(5);
	}
	return -n - 1;
}

/* Where one call's time went, from its requests (see the top of the file). */
static void trace(struct round *rd, struct req *r, size_t n, long latency, double start, double end)
{
	double late[MAX_REQS];
	size_t last = 0, j;

	for (size_t i = 0; i < n; i++) {
		late[i] = r[i].wrote - r[i].arrived - (double)latency;
		if (r[i].finished > r[last].finished)
			last = i;
	}
	rd->fake_chain = rd->wire = rd->between = 0;
	rd->chain = 0;
	rd->tail = end - r[last].finished;
	for (j = last;;) {
		size_t prev = n;

		rd->chain++;
		rd->fake_chain += late[j];
		rd->wire += r[j].finished - r[j].wrote;
		/* The request that ended last before this one arrived started it. */
		for (size_t i = 0; i < n; i++)
			if (i != j && r[i].finished <= r[j].arrived && (prev == n || r[i].finished > r[prev].finished))
				prev = i;
		if (prev == n)
			break;
		rd->between += r[j].arrived - r[prev].finished;
		j = prev;
	}
	rd->to_fake = r[j].arrived - start;
	bench_sort(late, n);
	rd->fake_median = late[n / 2];
	rd->traced = 1;
}

/* synthesize_speech on the client's connection, as an agent's bridge
 * calls it (one connection for all its calls): 0 with *ok and *text, or -1. */
static int call_tool(struct hb_client *c, const char *args, int *ok, char **text)
{
	struct hb_env req, reply;
	char err[256];

	*ok = 0;
	*text = NULL;
	hb_env_init(&req);
	hb_env_set_str(&req, "op", "call");
	hb_env_set_str(&req, "tool", "synthesize_speech");
	hb_env_set_str(&req, "json", args);
	if (hb_client_request(c, &req, &reply, err, sizeof err) < 0) {
		*text = strdup(err);
		return -1;
	}
	*ok = hb_env_bool(&reply, "ok", 0);
	*text = strdup(hb_env_str_or(&reply, "text", hb_env_str_or(&reply, "err.msg", "")));
	hb_env_free(&reply);
	return *text ? 0 : -1;
}

/* One call of n pieces, timed and traced. */
static int one_round(struct hb_client *c, struct fake_gemini *g, const char *args, int n, long latency,
		     struct round *rd, double *audio)
{
	struct req *r = calloc(MAX_REQS, sizeof *r);
	double t0, real0, real1, origin = 0;
	char *text = NULL;
	json_t *res;
	long got;
	int ok = 0;

	if (!r || fg_clear(g) < 0) {
		free(r);
		return -1;
	}
	memset(rd, 0, sizeof *rd);
	real0 = clock_ms(CLOCK_REALTIME);
	t0 = now_ms();
	if (call_tool(c, args, &ok, &text) < 0 || !ok) {
		fprintf(stderr, "bench-speech: the call failed: %s\n", text ? text : "?");
		free(text);
		free(r);
		return -1;
	}
	rd->wall = now_ms() - t0;
	real1 = clock_ms(CLOCK_REALTIME);
	res = json_loads(text, 0, NULL);
	*audio = json_number_value(json_object_get(res, "durationSeconds"));
	if (remove(json_string_value(json_object_get(res, "file"))) != 0)
		fprintf(stderr, "bench-speech: cannot remove the file\n");
	json_decref(res);
	free(text);
	got = requests_of_call(g, r, &origin, n);
	if (got > 0)
		/* The fake's times are ms since its start; origin maps them to Unix ms. */
		trace(rd, r, (size_t)got, latency, real0 - origin, real1 - origin);
	else
		fprintf(stderr, "bench-speech: the fake's records of a call are incomplete\n");
	free(r);
	return 0;
}

/* One untimed call of the largest size: the fake builds each distinct
 * answer once (its first time costs it about 100 ms a piece) and every
 * timed round then gets answers already built.  0 or -1. */
static int warm_up(struct hb_client *c, struct fake_gemini *g, const char *list)
{
	int most = 0, ok = 0, rc;
	char *args, *text = NULL;
	json_t *res;

	for (const char *w = list; *w;) {
		char *end;
		long n = strtol(w, &end, 10);
		if (end == w)
			break;
		most = n > most && n <= MAX_REQS ? (int)n : most;
		w = end;
	}
	if (most == 0 || !(args = speech_args(most)))
		return -1;
	rc = call_tool(c, args, &ok, &text) < 0 || !ok ? -1 : 0;
	free(args);
	if (rc == 0) { /* its records are complete before they are cleared */
		struct req *r = calloc(MAX_REQS, sizeof *r);
		double origin;
		/* Without them a late line is cleared by the first round anyway. */
		if (!r || requests_of_call(g, r, &origin, most) < 0)
			fprintf(stderr, "bench-speech: the fake's records of the warm-up are incomplete\n");
		free(r);
	}
	if (rc < 0)
		fprintf(stderr, "bench-speech: the warm-up call failed: %s\n", text ? text : "?");
	res = text ? json_loads(text, 0, NULL) : NULL;
	if (res && remove(json_string_value(json_object_get(res, "file"))) != 0)
		fprintf(stderr, "bench-speech: cannot remove the file\n");
	json_decref(res);
	free(text);
	return rc == 0 && fg_clear(g) == 0 ? 0 : -1;
}

/* The first table: each size, its median round into med. */
static int wall_table(struct hb_client *c, struct fake_gemini *g, long latency, long spc, long rounds, char *list,
		      struct round *med, int *sizes_n, int *count)
{
	printf("synthesize_speech end to end, the fake Gemini answering after %ld ms, %ld samples per character\n"
	       "(a piece of 1,760 characters: %.0f s of audio, %.1f MB of JSON), median of %ld rounds:\n",
	       latency, spc, 1760.0 * (double)spc / SPEECH_RATE, 1760.0 * (double)spc * 2 * 4 / 3 / 1e6, rounds);
	printf("  %6s  %9s  %8s  %6s  %-11s  %9s  %11s  %10s  %7s\n", "pieces", "wall ms", "ideal ms", "ratio",
	       "target 1.05", "excess ms", "fake ms/req", "fake share", "audio s");
	for (char *save = NULL, *w = strtok_r(list, " ", &save); w && *count < 32; w = strtok_r(NULL, " ", &save)) {
		int n = atoi(w);
		char *args = speech_args(n);
		double ideal = (double)((n + PARALLEL - 1) / PARALLEL) * (double)latency, audio = 0, ratio;
		struct round rd[MAX_ROUNDS], *m;

		if (n <= 0 || n > MAX_REQS || !args) {
			free(args);
			return -1;
		}
		for (long r = 0; r < rounds; r++)
			if (one_round(c, g, args, n, latency, &rd[r], &audio) < 0) {
				free(args);
				return -1;
			}
		free(args);
		qsort(rd, (size_t)rounds, sizeof rd[0], cmp_round);
		m = &rd[rounds / 2];
		ratio = m->wall / ideal;
		printf("  %6d  %9.1f  %8.0f  %6.3f  %-11s  %9.1f  %11.2f  %9.2f%%  %7.1f\n", n, m->wall, ideal, ratio,
		       ratio <= TARGET ? "met" : "missed", m->wall - ideal, m->fake_median,
		       100.0 * m->fake_chain / m->wall, audio);
		med[*count] = *m;
		sizes_n[(*count)++] = n;
	}
	return 0;
}

/* The wall times of synthesize_speech for each size; 0 or -1. */
static int bench_wall(struct fixture *f, struct fake_gemini *g, long latency, long spc)
{
	const char *sizes = getenv("HB_BENCH_SPEECH_PIECES");
	long rounds = env_num("HB_BENCH_SPEECH_ROUNDS", 3);
	struct round med[32];
	int sizes_n[32], count = 0, rc;
	struct hb_client c;
	char list[200];

	snprintf(list, sizeof list, "%s", sizes && *sizes ? sizes : "1 2 3 4 6 9 12");
	if (rounds > MAX_ROUNDS || fx_client(f, &c, 120000) < 0)
		return -1;
	rc = warm_up(&c, g, list);
	if (rc == 0)
		rc = wall_table(&c, g, latency, spc, rounds, list, med, sizes_n, &count);
	hb_client_close(&c);
	if (rc < 0)
		return -1;
	printf("\nWhere the excess over the ideal went, the median round, along the chain of requests that\n"
	       "ended last (ms; see tests/bench/bench-speech.c):\n");
	printf("  %6s  %5s  %9s  %11s  %10s  %11s  %9s  %15s\n", "pieces", "chain", "excess", "to the fake",
	       "fake's own", "on the wire", "between", "after last byte");
	for (int i = 0; i < count; i++) {
		const struct round *m = &med[i];
		double ideal = (double)((sizes_n[i] + PARALLEL - 1) / PARALLEL) * (double)latency;

		if (!m->traced) {
			printf("  %6d  (the fake's records were incomplete)\n", sizes_n[i]);
			continue;
		}
		printf("  %6d  %5zu  %9.1f  %11.1f  %10.1f  %11.1f  %9.1f  %15.1f\n", sizes_n[i], m->chain, m->wall - ideal,
		       m->to_fake, m->fake_chain, m->wire, m->between, m->tail);
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

/* Read one answer text as svc-speech does: fed as libcurl hands it over
 * (256 KiB at a time, fetch.c), decoded on the way. */
static int read_streaming(const char *text, struct speech_audio *au, char *err, size_t errlen)
{
	struct speech_answer *a = speech_answer_new(SPEECH_ANSWER_MAX);
	size_t len = strlen(text), step = 256 << 10;
	int rc = 0;

	if (!a)
		return -1;
	for (size_t at = 0; at < len && rc == 0; at += step)
		rc = speech_answer_feed(a, text + at, len - at < step ? len - at : step);
	if (speech_answer_end(a, au, err, errlen) != SPEECH_AUDIO_OK)
		rc = -1;
	speech_answer_free(a);
	return rc;
}

/* The way it was read before, for comparison: the whole text kept, then
 * parsed with the base64 cut out (gemini/gemini_answer.c), then decoded. */
static int read_whole(const char *text, struct speech_audio *au)
{
	struct hb_gemini_reply reply;
	char *copy = strdup(text); /* the client read into a buffer it then owned */
	const json_t *part;
	const char *data;
	unsigned char *bytes = NULL;
	size_t dlen, len;

	memset(&reply, 0, sizeof reply);
	memset(au, 0, sizeof *au);
	if (!copy || hb_gemini_parse_answer(&reply, copy, strlen(copy)) < 0)
		goto fail;
	part = json_array_get(json_object_get(json_object_get(json_array_get(json_object_get(reply.body, "candidates"),
									     0), "content"), "parts"), 0);
	data = hb_gemini_string(&reply, json_object_get(json_object_get(part, "inlineData"), "data"), &dlen);
	if (!data || !(bytes = hb_base64_decode(data, dlen, &len)) || !(au->samples = malloc(len / 2 * 2 + 2)))
		goto fail;
	for (size_t i = 0; i < len / 2; i++)
		au->samples[i] = (int16_t)(uint16_t)(bytes[2 * i] | (unsigned)bytes[2 * i + 1] << 8);
	au->n = len / 2;
	free(bytes);
	hb_gemini_reply_free(&reply);
	return 0;
fail:
	free(bytes);
	hb_gemini_reply_free(&reply);
	return -1;
}

/* The costs of reading answers and of stitching, per minute of audio. */
static int bench_stitch(const char *dir)
{
	const long part_s = 120, parts = 5; /* ten minutes in two-minute parts */
	char *ans = answer_of(part_s, SPEECH_RATE), *slow = answer_of(part_s, 16000);
	struct speech_audio au[5];
	struct speech_wav w;
	char err[512];
	double t0, read_ms, whole_ms, write_ms, resample_ms, minutes = (double)(part_s * parts) / 60.0;

	if (!ans || !slow)
		return -1;
	t0 = now_ms();
	for (long i = 0; i < parts; i++) {
		if (read_whole(ans, &au[i]) < 0)
			return fprintf(stderr, "bench-speech: the whole-text reader failed\n"), -1;
		free(au[i].samples);
	}
	whole_ms = now_ms() - t0;
	t0 = now_ms();
	for (long i = 0; i < parts; i++)
		if (read_streaming(ans, &au[i], err, sizeof err) < 0)
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
	if (read_streaming(slow, &au[0], err, sizeof err) < 0)
		return fprintf(stderr, "bench-speech: %s\n", err), -1;
	resample_ms = now_ms() - t0;
	free(au[0].samples);
	free(ans);
	free(slow);
	printf("\nPer minute of audio (%.0f minutes in %ld parts of %ld s, in-process):\n", minutes, parts, part_s);
	printf("  read the answers as they arrive (JSON -> base64 -> samples)     %7.2f ms\n", read_ms / minutes);
	printf("  the same, the whole text kept and parsed after the last byte    %7.2f ms\n", whole_ms / minutes);
	printf("  stitch (samples + 180 ms silences -> WAV, fsync)                %7.2f ms\n", write_ms / minutes);
	printf("  a 16 kHz part: read and resample to 24 kHz                      %7.2f ms\n",
	       resample_ms / (double)(part_s / 60));
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
	rc = bench_wall(&f, &g, latency, spc);
	/* The fake's memory (its answers) is not needed for the in-process part. */
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
