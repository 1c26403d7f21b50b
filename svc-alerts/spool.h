/*
 * spool - svc-alerts' durable queue of alerts, one SQLite file
 * (<data>/alerts/spool.db).
 *
 * An alert that got a receipt is never lost: it is in the spool before the
 * receipt goes out, it leaves the spool only when the relay acknowledges
 * it, and the spool keeps the order of the adds (a sequence number that is
 * never reused), so after a dropped link or a killed svc-alerts or broker
 * every unacknowledged alert is sent again, in order, with the same id.
 */
#ifndef ALERTS_SPOOL_H
#define ALERTS_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "paths.h"
#include "relay_proto.h"

#define SPOOL_DIR_NAME "alerts"
#define SPOOL_FILE_NAME "spool.db"
/* "alert-" and a UUID (36 characters), with its NUL. */
#define SPOOL_ID_SIZE 43

struct spool;

/* Open (creating it and its schema) the spool file at path; the folder must exist.
 * Each thread opens its own handle (SQLITE_OPEN_NOMUTEX). 0 with *out, or -1 with err:
 * a file that is no SQLite database, or a spool of a newer svc-alerts, gets a
 * sentence naming the file and what to do. */
int spool_open(const char *path, struct spool **out, char *err, size_t errlen);
void spool_close(struct spool *sp); /* NULL fine */
/* The spool file's path under the data folder: <data>/alerts/spool.db, making
 * the data folder private and <data>/alerts (0700) if missing. 0, or -1 with err. */
int spool_path(const struct hb_paths *p, char *out, size_t outlen, char *err, size_t errlen);
/* Add ev (checked with hb_relay_check_event first) at the end; durable when it returns 0.
 * An id already in the spool is refused (-1 with err). */
int spool_add(struct spool *sp, const struct hb_relay_event *ev, char *err, size_t errlen);
/* The first event in spool order whose sequence number is greater than after (0: from the start):
 * 1 with *ev and *seq filled, 0 when none, -1 with err.  A row that no
 * longer passes hb_relay_check_event (the file was edited or damaged) is
 * moved to the table spool_aside of the same file, with its reason, and
 * said in one log line; the next row is read in its place, so no later
 * pass reads it again.  Should that move fail, it is -1 with *seq set to
 * the row's number so the caller can log it and go past. */
int spool_next(struct spool *sp, int64_t after, struct hb_relay_event *ev, int64_t *seq, char *err, size_t errlen);
/* Remove the event with this id (acknowledged): 1 removed, 0 it was not there (a repeated ack), -1 error. */
int spool_remove(struct spool *sp, const char *id, char *err, size_t errlen);
/* How many events wait: 0 with *n, -1 with err. */
int spool_count(struct spool *sp, long *n, char *err, size_t errlen);
/* A new alert id, "alert-" followed by a UUID v7 (48 bits of Unix time in
 * milliseconds, then random bits from hb_random_bytes): 0, or -1 when outlen
 * is below SPOOL_ID_SIZE or the system gives no randomness. */
int spool_new_id(char *out, size_t outlen);

#endif
