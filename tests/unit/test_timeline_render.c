/*
 * test_timeline_render - timeline rows as hbctl watch --timeline prints
 * them (timeline/row_text.c): plain text when piped, ANSI colour on a
 * terminal that marks only what the plain text already says, hidden rows
 * not at all, subagent rows indented by depth.  Also: every row of the
 * golden files renders.
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
#include <time.h>

#include "../../timeline/row_text.h"

static char *render(const char *json, int colour)
{
	json_error_t je;
	json_t *row = json_loads(json, 0, &je);
	char *text;

	assert_non_null(row);
	text = tl_render(row, colour);
	json_decref(row);
	assert_non_null(text);
	return text;
}

static void expect(const char *json, int colour, const char *want)
{
	char *got = render(json, colour);

	if (strcmp(got, want) != 0)
		fprintf(stderr, "row %s\nwant:\n%s\ngot:\n%s\n", json, want, got);
	assert_string_equal(got, want);
	free(got);
}

static void test_plain(void **state)
{
	(void)state;
	expect("{\"id\":\"codex:um-1\",\"agent\":\"codex\",\"kind\":\"user\",\"depth\":0,\"text\":\"Run the tests\"}", 0,
	       "You: Run the tests\n");
	expect("{\"id\":\"claude:m#0\",\"agent\":\"claude\",\"kind\":\"assistant\",\"depth\":0,\"text\":\"Two\\nlines\"}", 0,
	       "Claude: Two\n  lines\n");
	expect("{\"id\":\"claude:t\",\"agent\":\"claude\",\"kind\":\"command\",\"depth\":0,\"status\":\"output\","
	       "\"command\":\"make\",\"output\":\"ok\\nbuilt\",\"outputRef\":\"toolu_1\"}", 0,
	       "Command output: $ make\n  │ ok\n  │ built\n  (full output: toolu_1)\n");
	expect("{\"id\":\"claude:t\",\"agent\":\"claude\",\"kind\":\"tool\",\"depth\":0,\"status\":\"declined\","
	       "\"title\":\"hbcode: manage_sessions\",\"output\":\"User denied\"}", 0,
	       "Tool declined: hbcode: manage_sessions\n  │ User denied\n");
	expect("{\"id\":\"claude:e\",\"agent\":\"claude\",\"kind\":\"file_change\",\"depth\":0,\"status\":\"call\","
	       "\"title\":\"main.c\",\"changes\":[{\"path\":\"/p/main.c\",\"diff\":\"@@\\n-a\\n+b\\n\"}]}", 0,
	       "File change call: main.c\n  │ @@\n  │ -a\n  │ +b\n");
	expect("{\"id\":\"claude:p\",\"agent\":\"claude\",\"kind\":\"plan\",\"depth\":0,\"steps\":[{\"step\":\"Fix\","
	       "\"status\":\"completed\"},{\"step\":\"Test\",\"status\":\"in_progress\"},{\"step\":\"Ship\",\"status\":\"pending\"}]}",
	       0, "Plan\n  [x] Fix\n  [>] Test\n  [ ] Ship\n");
	expect("{\"id\":\"claude:a\",\"agent\":\"claude\",\"kind\":\"turn_aborted\",\"depth\":0}", 0, "— Turn aborted —\n");
	expect("{\"id\":\"claude:u#started\",\"agent\":\"claude\",\"kind\":\"turn_started\",\"depth\":0,\"turn\":\"u\"}", 0,
	       "— Turn started —\n");
	expect("{\"id\":\"claude:u#completed\",\"agent\":\"claude\",\"kind\":\"turn_completed\",\"depth\":0,\"turn\":\"u\","
	       "\"status\":\"completed\",\"durationMs\":1450,\"tokensIn\":220,\"cachedTokensIn\":15,\"tokensOut\":30,"
	       "\"costUsd\":0.00148}", 0, "— Turn completed · 1.4 s · 220 in (15 cached) / 30 out tokens · $0.0015 —\n");
	/* the waits of a turn, live only: a retry (with codex's sentence
	 * under it) and a rate limit, in the local time (TZ=UTC here) */
	expect("{\"id\":\"claude:r#retry\",\"agent\":\"claude\",\"kind\":\"retry\",\"depth\":0,\"attempt\":2,"
	       "\"maxAttempts\":10,\"delayMs\":4000,\"httpStatus\":529,\"reason\":\"overloaded\"}", 0,
	       "— retrying in 4 s (attempt 2 of 10): overloaded —\n");
	expect("{\"id\":\"codex:t#retry1\",\"agent\":\"codex\",\"kind\":\"retry\",\"depth\":0,\"attempt\":1,"
	       "\"maxAttempts\":3,\"httpStatus\":529,\"reason\":\"overloaded\",\"detail\":\"unexpected status 529\"}", 0,
	       "— retrying (attempt 1 of 3): overloaded —\n  │ unexpected status 529\n");
	expect("{\"id\":\"claude:l#ratelimit\",\"agent\":\"claude\",\"kind\":\"rate_limit\",\"depth\":0,"
	       "\"status\":\"rejected\",\"resetsAt\":50700,\"limitType\":\"five_hour\"}", 0,
	       "— rate limited until 14:05 (five-hour limit) —\n");
	expect("{\"id\":\"claude:w#ratelimit\",\"agent\":\"claude\",\"kind\":\"rate_limit\",\"depth\":0,"
	       "\"status\":\"allowed_warning\",\"resetsAt\":50700,\"limitType\":\"seven_day\"}", 0,
	       "— near the rate limit, resets Thu 14:05 (weekly limit) —\n");
	expect("{\"id\":\"claude:f#completed\",\"agent\":\"claude\",\"kind\":\"turn_completed\",\"depth\":0,"
	       "\"status\":\"failed\",\"durationMs\":125000,\"tokensIn\":4210,\"cachedTokensIn\":0,\"tokensOut\":1234567}",
	       1, "\033[1m\033[31m— Turn \033[0mfailed · 2 min 5 s · 4,210 in / 1,234,567 out tokens —\n");
	expect("{\"id\":\"codex:t#completed\",\"agent\":\"codex\",\"kind\":\"turn_completed\",\"depth\":0,\"turn\":\"t\","
	       "\"status\":\"interrupted\",\"durationMs\":394}", 0, "— Turn interrupted · 0.4 s —\n");
	expect("{\"id\":\"claude:c\",\"agent\":\"claude\",\"kind\":\"compacted\",\"depth\":0}", 0,
	       "— Conversation compacted —\n");
	expect("{\"id\":\"claude:s\",\"agent\":\"claude\",\"kind\":\"slash_command\",\"depth\":0,\"command\":\"/model\","
	       "\"args\":\"opus\",\"output\":\"Set model to opus\"}", 0, "/model opus\n  │ Set model to opus\n");
	expect("{\"id\":\"claude:m\",\"agent\":\"claude\",\"kind\":\"agent_message\",\"depth\":0,\"fromSession\":\"s-42\","
	       "\"fromTitle\":\"Docs\",\"text\":\"Rebuild\"}", 0, "Message from Docs (s-42): Rebuild\n");
	expect("{\"id\":\"claude:y\",\"agent\":\"claude\",\"kind\":\"system\",\"depth\":0,\"text\":\"API Error\"}", 0,
	       "System: API Error\n");
	expect("{\"id\":\"claude:h\",\"agent\":\"claude\",\"kind\":\"hidden\",\"depth\":0,\"reason\":\"meta\"}", 0, "");
	expect("{\"id\":\"claude:i\",\"agent\":\"claude\",\"kind\":\"image\",\"depth\":0,\"mediaType\":\"image/png\",\"bytes\":72}",
	       0, "Image: image/png, 72 bytes\n");
	expect("{\"id\":\"claude:r\",\"agent\":\"claude\",\"kind\":\"reasoning\",\"depth\":0,\"text\":\"Think\"}", 0,
	       "Reasoning: Think\n");
}

