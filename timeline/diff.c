/*
 * diff - line diff by longest common subsequence, printed as unified
 * hunks with bare "@@" headers (see diff.h).
 *
 * The common head and tail are trimmed first, so an edit of a few lines in
 * a large snippet stays cheap; the middle is diffed with a table only when
 * it has at most DIFF_CELLS cells, otherwise it is shown as all removed
 * then all added: still a correct diff, and memory stays bounded.
 */
#include "diff.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "row.h"

#define DIFF_CELLS (1u << 20)
#define CONTEXT 3

struct line { const char *s; size_t len; };
struct lines { struct line *v; size_t n; };
/* One line of the edit script: ' ', '-' or '+'. */
struct op { char tag; struct line l; };
struct buf { char *s; size_t len, cap; int cut; };

static int split(const char *text, struct lines *out)
{
	size_t n = 0, cap = 16, len = strlen(text);
	const char *p = text, *end = text + len;

	out->v = malloc(cap * sizeof *out->v);
	if (!out->v)
		return -1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n == cap) {
			struct line *v = realloc(out->v, 2 * cap * sizeof *v);

			if (!v)
				return free(out->v), out->v = NULL, -1;
			out->v = v, cap *= 2;
		}
		out->v[n++] = (struct line){ p, l };
		p += l + (nl ? 1 : 0);
	}
	out->n = n;
	return 0;
}

static int same(struct line a, struct line b)
{
	return a.len == b.len && memcmp(a.s, b.s, a.len) == 0;
}

/* The middle's script by LCS table (uint32 lengths), into ops[*k..]. */
static int lcs_script(const struct line *a, size_t n, const struct line *b, size_t m, struct op *ops, size_t *k)
{
	uint32_t *t = calloc((n + 1) * (m + 1), sizeof *t);
	size_t i = 0, j = 0;

	if (!t)
		return -1;
	for (size_t x = n; x-- > 0;)
		for (size_t y = m; y-- > 0;)
			t[x * (m + 1) + y] = same(a[x], b[y]) ? t[(x + 1) * (m + 1) + y + 1] + 1
				: (t[(x + 1) * (m + 1) + y] >= t[x * (m + 1) + y + 1] ? t[(x + 1) * (m + 1) + y]
										     : t[x * (m + 1) + y + 1]);
	while (i < n || j < m) {
		if (i < n && j < m && same(a[i], b[j]))
			ops[(*k)++] = (struct op){ ' ', a[i] }, i++, j++;
		else if (j >= m || (i < n && t[(i + 1) * (m + 1) + j] >= t[i * (m + 1) + j + 1]))
			ops[(*k)++] = (struct op){ '-', a[i++] };
		else
			ops[(*k)++] = (struct op){ '+', b[j++] };
	}
	free(t);
	return 0;
}

static int script(const struct lines *a, const struct lines *b, struct op *ops, size_t *k)
{
	size_t head = 0, tail = 0, n, m;

	while (head < a->n && head < b->n && same(a->v[head], b->v[head]))
		head++;
	while (tail < a->n - head && tail < b->n - head && same(a->v[a->n - 1 - tail], b->v[b->n - 1 - tail]))
		tail++;
	n = a->n - head - tail, m = b->n - head - tail;
	for (size_t i = 0; i < head; i++)
		ops[(*k)++] = (struct op){ ' ', a->v[i] };
	if (n && m && (n + 1) * (m + 1) <= DIFF_CELLS) {
		if (lcs_script(a->v + head, n, b->v + head, m, ops, k) < 0)
			return -1;
	} else {
		for (size_t i = 0; i < n; i++)
			ops[(*k)++] = (struct op){ '-', a->v[head + i] };
		for (size_t i = 0; i < m; i++)
			ops[(*k)++] = (struct op){ '+', b->v[head + i] };
	}
	for (size_t i = a->n - tail; i < a->n; i++)
		ops[(*k)++] = (struct op){ ' ', a->v[i] };
	return 0;
}

