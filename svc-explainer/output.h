/*
 * output - writing a file so that the target path only ever holds a
 * complete file: the work goes to a temporary file beside the target
 * (".NAME.hb-PID-XXXXXX.part", mode 0600 like mkstemp's, in the same
 * folder so the rename is atomic), and output_commit fsyncs it, renames it
 * over the target and fsyncs the folder.  A failure, a cancel or a SIGKILL
 * at any moment leaves the target as it was (absent, or the old file);
 * output_begin removes such leftovers whose process is gone.
 */
#ifndef EXPLAINER_OUTPUT_H
#define EXPLAINER_OUTPUT_H

#include <stddef.h>

struct output {
	char *target;
	char *tmp;
};

/* 0, or -1 with err (e.g. the folder does not exist or is not writable). */
int output_begin(struct output *o, const char *target, char *err, size_t errlen);
/* The file keeps the mode a new file gets under the umask (0666 & ~umask). */
int output_commit(struct output *o, char *err, size_t errlen);
/* Removes the temporary file; safe after commit or on a zeroed output. */
void output_abort(struct output *o);

#endif
