/*
 * workdir_call - what every handler of the worker's tools (workdir.h)
 * does around its own work: lock the folder, load script.json, and build
 * its answer's text.  Internal to workdir*.c.
 */
#ifndef EXPLAINER_WORKDIR_CALL_H
#define EXPLAINER_WORKDIR_CALL_H

#include <stdio.h>

#include "problems.h"
#include "script.h"
#include "workdir.h"

enum workdir_lock { WORKDIR_LOOK, WORKDIR_CHANGE };

struct workdir_call {
	const char *dir;
	int lock_fd;
	struct script script;
};

/* Locks DIR (shared to look, exclusive to change) and loads its script.
 * 0; or -1 with *a the answer (the folder cannot be used, or script.json
 * cannot be read), and nothing to end. */
int workdir_begin(const char *dir, enum workdir_lock lock, struct workdir_call *c, struct workdir_answer *a);
/* Frees the script and releases the lock. */
void workdir_end(struct workdir_call *c);

/* Scene i's problems appended to p: the script's rules for it and, when its
 * file is there, everything scene_load finds.  Their number. */
size_t workdir_scene_problems(const struct workdir_call *c, size_t i, struct problems *p);
/* The same with the characters no installed font has appended to missing
 * instead (scene_load_apart); the number appended to p. */
size_t workdir_scene_problems_apart(const struct workdir_call *c, size_t i, struct problems *p,
				    struct problems *missing);
/* "there is no scene NAME; the scenes are: a.svg, b.svg" (or none yet). */
struct workdir_answer workdir_no_scene(const struct workdir_call *c, const char *name);

/* A not-ok answer: intro (a sentence, or NULL), then one problem a line
 * as FILE:LINE: sentence. */
struct workdir_answer workdir_answer_problems(const char *intro, const struct problems *p);

/* A text built with stdio: workdir_text_open gives a stream writing into
 * memory, workdir_text_close ends it and returns the text, *buf (caller
 * frees), of *len bytes. */
FILE *workdir_text_open(char **buf, size_t *len);
char *workdir_text_close(FILE *f, char **buf);


#endif