/* Append, or mark the buffer cut once it would pass TL_DIFF_MAX. */
static void put(struct buf *b, const char *s, size_t len)
{
	if (b->cut || !b->s)
		return;
	if (b->len + len > TL_DIFF_MAX) {
		b->cut = 1;
		return;
	}
	if (b->len + len + 1 > b->cap) {
		size_t cap = (b->len + len + 1) * 2;
		char *s2 = realloc(b->s, cap);

		if (!s2)
			return free(b->s), (void)(b->s = NULL);
		b->s = s2, b->cap = cap;
	}
	memcpy(b->s + b->len, s, len);
	b->len += len;
	b->s[b->len] = '\0';
}

static void put_op(struct buf *b, const struct op *o)
{
	put(b, &o->tag, 1);
	put(b, o->l.s, o->l.len);
	put(b, "\n", 1);
}

/* Hunks: each change with CONTEXT lines either side; close changes merge. */
static void print_hunks(struct buf *b, const struct op *ops, size_t k)
{
	size_t i = 0;

	while (i < k) {
		size_t start, end, last;

		while (i < k && ops[i].tag == ' ')
			i++;
		if (i == k)
			break;
		start = i > CONTEXT ? i - CONTEXT : 0;
		last = i;
		for (size_t j = i; j < k && j <= last + 2 * CONTEXT; j++)
			if (ops[j].tag != ' ')
				last = j;
		end = last + CONTEXT + 1 < k ? last + CONTEXT + 1 : k;
		put(b, "@@\n", 3);
		for (size_t j = start; j < end; j++)
			put_op(b, &ops[j]);
		i = end;
	}
}

static int hunks_into(struct buf *b, const char *old_text, const char *new_text)
{
	struct lines a = { 0 }, c = { 0 };
	struct op *ops = NULL;
	char *o = tl_cut(old_text, strlen(old_text), TL_DIFF_MAX), *n = tl_cut(new_text, strlen(new_text), TL_DIFF_MAX);
	size_t k = 0;
	int rc = -1;

	if (o && n && split(o, &a) == 0 && split(n, &c) == 0 && (ops = malloc((a.n + c.n + 1) * sizeof *ops)) &&
	    script(&a, &c, ops, &k) == 0) {
		print_hunks(b, ops, k);
		rc = b->s ? 0 : -1;
	}
	free(ops), free(a.v), free(c.v), free(o), free(n);
	return rc;
}

static struct buf buf_new(void)
{
	struct buf b = { malloc(256), 0, 256, 0 };

	if (b.s)
		b.s[0] = '\0';
	return b;
}

static char *buf_finish(struct buf *b)
{
	if (b->s && b->cut) {
		char *s = realloc(b->s, b->len + sizeof TL_CUT_MARK);

		if (!s)
			return free(b->s), NULL;
		memcpy(s + b->len, TL_CUT_MARK, sizeof TL_CUT_MARK);
		return s;
	}
	return b->s;
}

char *tl_diff_hunks(const char *old_text, const char *new_text)
{
	struct buf b = buf_new();

	if (hunks_into(&b, old_text ? old_text : "", new_text ? new_text : "") < 0)
		return free(b.s), NULL;
	return buf_finish(&b);
}

char *tl_diff_file(const char *path, const char *const *olds, const char *const *news, size_t n)
{
	struct buf b = buf_new();
	size_t plen = strlen(path);

	put(&b, "--- ", 4);
	if (n && !olds[0])
		put(&b, "/dev/null", 9);
	else
		put(&b, "a/", *path == '/' ? 1 : 2), put(&b, path, plen);
	put(&b, "\n+++ b/", *path == '/' ? 6 : 7);
	put(&b, path, plen);
	put(&b, "\n", 1);
	for (size_t i = 0; i < n; i++)
		if (hunks_into(&b, olds[i] ? olds[i] : "", news[i] ? news[i] : "") < 0)
			return free(b.s), NULL;
	return buf_finish(&b);
}
