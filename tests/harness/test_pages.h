/*
 * test_pages - tests/browser/pages.mjs, the browser tests' local web
 * pages (its header lists them), served on 127.0.0.1 for a C test: its
 * base URL, and a page's URL from its path.
 */
#ifndef HB_TEST_PAGES_H
#define HB_TEST_PAGES_H

#include <stddef.h>

#include "node_server.h"

struct test_pages {
	struct node_server node;  /* node.port: where it listens */
	char base[40];            /* http://127.0.0.1:PORT, no slash after */
};

/* 0, or -1 after saying why on stderr (nothing left running). */
int test_pages_start(struct test_pages *p);
/* 0 when it ended cleanly. */
int test_pages_stop(struct test_pages *p);
/* base + path ("/button") into out: out, or NULL when it does not fit. */
const char *test_pages_url(const struct test_pages *p, const char *path, char *out, size_t outlen);

#endif
