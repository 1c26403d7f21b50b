/*
 * test_timeline_golden - the projectors against golden files: frames
 * recorded from the real programs (claude-sdk-0.3.332.jsonl from the
 * Claude Agent SDK, codex-0.171.0.jsonl from codex app-server) and
 * hand-written frames in the same wire format for the row kinds the
 * recordings lack (*-handwritten.jsonl), all in tests/fixtures/timeline/.
 * Each input gives NAME.golden: one line per row, {"frame": N, "row": ROW}.
 *
 * A change of the projection fails here until someone regenerates the
 * files on purpose (`make timeline-golden`, HB_TIMELINE_REGEN=1) and
 * reviews the diff.  Also checked: together the fixtures give every row
 * kind of page 003's table, for Claude all of them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../timeline/codex_threads.h"
#include "../../timeline/project.h"

/* Opens tests/fixtures/timeline/NAME from the repo root or beside the build. */
static FILE *open_fixture(const char *name, const char *mode, char *path, size_t pathlen)
{
	const char *build = getenv("HB_BUILD");
	FILE *f;

	snprintf(path, pathlen, "tests/fixtures/timeline/%s", name);
	if (!(f = fopen(path, mode)) && build) {
		snprintf(path, pathlen, "%s/../tests/fixtures/timeline/%s", build, name);
		f = fopen(path, mode);
	}
	return f;
}

/* The projection of one fixture as golden text; kinds[k] counts rows of kind k. */
static char *project_fixture(const char *name, int *kinds)
{
	char path[1024], file[256], err[256], *line = NULL, *text = NULL;
	size_t cap = 0, len = 0;
	ssize_t n;
	int claude = strncmp(name, "claude", 6) == 0, frame = 0;
	struct tl_claude cst;
	struct tl_codex_threads xst;
	FILE *in, *out = open_memstream(&text, &len);

	snprintf(file, sizeof file, "%s.jsonl", name);
	in = open_fixture(file, "r", path, sizeof path);
	assert_non_null(in);
	assert_non_null(out);
	tl_claude_init(&cst);
	tl_codex_threads_init(&xst);
	while ((n = getline(&line, &cap, in)) > 0) {
		json_t *f = tl_parse_frame(line, (size_t)n, err, sizeof err), *rows = json_array(), *m, *row;
		size_t i;

		frame++;
		assert_non_null(f);
		/* a recorded frame wraps the message (msg / message); a
		 * hand-written one is the agent host's event or codex's note */
		m = json_object_get(f, claude ? "message" : "msg");
		if (!m)
			m = f;
		/* codex's threads as hb-codex-bridge links them */
		if (!claude && json_is_string(json_object_get(m, "method")) &&
		    strcmp(json_string_value(json_object_get(m, "method")), "thread/started") == 0) {
			const json_t *t = json_object_get(json_object_get(m, "params"), "thread");
			const char *parent = json_string_value(json_object_get(t, "parentThreadId"));

			tl_codex_threads_link(&xst, json_string_value(json_object_get(t, "id")),
					      parent ? parent : json_string_value(json_object_get(t, "forkedFromId")));
		}
		assert_int_equal(claude ? tl_claude_project(&cst, m, rows, err, sizeof err)
					: tl_codex_threads_project(&xst, m, rows, err, sizeof err), 0);
		json_array_foreach(rows, i, row) {
			json_t *g = json_pack("{s:i, s:O}", "frame", frame, "row", row);
			char *s = json_dumps(g, JSON_COMPACT | JSON_SORT_KEYS), why[240];

			/* every row is one the broker's timeline.publish takes */
			if (tl_row_check(row, claude ? "claude" : "codex", why, sizeof why) < 0)
				fail_msg("%s frame %d: %s", name, frame, why);

			assert_non_null(s);
			fprintf(out, "%s\n", s);
			free(s);
			json_decref(g);
			for (int k = 0; k < TL_KIND_COUNT; k++)
				if (strcmp(json_string_value(json_object_get(row, "kind")), tl_kind_name(k)) == 0)
					kinds[k]++;
		}
		json_decref(rows);
		json_decref(f);
	}
	free(line);
	fclose(in);
	fclose(out);
	tl_claude_free(&cst);
	tl_codex_threads_free(&xst);
	return text;
}

static char *slurp(FILE *f)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int c;

	assert_non_null(out);
	while ((c = fgetc(f)) != EOF)
		fputc(c, out);
	fclose(out);
	return text;
}

/* The first line where a and b differ, for a message a person can act on. */
static void report_difference(const char *name, const char *want, const char *got)
{
	int line = 1;

	while (*want && *want == *got) {
		if (*want == '\n')
			line++;
		want++, got++;
	}
	fprintf(stderr, "%s.golden differs from the projection at line %d:\n  golden: %.300s\n  now:    %.300s\n"
			"If the change is intended, run `make timeline-golden` and review `git diff tests/fixtures/timeline`.\n",
		name, line, want, got);
}

static void check_fixture(const char *name, int *kinds)
{
	char path[1024], file[256], *got = project_fixture(name, kinds), *want;
	FILE *f;

	snprintf(file, sizeof file, "%s.golden", name);
	if (getenv("HB_TIMELINE_REGEN")) {
		char src[1024], input[256];
		FILE *probe;

		/* beside the input that was found: NAME.jsonl -> NAME.golden */
		snprintf(input, sizeof input, "%s.jsonl", name);
		assert_non_null(probe = open_fixture(input, "r", src, sizeof src));
		fclose(probe);
		strcpy(src + strlen(src) - strlen(".jsonl"), ".golden");
		assert_non_null(f = fopen(src, "w"));
		fputs(got, f);
		assert_int_equal(fclose(f), 0);
		fprintf(stderr, "wrote %s: review it before committing\n", src);
		free(got);
		return;
	}
	f = open_fixture(file, "r", path, sizeof path);
	if (!f)
		fprintf(stderr, "no %s: run `make timeline-golden` to write it, then review it\n", file);
	assert_non_null(f);
	want = slurp(f);
	fclose(f);
	if (strcmp(want, got) != 0)
		report_difference(name, want, got);
	assert_string_equal(want, got);
	free(want);
	free(got);
}

