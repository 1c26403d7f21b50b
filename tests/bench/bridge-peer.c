/*
 * bridge-peer - the agent's side of a bridge, for the benchmark: what each
 * bridge adds to one tool call, beside the broker round trip alone.
 *
 *	hb-codex-bridge  -- bridge-peer codex N OUT
 *	hb-claude-bridge ... -- bridge-peer claude N OUT
 *
 * Run as the bridge's child, it plays `codex app-server` (writes
 * item/tool/call lines, reads the answers) or the Claude agent host
 * (answers `open`, writes toolCall events, reads toolResult requests and
 * answers them).  Alternately it sends the same tool call straight to the
 * broker (codex.call / claude.call on its own connection), so both paths
 * are measured in one run.  Results go to OUT: "path p50 p99" in µs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "envelope.h"

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static void report(FILE *out, const char *path, long long *t, int n)
{
	qsort(t, (size_t)n, sizeof *t, cmp);
	fprintf(out, "%s %lld %lld\n", path, t[n / 2], t[(n * 99) / 100]);
}

/* One request on a front client; 0 ok. */
static int direct(struct hb_client *c, const char *op, const char *const *kv)
{
	struct hb_env req, reply;
	char err[256];

	hb_env_init(&req);
	hb_env_set_str(&req, "op", op);
	for (; kv[0]; kv += 2)
		hb_env_set_str(&req, kv[0], kv[1]);
	if (hb_client_request(c, &req, &reply, err, sizeof err) < 0) {
		fprintf(stderr, "bridge-peer: %s: %s\n", op, err);
		return -1;
	}
	hb_env_free(&reply);
	return 0;
}

static int read_line(char *buf, size_t len)
{
	if (!fgets(buf, (int)len, stdin))
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int main(int argc, char **argv)
{
	static char line[1 << 16];
	struct hb_client c;
	char err[256], frame[512];
	int n, codex;
	long long *via, *alone;
	FILE *out;

	if (argc != 4 || (strcmp(argv[1], "codex") != 0 && strcmp(argv[1], "claude") != 0))
		return 100;
	codex = strcmp(argv[1], "codex") == 0;
	n = atoi(argv[2]);
	if (n < 10 || !(via = calloc((size_t)n, sizeof *via)) || !(alone = calloc((size_t)n, sizeof *alone)) ||
	    !(out = fopen(argv[3], "w")) || hb_client_open(&c, NULL, 10000, err, sizeof err) < 0)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (codex) {
		/* Both paths resolve the thread through its link: make it. */
		const char *link_kv[] = { "threadId", "bench-thread", "sessionId",
					  getenv("BENCH_SESSION") ? getenv("BENCH_SESSION") : "", NULL };
		if (direct(&c, "thread.link", link_kv) < 0)
			return 1;
		for (int i = 0; i < 2 * n; i++) {
			long long t0;
			snprintf(frame, sizeof frame, "{\"method\":\"item/tool/call\",\"id\":%d,\"params\":{\"threadId\":"
				 "\"bench-thread\",\"turnId\":\"t\",\"callId\":\"c%d\",\"namespace\":\"hbcode\","
				 "\"tool\":\"whoami\",\"arguments\":{\"x\":1}}}", i, i);
			t0 = now_us();
			if (i % 2 == 0) {
				printf("%s\n", frame);
				if (read_line(line, sizeof line) < 0)
					return 1;
				via[i / 2] = now_us() - t0;
			} else {
				const char *kv[] = { "json", frame, NULL };
				if (direct(&c, "codex.call", kv) < 0)
					return 1;
				alone[i / 2] = now_us() - t0;
			}
		}
	} else {
		/* The bridge opens first: answer it like a host.  The direct path
		 * needs a Claude session of its own: the bridge's run is the
		 * active Claude run of BENCH_SESSION, and a session has one. */
		const char *direct_session = getenv("BENCH_DIRECT_SESSION") ? getenv("BENCH_DIRECT_SESSION") : "s";
		const char *open_kv[] = { "run", "bench-direct", "session", direct_session, "project", "/tmp",
					  "agent", "claude", "access", "full-auto", NULL };
		char *id;
		if (read_line(line, sizeof line) < 0 || !(id = strstr(line, "\"id\":\"")))
			return 1;
		id += 6;
		id[strcspn(id, "\"")] = '\0';
		printf("{\"id\":\"%s\",\"result\":{\"sessionId\":\"x\",\"resumed\":false,\"inheritedMarkers\":[]}}\n", id);
		if (direct(&c, "run.open", open_kv) < 0)
			return 1;
		for (int i = 0; i < 2 * n; i++) {
			long long t0;
			snprintf(frame, sizeof frame, "{\"event\":\"toolCall\",\"requestId\":\"tool-%d\",\"tool\":\"whoami\","
				 "\"arguments\":{\"x\":1},\"toolUseId\":\"tu-%d\"}", i, i);
			t0 = now_us();
			if (i % 2 == 0) {
				printf("%s\n", frame);
				if (read_line(line, sizeof line) < 0 || !(id = strstr(line, "\"id\":\"")))
					return 1;
				via[i / 2] = now_us() - t0;
				id += 6;
				id[strcspn(id, "\"")] = '\0';
				printf("{\"id\":\"%s\",\"result\":{\"delivered\":true}}\n", id);
			} else {
				const char *kv[] = { "json", frame, NULL };
				if (direct(&c, "claude.call", kv) < 0)
					return 1;
				alone[i / 2] = now_us() - t0;
			}
		}
	}
	report(out, "bridge", via, n);
	report(out, "broker", alone, n);
	fclose(out);
	hb_client_close(&c);
	free(via);
	free(alone);
	return 0;
}
