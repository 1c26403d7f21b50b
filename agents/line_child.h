/*
 * line_child - an agent's program as a child spoken to in JSON lines, the
 * one engine for everything that drives one (docs/agents.md): codex
 * app-server or the Claude agent host spawned in a process group of its
 * own (lib/child.c), its output read in bounded lines (lib/lines.c),
 * requests matched to their answers by id within a deadline and every
 * other line (events, notifications) handed to a callback, and an end
 * that leaves nothing of the group behind.  It serves a poll loop
 * (line_child_fd and line_child_read) and a blocking call alike
 * (line_child_call, line_child_wait_answer).  hbctl's reads
 * (hbctl/line_rpc.c) and hb-claude-bridge's final transcript read
 * (bridge/claude_lastread.c) use it.
 *
 * The caller must ignore SIGPIPE: a write to a child that died is then an
 * error, which closes the child's input.
 */
#ifndef HB_LINE_CHILD_H
#define HB_LINE_CHILD_H

#include <jansson.h>
#include <stddef.h>

#include "child.h"
#include "lines.h"

struct line_child {
	struct child child;
	struct lines lines;
	long long next_id;   /* line_child_call's ids: 1, 2, ... */
	int in_open;         /* 0 once the input was closed or a write failed */
	int own_group;       /* started in a process group of its own */
};

/* A line of the child's that is not the answer waited for (without its
 * newline). */
typedef void (*line_child_fn)(void *ctx, const char *line, size_t len);

/* How a wait for an answer ended without one. */
enum line_child_miss {
	LINE_CHILD_TIMED_OUT = 1, /* the deadline passed */
	LINE_CHILD_ENDED,         /* the child's output ended */
	LINE_CHILD_UNREADABLE,    /* its output could not be read */
};

/* line_child_start's flag: the child stays in our process group instead
 * of one of its own, for hb-codex-bridge, whose group the broker or the
 * shell ends as one with the codex it runs. */
#define LINE_CHILD_OUR_GROUP 0x100

/* Start argv (argv[0] looked up in PATH; envp NULL: ours) in a process
 * group of its own (unless LINE_CHILD_OUR_GROUP); flags adds other
 * CHILD_* flags (CHILD_PARENT_DEATH).  0, or -1 with a sentence in err. */
int line_child_start(struct line_child *lc, char *const argv[], char *const envp[], int flags, char *err,
		     size_t errlen);

/* Write msg as one line and take its reference.  0, or -1 when msg is NULL
 * (out of memory), the input is closed or the write failed (which closes
 * it: the child is gone, as its output will say). */
int line_child_send(struct line_child *lc, json_t *msg);
int line_child_send_text(struct line_child *lc, const char *line, size_t len);

/* Close the child's input (the end of its input ends it, as a rule). */
void line_child_close_input(struct line_child *lc);

/* The descriptor to poll for the child's output. */
int line_child_fd(const struct line_child *lc);
/* Read what the child has written (one read) and hand each whole line to
 * on_line.  1 read, 0 the output ended, -1 it could not be read (errno
 * says why, whatever on_line did). */
int line_child_read(struct line_child *lc, line_child_fn on_line, void *ctx);

/* Wait for the answer with id (a JSON value, borrowed) until deadline_ms
 * (hb_monotonic_ms), reading past other lines into on_other (may be
 * NULL).  The answer (a new reference), or NULL with *miss. */
json_t *line_child_wait_answer(struct line_child *lc, const json_t *id, long long deadline_ms,
			       line_child_fn on_other, void *ctx, enum line_child_miss *miss);
/* Send {"id":<next>,"method","params"} (params borrowed; NULL: none) and
 * wait for its answer as line_child_wait_answer does.  NULL with *miss
 * (0: out of memory, or the request could not be written and the child's
 * output had nothing more). */
json_t *line_child_call(struct line_child *lc, const char *method, json_t *params, long long deadline_ms,
			line_child_fn on_other, void *ctx, enum line_child_miss *miss);

/* End the child: close its input, read (and drop) what it still writes
 * until its output ends or grace_ms pass, SIGKILL its whole group (what
 * it started too, should it linger; a child in our group is left to end
 * by itself), and reap it.  Its exit status (as
 * child_wait). */
int line_child_end(struct line_child *lc, int grace_ms);

#endif
