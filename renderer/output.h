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

/* Creates the (empty) temporary file o->tmp beside target, after removing
 * the leftovers of target whose process is gone.  0, or -1 with err (the
 * folder does not exist or is not writable, target is a folder); on -1, o
 * holds nothing to free. */
int output_begin(struct output *o, const char *target, char *err, size_t errlen);
/* The file gets the mode a new file gets under the umask (0666 & ~umask)
 * and replaces target.  Frees o either way (and on -1 removes the
 * temporary file), so output_abort afterwards does nothing.  0, or -1 with
 * err. */
int output_commit(struct output *o, char *err, size_t errlen);
/* Removes the temporary file and frees o; safe after commit or on a zeroed
 * output. */
void output_abort(struct output *o);
/* The whole file at once: len bytes of data become target through a
 * temporary file.  0, or -1 with err. */
int output_write_file(const char *target, const void *data, size_t len, char *err, size_t errlen);

#endif
