/*
 * workdir_call - the folder's lock, the script's loading and the answers'
 * texts for the worker's tools (workdir_call.h).
 *
 * The lock is flock(2) on the folder itself: it is held per open file
 * description, so two calls on two threads of one service exclude each
 * other (fcntl locks would not: they belong to the process), and it goes
 * away with the descriptor if the service dies.
 */
#include "workdir_call.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "paths.h"
#include "scene.h"

FILE *workdir_text_open(char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);

	if (!f)
		abort(); /* a handler cannot answer without its text */
	return f;
}

char *workdir_text_close(FILE *f, char **buf)
{
	/* The stream sets *buf when it is closed. */
	if (fclose(f) != 0 || !*buf)
		abort();
	return *buf;
}

struct workdir_answer workdir_answer_text(int ok, const char *fmt, ...)
{
	struct workdir_answer a = { ok, NULL, NULL, 0 };
	size_t len;
	FILE *f = workdir_text_open(&a.text, &len);
	va_list ap;

	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	workdir_text_close(f, &a.text);
	return a;
}

struct workdir_answer workdir_answer_problems(const char *intro, const struct problems *p)
{
	struct workdir_answer a = { 0, NULL, NULL, 0 };
	size_t len;
	FILE *f = workdir_text_open(&a.text, &len);

	if (intro)
		fprintf(f, "%s\n", intro);
	problems_print(p, f);
	workdir_text_close(f, &a.text);
	/* No trailing newline: the last problem ends the text. */
	if (len > 0 && a.text[len - 1] == '\n')
		a.text[len - 1] = '\0';
	return a;
}

void workdir_answer_free(struct workdir_answer *a)
{
	free(a->text);
	free(a->png);
	memset(a, 0, sizeof *a);
}

int workdir_begin(const char *dir, enum workdir_lock lock, struct workdir_call *c, struct workdir_answer *a)
{
	struct problems p = { 0 };
	int rc;

	memset(c, 0, sizeof *c);
	c->dir = dir;
	c->lock_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->lock_fd < 0) {
		*a = workdir_answer_text(0, "the work folder %s cannot be opened: %s", dir, strerror(errno));
		return -1;
	}
	do
		rc = flock(c->lock_fd, lock == WORKDIR_CHANGE ? LOCK_EX : LOCK_SH);
	while (rc < 0 && errno == EINTR);
	if (rc < 0) {
		*a = workdir_answer_text(0, "the work folder %s cannot be locked: %s", dir, strerror(errno));
		close(c->lock_fd);
		return -1;
	}
	if (script_load(dir, &c->script, &p) < 0) {
		*a = workdir_answer_problems(SCRIPT_FILE " holds the scenes in order and cannot be read; fix it "
					     "or delete it and write the scenes again:", &p);
		problems_free(&p);
		close(c->lock_fd);
		return -1;
	}
	return 0;
}

void workdir_end(struct workdir_call *c)
{
	script_free(&c->script);
	/* Closing the descriptor releases the lock. */
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	c->lock_fd = -1;
}

size_t workdir_scene_problems(const struct workdir_call *c, size_t i, struct problems *p)
{
	return workdir_scene_problems_apart(c, i, p, p);
}

size_t workdir_scene_problems_apart(const struct workdir_call *c, size_t i, struct problems *p,
				    struct problems *missing)
{
	const char *name = c->script.v[i].svg;
	size_t before = p->n;
	char path[HB_PATH_MAX];

	if (script_check_scene(c->dir, &c->script, i, p) && hb_path_join(path, sizeof path, c->dir, name) == 0)
		scene_free(scene_load_apart(path, name, c->script.width, c->script.height, p, missing));
	return p->n - before;
}

struct workdir_answer workdir_no_scene(const struct workdir_call *c, const char *name)
{
	struct workdir_answer a = { 0, NULL, NULL, 0 };
	size_t len;
	FILE *f = workdir_text_open(&a.text, &len);

	fprintf(f, "there is no scene %s", name);
	if (c->script.n == 0)
		fprintf(f, "; there are no scenes yet");
	for (size_t i = 0; i < c->script.n; i++)
		fprintf(f, "%s%s", i ? ", " : "; the scenes are: ", c->script.v[i].svg);
	workdir_text_close(f, &a.text);
	return a;
}
