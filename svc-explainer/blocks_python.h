/*
 * blocks_python - one short run of Debian's Python 3 for a building block
 * (blocks.h): the code block's highlighter, pygments, is a Python library.
 *
 * The program is BLOCKS_PYTHON (Debian's own interpreter, not whatever
 * python3 is first in PATH, whose library may differ) in isolated mode
 * (-I: no PYTHON* variables, no user site), with a small environment of
 * its own; never through a shell.  Its input goes to its stdin, so nothing
 * a worker wrote is ever a command-line word.  It runs in a process group
 * of its own, killed with everything it started when it outlives the time
 * allowed or writes more than allowed, and when we die.
 */
#ifndef EXPLAINER_BLOCKS_PYTHON_H
#define EXPLAINER_BLOCKS_PYTHON_H

#include <stddef.h>

#define BLOCKS_PYTHON "/usr/bin/python3"

/* Runs BLOCKS_PYTHON -I -c script with input (len bytes) on its stdin and
 * returns its stdout: 0 with *out (NUL-terminated, *out_len bytes; caller
 * frees), or -1 with a sentence in err (not installed, killed after
 * timeout_ms, more than max_out bytes, exited with a status).  stderr is
 * discarded: the script reports its own failures on stdout.  The caller
 * ignores SIGPIPE (services do). */
int blocks_python(const char *script, const char *input, size_t len, int timeout_ms, size_t max_out, char **out,
		  size_t *out_len, char *err, size_t errlen);

#endif
