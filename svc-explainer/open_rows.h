/*
 * open_rows - the timeline row of each create_explainer_video call still
 * running, kept as a file so that the next copy of svc-explainer can end
 * it when this one is killed.  The desktop shows a row until a last one
 * comes ("finished" or "failed"), and a killed copy sends none: its row
 * stayed at "rendering 30/1110" for ever.
 *
 * The files are <cache>/explainer-rows/PID-START-N.json: the latest row
 * of the call, written by the process PID that started at START (its
 * start time, so a later process with the same pid is not taken for it).
 * A copy ends only the rows of a writer that is gone, never those of
 * another copy that still runs (during a `replace` two copies run, each
 * with its own calls).
 */
#ifndef EXPLAINER_OPEN_ROWS_H
#define EXPLAINER_OPEN_ROWS_H

#include "paths.h"

#define OPEN_ROWS_DIR "explainer-rows"

struct open_row {
	char path[HB_PATH_MAX]; /* "" until the first row is kept */
};

/* Keeps row (a JSON object, the call's latest row) as r's open row: its
 * file is made on the first keep and replaced after.  Best effort: a row
 * that cannot be kept is logged (under key), and the call goes on. */
void open_row_keep(struct open_row *r, const struct hb_paths *p, const char *row, const char *key);
/* The call's last row is out: its file removed. */
void open_row_end(struct open_row *r);

/* Each open row whose writer is gone: fn(the row as it was kept, arg),
 * then its file removed.  The number of rows ended. */
int open_rows_end_orphans(const struct hb_paths *p, void (*fn)(const char *row, void *arg), void *arg);

#endif
