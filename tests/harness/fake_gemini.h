/*
 * fake_gemini - start and steer tests/fake-gemini/server.mjs, the local
 * stand-in for the Gemini REST API, from a C test or benchmark.
 *
 * The server listens on 127.0.0.1 (an ephemeral port), answers as the
 * control file says and writes one JSON line per request to the record
 * file; see server.mjs for both formats.  It ends with fg_stop, or by
 * itself when the process that started it goes away.
 */
#ifndef HB_FAKE_GEMINI_H
#define HB_FAKE_GEMINI_H

#include <jansson.h>
#include <sys/types.h>

#include "harness.h"

struct fake_gemini {
	pid_t pid;
	int in_fd, out_fd;    /* its stdin (closing it ends it) and stdout */
	int port;
	char record[400];
	char control[400];
	char base_url[64];    /* http://127.0.0.1:PORT */
};

/* Start it with its files in dir (which must exist).  0 or -1. */
int fg_start(struct fake_gemini *g, const char *dir);
/* Replace the control file (atomically) with json text.  0 or -1. */
int fg_control(struct fake_gemini *g, const char *json);
/* The requests that ended so far, in the order they ended, as a JSON
 * array (never NULL). */
json_t *fg_records(const struct fake_gemini *g);
/* The ended requests of one kind ("head", "upload", "video", ...: see
 * server.mjs), in the order they ended (never NULL). */
json_t *fg_records_of(const struct fake_gemini *g, const char *kind);
/* A record's string field ("" when absent) and integer field. */
const char *fg_str(const json_t *rec, const char *key);
long long fg_int(const json_t *rec, const char *key);
/* fg_control, then fg_clear.  0 or -1. */
int fg_reset(struct fake_gemini *g, const char *json);
/* How many requests arrived so far (ended or not). */
size_t fg_started(const struct fake_gemini *g);
/* How many TCP connections it accepted so far (whatever came over them). */
size_t fg_connections(const struct fake_gemini *g);
/* Forget the records so far.  0 or -1. */
int fg_clear(const struct fake_gemini *g);
/* Wait until n requests ended, at most timeout_ms; 0 or -1. */
int fg_wait_records(const struct fake_gemini *g, size_t n, int timeout_ms);
void fg_stop(struct fake_gemini *g);

/* A test's whole set-up: the fake started in dir (a "/tmp/NAME.XXXXXX"
 * template, made here), then a broker with config and env (at most 14
 * entries; "@PORT@" in one becomes the fake's port) plus
 * HB_GEMINI_BASE_URL pointing at the fake, with key saved and
 * GEMINI_API_KEY unset.  0 or -1. */
int fg_fixture_start(struct fake_gemini *g, struct fixture *f, char *dir, const char *config,
		     const char *const *env, const char *key);
/* Both stopped, dir removed; 0 only when the broker ended cleanly. */
int fg_fixture_stop(struct fake_gemini *g, struct fixture *f, const char *dir);

#endif
