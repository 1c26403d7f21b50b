/*
 * replay - run a fuzz target over every file of its corpus folders.
 *
 * `make test` links each fuzz target with this main instead of libFuzzer,
 * so the checked-in corpora (tests/fuzz/corpus/<target>/) are regression
 * inputs under the normal compiler and under ASan/UBSan, in seconds.
 * Usage: replay_<target> DIR...  Exits 1 if a folder cannot be read or is
 * empty (a corpus that silently vanished would test nothing).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* read_all - the whole file into a malloc'd buffer (not NUL-terminated:
 * a target must not rely on it). */
static unsigned char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL, *nbuf;
	size_t cap = 0, n;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*len == cap) {
			cap = cap ? cap * 2 : 4096;
			nbuf = realloc(buf, cap);
			if (!nbuf)
				goto fail;
			buf = nbuf;
		}
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
		if (n == 0)
			break;
	}
	if (ferror(f))
		goto fail;
	fclose(f);
	return buf;
fail:
	free(buf);
	fclose(f);
	return NULL;
}

static int replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[4096];
	unsigned char *buf;
	size_t len;
	int n = 0;

	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= (int)sizeof path) {
			fprintf(stderr, "replay: %s/%s: path too long\n", dir, de->d_name);
			closedir(d);
			return -1;
		}
		buf = read_all(path, &len);
		if (!buf) {
			fprintf(stderr, "replay: %s: cannot read\n", path);
			closedir(d);
			return -1;
		}
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
		n++;
	}
	closedir(d);
	if (n == 0) {
		fprintf(stderr, "replay: %s: no inputs\n", dir);
		return -1;
	}
	printf("replay: %d inputs from %s\n", n, dir);
	return 0;
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++)
		if (replay_dir(argv[i]) < 0)
			return 1;
	return 0;
}
