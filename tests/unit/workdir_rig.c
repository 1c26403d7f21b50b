/*
 * workdir_rig - see workdir_rig.h.
 */
#include "workdir_rig.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cairo.h>
#include <dirent.h>
#include <jansson.h>
#include <libxml/parser.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../renderer/folder.h"
#include "../../renderer/fonts.h"
#include "../../svc-explainer/workdir.h"
#include "../../svc-speech/wav.h"
#include "../harness/fx_folder.h"

int make_dir(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);

	if (!f)
		return -1;
	snprintf(f->root, sizeof f->root, "/tmp/hbworkdir.XXXXXX");
	if (!mkdtemp(f->root))
		return -1;
	snprintf(f->dir, sizeof f->dir, "%s/work", f->root);
	if (mkdir(f->dir, 0700) < 0)
		return -1;
	*state = f;
	return 0;
}

int remove_dir(void **state)
{
	struct fixture *f = *state;
	int r = fx_remove_tree(f->root);

	free(f);
	return r == 0 ? 0 : -1;
}

/* Asserts the answer's ok and that its text contains want; frees it. */
void expect(struct workdir_answer a, int ok, const char *want)
{
	if (a.ok != ok || !strstr(a.text, want))
		fail_msg("expected %s containing \"%s\", got %s:\n%s", ok ? "ok" : "not ok", want,
			 a.ok ? "ok" : "not ok", a.text);
	workdir_answer_free(&a);
}

void write_ok(const struct fixture *f, const char *name, const char *svg, const char *say, double duration,
	      long position, const char *want)
{
	expect(workdir_write_scene(f->dir, name, svg, say, duration, position), 1, want);
}

char *file_text(const char *dir, const char *name)
{
	char path[256], *buf = NULL;
	FILE *fp;
	long len;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(fp = fopen(path, "rb")))
		return NULL;
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	assert_true((len = ftell(fp)) >= 0);
	rewind(fp);
	assert_non_null(buf = calloc(1, (size_t)len + 1));
	assert_int_equal(fread(buf, 1, (size_t)len, fp), (size_t)len);
	fclose(fp);
	return buf;
}

void write_text(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_non_null(fp = fopen(path, "wb"));
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
}

int exists(const char *dir, const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	return lstat(path, &st) == 0;
}

/* The folder's entries, sorted and joined by spaces (the test's view of
 * "nothing else was written"). */
void entries(const char *dir, char *out, size_t outlen)
{
	struct dirent **list;
	int n = scandir(dir, &list, NULL, alphasort);

	assert_true(n >= 0);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (list[i]->d_name[0] != '.' || (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, "..")))
			snprintf(out + strlen(out), outlen - strlen(out), "%s%s", out[0] ? " " : "",
				 list[i]->d_name);
		free(list[i]);
	}
	free(list);
}

/* The script's scenes as "svg/duration/say" joined by " | ". */
void script_summary(const char *dir, char *out, size_t outlen)
{
	char path[256];
	json_error_t jerr;
	json_t *root, *sc;
	size_t i;

	snprintf(path, sizeof path, "%s/script.json", dir);
	root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		fail_msg("script.json: %s", jerr.text);
	out[0] = '\0';
	json_array_foreach(json_object_get(root, "scenes"), i, sc) {
		assert_int_equal(json_object_size(sc), 3);
		snprintf(out + strlen(out), outlen - strlen(out), "%s%s/%g/%s", i ? " | " : "",
			 json_string_value(json_object_get(sc, "svg")),
			 json_number_value(json_object_get(sc, "duration")),
			 json_string_value(json_object_get(sc, "say")));
	}
	json_decref(root);
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The answer carries a PNG of w x h: its signature and its IHDR. */
void expect_png(const struct workdir_answer *a, uint32_t w, uint32_t h)
{
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

	assert_non_null(a->png);
	assert_true(a->png_len > 8 + 8 + 13);
	assert_memory_equal(a->png, sig, 8);
	assert_int_equal(be32(a->png + 8), 13);
	assert_memory_equal(a->png + 12, "IHDR", 4);
	assert_int_equal(be32(a->png + 16), w);
	assert_int_equal(be32(a->png + 20), h);
}

struct png_reader {
	const unsigned char *data;
	size_t len, at;
};

static cairo_status_t read_png(void *closure, unsigned char *buf, unsigned int len)
{
	struct png_reader *r = closure;

	if (len > r->len - r->at)
		return CAIRO_STATUS_READ_ERROR;
	memcpy(buf, r->data + r->at, len);
	r->at += len;
	return CAIRO_STATUS_SUCCESS;
}

/* The colour at (x, y) of the answer's PNG as 0xRRGGBB. */
cairo_surface_t *png_image(const struct workdir_answer *a)
{
	struct png_reader r = { a->png, a->png_len, 0 };
	cairo_surface_t *s = cairo_image_surface_create_from_png_stream(read_png, &r);

	assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
	return s;
}

uint32_t pixel(const struct workdir_answer *a, int x, int y)
{
	cairo_surface_t *s = png_image(a);
	uint32_t px;

	px = ((const uint32_t *)(const void *)(cairo_image_surface_get_data(s) +
					       (size_t)y * (size_t)cairo_image_surface_get_stride(s)))[x];
	cairo_surface_destroy(s);
	return px & 0xffffff;
}

