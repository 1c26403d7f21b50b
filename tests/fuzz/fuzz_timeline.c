/*
 * fuzz_timeline - the shared timeline's projectors (timeline/) on
 * arbitrary frames: the input is lines, each parsed as a frame and fed to
 * one Claude projector, one Codex projector and a Codex conversation's
 * threads (their state lives across the lines, as a run's does), every row
 * placed in a stream and rendered plain and in colour.
 *
 * Every row must keep the model's bounds whatever a frame holds: an id
 * within TL_ID_MAX, at most TL_ROWS_MAX rows a frame, no text past its
 * cap and mark, and the open-row tables within TL_OPEN_MAX; and be a row
 * the broker's timeline.publish takes (tl_row_check); and no more threads
 * than TL_CODEX_THREADS.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../../timeline/codex_threads.h"
#include "../../timeline/project.h"
#include "../../timeline/row_text.h"
#include "../../timeline/stream.h"
#include "fuzz.h"

static void check_rows(const json_t *rows, struct tl_stream *s)
{
	const json_t *row;
	const char *key;
	json_t *v;
	size_t i, pos;

	if (json_array_size(rows) > TL_ROWS_MAX)
		abort();
	json_array_foreach(rows, i, row) {
		char *plain, *colour, why[240];
		const char *agent = json_string_value(json_object_get(row, "agent"));

		if (tl_stream_place(s, row, &pos) == TL_PLACE_INVALID ||
		    tl_row_check(row, agent ? agent : "", why, sizeof why) < 0)
			abort();
		json_object_foreach((json_t *)row, key, v)
			if (json_is_string(v) && json_string_length(v) > TL_DIFF_MAX + sizeof TL_CUT_MARK)
				abort();
		plain = tl_render(row, 0);
		colour = tl_render(row, 1);
		if (!plain || !colour)
			abort();
		free(plain);
		free(colour);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct tl_claude cst;
	struct tl_codex xst;
	struct tl_codex_threads threads;
	struct tl_stream s;
	char err[256];

	if (tl_stream_init(&s) < 0)
		return 0;
	tl_claude_init(&cst);
	tl_codex_init(&xst, (int)(size % 3));
	tl_codex_threads_init(&threads);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		json_t *f = tl_parse_frame(p, len, err, sizeof err);

		p += len + (nl ? 1 : 0);
		if (!f)
			continue;
		for (int agent = 0; agent < 3; agent++) {
			json_t *rows = json_array();
			const json_t *m = json_object_get(f, agent ? "msg" : "message");

			if (!m)
				m = f;
			if (agent == 2)
				tl_codex_threads_project(&threads, m, rows, err, sizeof err);
			else if (agent)
				tl_codex_project(&xst, m, rows, err, sizeof err);
			else
				tl_claude_project(&cst, m, rows, err, sizeof err);
			check_rows(rows, &s);
			json_decref(rows);
		}
		json_decref(f);
	}
	if (cst.nopen > TL_OPEN_MAX || xst.nopen > TL_OPEN_MAX || cst.nspawn > TL_SPAWN_MAX ||
	    threads.map.count > TL_CODEX_THREADS)
		abort();
	tl_codex_threads_free(&threads);
	tl_claude_free(&cst);
	tl_codex_free(&xst);
	tl_stream_free(&s);
	return 0;
}
