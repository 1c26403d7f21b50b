/*
 * pty_screen - a program of the build run under a pseudo-terminal, and
 * the screen a person would read: what it wrote, with the cursor moves
 * and line clears of an in-place redraw applied (carriage return, line
 * feed, ESC[nA, ESC[nB, ESC[2K; colours dropped).  For the tests of what
 * a program shows on a terminal (hbctl watch --timeline), which a file
 * or a pipe cannot show, since the program writes differently there.
 */
#ifndef HB_TEST_PTY_SCREEN_H
#define HB_TEST_PTY_SCREEN_H

#include <stddef.h>
#include <sys/types.h>

#include "harness.h"

struct pty_prog {
	pid_t pid;
	int master;		/* the terminal's other end: what the program wrote */
	char *raw;		/* every byte read so far */
	size_t len;
};

/* Start prog (the build's) with args (NULL-terminated) under a new
 * terminal of rows x cols, in f's environment.  0, or -1 (said). */
int pty_start(struct pty_prog *p, struct fixture *f, const char *prog, const char *const *args, int rows, int cols);
/* Read what it wrote, waiting up to wait_ms for the first bytes.  The
 * bytes read, 0 when none, -1 on an error. */
ssize_t pty_read(struct pty_prog *p, int wait_ms);
/* The screen after everything read: its lines, newline-terminated, as
 * the terminal shows them (scrolled-off lines too).  Malloc'd. */
char *pty_screen(const struct pty_prog *p);
/* SIGINT, wait up to 10 s; its wait status, or -1.  Frees p. */
int pty_stop(struct pty_prog *p);

#endif
