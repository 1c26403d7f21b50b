/*
 * scale_fill - an appdata.db of N realistic sessions for the scale
 * benchmark (tests/bench/bench-scale.c), made through appdata/'s own open
 * and schema code and filled by one bulk insert in one transaction.
 *
 * The rows, from a fixed seed (the same file every run): SCALE_PROJECTS
 * projects, a few large and many small; 55 % Codex and 45 % Claude
 * sessions; access levels mostly full-auto; created over two years and
 * updated up to 30 days later; the older the more often archived (about a
 * third in all); 85 % of Codex sessions with one to three thread links
 * (some with a sub-agent thread under one), 85 % of Claude sessions with
 * their conversation id; each project's newest open session active.
 */
#ifndef BENCH_SCALE_FILL_H
#define BENCH_SCALE_FILL_H

#include <stddef.h>

#include "../../svc-sessions/session_id.h"

#define SCALE_PROJECTS 40

struct scale_db {
	long n;
	char (*ids)[SESSION_ID_LEN + 1]; /* every session id, in insertion order */
	long long file_bytes;            /* appdata.db after a checkpoint */
};

/* Create path (it must not hold sessions yet) with n sessions; 0, or -1
 * with err.  The ids stay in db until scale_db_free. */
int scale_fill(const char *path, long n, struct scale_db *db, char *err, size_t errlen);
/* The ids (and file size) of what scale_fill(path, n) made, without
 * making it again: for a process that had another fill the file.  0 or -1
 * (out of memory). */
int scale_db_ids(const char *path, long n, struct scale_db *db);
/* The id of the i-th session. */
void scale_id(long i, char out[SESSION_ID_LEN + 1]);
void scale_db_free(struct scale_db *db);

#endif