static void test_claude_golden(void **state)
{
	int kinds[TL_KIND_COUNT] = { 0 };

	(void)state;
	check_fixture("claude-sdk-0.3.332", kinds);
	check_fixture("claude-sdk-subagent", kinds);
	check_fixture("claude-handwritten", kinds);
	/* every kind of page 003's table comes out of Claude's frames */
	for (int k = 0; k < TL_KIND_COUNT; k++) {
		if (!kinds[k])
			fprintf(stderr, "no Claude fixture gives a %s row\n", tl_kind_name(k));
		assert_true(kinds[k] > 0);
	}
}

static void test_codex_golden(void **state)
{
	int kinds[TL_KIND_COUNT] = { 0 };

	(void)state;
	check_fixture("codex-0.171.0", kinds);
	check_fixture("codex-handwritten", kinds);
	check_fixture("codex-0.171.0-subagent", kinds);
	/* Codex has no local slash commands, and its rate limits are the
	 * account's (account/rateLimits/updated names no thread, so no
	 * timeline has them; `hbctl usage` shows them); every other kind it
	 * gives */
	for (int k = 0; k < TL_KIND_COUNT; k++) {
		if (k == TL_SLASH_COMMAND || k == TL_RATE_LIMIT)
			continue;
		if (!kinds[k])
			fprintf(stderr, "no Codex fixture gives a %s row\n", tl_kind_name(k));
		assert_true(kinds[k] > 0);
	}
}

/* The recordings' own claims, not only whatever the golden file says. */
static void test_recorded_rows(void **state)
{
	int kinds[TL_KIND_COUNT] = { 0 };
	char *claude = project_fixture("claude-sdk-0.3.332", kinds), *codex = project_fixture("codex-0.171.0", kinds);

	(void)state;
	/* an MCP tool shows as "server: tool" with its arguments, completed in place */
	assert_non_null(strstr(claude, "\"id\":\"claude:toolu_mock_5\",\"input\":{\"action\":\"prune\",\"maxAgeDays\":7,"
				       "\"sessionIds\":[\"s-1\",\"s-2\"]},\"kind\":\"tool\",\"label\":\"hbcode: maintain_sessions\""));
	assert_non_null(strstr(claude, "\"status\":\"declined\""));	/* ask-deny */
	assert_non_null(strstr(claude, "\"output\":\"desktop: session store locked\""));	/* tool-error */
	assert_non_null(strstr(claude, "\"kind\":\"turn_aborted\""));	/* interrupt */
	assert_non_null(strstr(codex, "\"arguments\":{\"action\":\"list\",\"max_age_days\":7},\"depth\":0,"
				      "\"id\":\"codex:call_mock_1\",\"kind\":\"tool\",\"label\":\"hbcode: maintain_sessions\""));
	assert_non_null(strstr(codex, "\"output\":\"error: session store locked (simulated)\""));
	assert_non_null(strstr(codex, "\"kind\":\"turn_aborted\""));
	free(claude);
	free(codex);
}

/* A sub-agent recorded from the real codex (multi_agent on): its thread
 * has no thread/started, yet its rows are depth 1 and the parent's spawn
 * row links to it. */
static void test_codex_subagent(void **state)
{
	int kinds[TL_KIND_COUNT] = { 0 };
	char *text = project_fixture("codex-0.171.0-subagent", kinds), *line, *save = NULL;
	int spawn = 0, child_rows = 0, child_command = 0, parent_tool = 0;

	(void)state;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *g = json_loads(line, 0, NULL), *row = json_object_get(g, "row");
		const char *kind = json_string_value(json_object_get(row, "kind"));
		json_int_t depth = json_integer_value(json_object_get(row, "depth"));

		assert_non_null(kind);
		if (strcmp(kind, "spawn") == 0 && strcmp(json_string_value(json_object_get(row, "status")), "completed") == 0) {
			spawn++;
			assert_int_equal(depth, 0);
			assert_int_equal(json_integer_value(json_object_get(row, "childDepth")), 1);
			assert_string_equal(json_string_value(json_object_get(json_object_get(row, "link"), "thread")),
					    "01a2350f-5bf1-70a3-9400-17fba801997a");
		}
		/* a child's rows name its thread, the spawn row's link.thread */
		if (depth == 1)
			assert_string_equal(json_string_value(json_object_get(row, "thread")),
					    "01a2350f-5bf1-70a3-9400-17fba801997a");
		else
			assert_null(json_object_get(row, "thread"));
		if (depth == 1) {
			const char *out = json_string_value(json_object_get(row, "output"));

			child_rows++;
			if (strcmp(kind, "command") == 0 && out && strstr(out, "child-was-here"))
				child_command++;
		}
		if (depth == 0 && strcmp(kind, "tool") == 0 &&
		    strcmp(json_string_value(json_object_get(row, "label")), "hbcode: maintain_sessions") == 0)
			parent_tool++;
		json_decref(g);
	}
	assert_int_equal(spawn, 1);
	assert_true(child_rows >= 3);	/* its prompt, its command, its reply */
	assert_true(child_command >= 1);
	assert_true(parent_tool >= 1);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_claude_golden),
		cmocka_unit_test(test_codex_golden),
		cmocka_unit_test(test_recorded_rows),
		cmocka_unit_test(test_codex_subagent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