static void test_subagents_indent(void **state)
{
	(void)state;
	expect("{\"id\":\"claude:t\",\"agent\":\"claude\",\"kind\":\"spawn\",\"depth\":0,\"status\":\"running\",\"title\":"
	       "\"Review\",\"agentType\":\"Explore\",\"link\":{\"thread\":\"toolu_t\"}}", 0,
	       "Subagent running: Review (Explore) → thread toolu_t\n");
	expect("{\"id\":\"claude:m#0\",\"agent\":\"claude\",\"kind\":\"assistant\",\"depth\":2,\"text\":\"deep\"}", 0,
	       "    Claude: deep\n");
	/* what Claude's task events add: the tool uses so far, the summary */
	expect("{\"id\":\"claude:t\",\"agent\":\"claude\",\"kind\":\"spawn\",\"depth\":0,\"status\":\"failed\",\"title\":"
	       "\"Watch\",\"agentType\":\"general-purpose\",\"background\":true,\"link\":{\"thread\":\"toolu_t\"},"
	       "\"toolUses\":2,\"lastTool\":\"Bash\",\"summary\":\"Two tests failed.\"}", 0,
	       "Subagent failed: Watch (general-purpose) in the background → thread toolu_t · 2 tool uses, last Bash\n"
	       "  │ Two tests failed.\n");
}

