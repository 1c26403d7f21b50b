/*
 * fx_folder - a throwaway folder for unit tests that write files (see
 * folder.h).
 */
#define _XOPEN_SOURCE 700
#include "fx_folder.h"

/* cmocka.h needs these before it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fx_folder_make(void **state)
{
	struct fx_folder *f = malloc(sizeof *f);

	if (!f)
		return -1;
	snprintf(f->path, sizeof f->path, "/tmp/hb-test.XXXXXX");
	if (!mkdtemp(f->path)) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

int fx_folder_remove(void **state)
{
	struct fx_folder *f = *state;
	int rc = fx_remove_tree(f->path);

	free(f);
	return rc;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int fx_remove_tree(const char *path)
{
	return nftw(path, remove_entry, 8, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

char *fx_path_in(const char *dir, const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *p = malloc(len);

	assert_non_null(p);
	snprintf(p, len, "%s/%s", dir, name);
	return p;
}

int fx_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

void fx_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}
