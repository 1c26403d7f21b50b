/*
 * test_pages - pages.mjs through node_server, and its URLs.
 */
#include "test_pages.h"

#include <stdio.h>
#include <string.h>

int test_pages_start(struct test_pages *p)
{
	memset(p, 0, sizeof *p);
	if (node_server_start(&p->node, "tests/browser/pages.mjs", NULL) < 0)
		return -1;
	snprintf(p->base, sizeof p->base, "http://127.0.0.1:%d", p->node.port);
	return 0;
}

int test_pages_stop(struct test_pages *p)
{
	return node_server_stop(&p->node);
}

const char *test_pages_url(const struct test_pages *p, const char *path, char *out, size_t outlen)
{
	int n = snprintf(out, outlen, "%s%s", p->base, path);

	return n >= 0 && (size_t)n < outlen ? out : NULL;
}