static void test_colour(void **state)
{
	(void)state;
	expect("{\"id\":\"codex:um-1\",\"agent\":\"codex\",\"kind\":\"user\",\"depth\":0,\"text\":\"Hi\"}", 1,
	       "\033[1m\033[32mYou: \033[0mHi\n");
	expect("{\"id\":\"claude:t\",\"agent\":\"claude\",\"kind\":\"tool\",\"depth\":0,\"status\":\"error\","
	       "\"title\":\"Search\"}", 1, "\033[1m\033[31mTool\033[0m \033[31merror\033[0m: Search\n");
	expect("{\"id\":\"claude:e\",\"agent\":\"claude\",\"kind\":\"file_change\",\"depth\":0,\"status\":\"output\","
	       "\"title\":\"a\",\"changes\":[{\"diff\":\"@@\\n-a\\n+b\\n\"}]}", 1,
	       "\033[1m\033[34mFile change\033[0m \033[2moutput\033[0m: a\n  │ \033[36m@@\033[0m\n  │ \033[31m-a\033[0m\n"
	       "  │ \033[32m+b\033[0m\n");
}

/* An update: the header marked after the indent, dim in colour. */
static void test_update_marked(void **state)
{
	json_t *row = json_loads("{\"id\":\"claude:m#0\",\"agent\":\"claude\",\"kind\":\"assistant\",\"depth\":1,"
				 "\"text\":\"done\"}", 0, NULL);
	char *plain, *colour;

	(void)state;
	assert_non_null(row);
	plain = tl_render_as(row, 0, 1);
	colour = tl_render_as(row, 1, 1);
	assert_string_equal(plain, "  (update) Claude: done\n");
	assert_string_equal(colour, "  \033[2m(update) \033[0m\033[1m\033[36mClaude: \033[0mdone\n");
	free(plain);
	free(colour);
	plain = tl_render_as(row, 0, 0);
	assert_string_equal(plain, "  Claude: done\n");
	free(plain);
	json_decref(row);
}

/* Long output: TL_RENDER_LINES lines and a count of the rest. */
static void test_long_output_counted(void **state)
{
	char json[4096], out[2048];
	size_t n = 0;

	(void)state;
	n += (size_t)snprintf(out, sizeof out, "x");
	for (int i = 1; i < 25; i++)
		n += (size_t)snprintf(out + n, sizeof out - n, "\\nx");
	snprintf(json, sizeof json, "{\"id\":\"x\",\"agent\":\"claude\",\"kind\":\"tool\",\"status\":\"output\",\"title\":\"T\","
				    "\"output\":\"%s\"}", out);
	{
		char *got = render(json, 0);

		assert_non_null(strstr(got, "  │ … 5 more lines\n"));
		free(got);
	}
}

/* Every golden row renders; only hidden rows render as nothing. */
static void test_golden_rows_render(void **state)
{
	static const char *const names[] = { "claude-sdk-0.3.332", "claude-handwritten", "codex-0.171.0",
					     "codex-handwritten" };
	const char *build = getenv("HB_BUILD");
	int total = 0;

	(void)state;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char path[1024], *line = NULL;
		size_t cap = 0;
		FILE *f;

		snprintf(path, sizeof path, "tests/fixtures/timeline/%s.golden", names[i]);
		if (!(f = fopen(path, "r")) && build) {
			snprintf(path, sizeof path, "%s/../tests/fixtures/timeline/%s.golden", build, names[i]);
			f = fopen(path, "r");
		}
		assert_non_null(f);
		while (getline(&line, &cap, f) > 0) {
			json_t *g = json_loads(line, 0, NULL), *row = json_object_get(g, "row");
			char *plain = tl_render(row, 0), *colour = tl_render(row, 1);
			int hidden = strcmp(json_string_value(json_object_get(row, "kind")), "hidden") == 0;

			assert_non_null(plain);
			assert_non_null(colour);
			assert_int_equal(*plain == '\0', hidden);
			assert_null(strchr(plain, '\033'));
			free(plain), free(colour);
			json_decref(g);
			total++;
		}
		free(line);
		fclose(f);
	}
	assert_true(total > 100);
}

int main(void)
{
	/* the times of rate-limit rows are local: this test's are UTC */
	setenv("TZ", "UTC", 1);
	tzset();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_subagents_indent),
		cmocka_unit_test(test_colour),
		cmocka_unit_test(test_update_marked),
		cmocka_unit_test(test_long_output_counted),
		cmocka_unit_test(test_golden_rows_render),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
