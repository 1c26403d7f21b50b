/*
 * fuzz_agents - the agents' frames: a stream of lines as the bridges read
 * them from an agent (lib/lines.c), each parsed as Codex's
 * item/tool/call (the broker's intake, flat and namespaced, and the
 * explainer worker's namespace) and as the Claude host pipe's toolCall
 * event (agents/dialect.c), and answered the way the broker answers.
 *
 * The answer must be JSON that carries back the call's own id: a call
 * answered under another id would hang the agent's turn.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dialect.h"
#include "fuzz.h"
#include "lines.h"

/* The id key of answer must equal idtext, the id as the call spelled it. */
static void answered_to(const char *answer, const char *idkey, const char *idtext)
{
	json_t *a, *want;

	if (!answer)
		return; /* images that cannot be written: the caller sends an error */
	a = json_loads(answer, 0, NULL);
	want = json_loads(idtext, JSON_DECODE_ANY, NULL);
	if (!a || !want || !json_equal(json_object_get(a, idkey), want))
		abort();
	json_decref(a);
	json_decref(want);
}

/* The "images" member of the arguments as wire-form text (malloc'd), or
 * NULL: images a service could send back with its answer. */
static char *images_of(const char *args)
{
	json_t *a = json_loads(args, 0, NULL);
	char *out = NULL;

	if (json_object_get(a, "images"))
		out = json_dumps(json_object_get(a, "images"), JSON_COMPACT | JSON_ENCODE_ANY);
	json_decref(a);
	return out;
}

static void codex_line(const char *line, size_t len, const char *ns)
{
	struct codex_tool_call tc;
	char err[256], identity[400], *ans, *images;
	int rc;

	rc = ns ? dialect_codex_parse_ns(line, len, ns, &tc, err, sizeof err)
		: dialect_codex_parse(line, len, &tc, err, sizeof err);
	if (rc == 0) {
		(void)dialect_identity(identity, sizeof identity, "codex", tc.thread, tc.call_id);
		images = images_of(tc.args);
		ans = dialect_codex_answer(tc.rpcid, 1, tc.args, images);
		answered_to(ans, "id", tc.rpcid);
		free(ans);
		free(images);
		ans = dialect_codex_answer(tc.rpcid, 0, tc.tool, NULL);
		answered_to(ans, "id", tc.rpcid);
		free(ans);
	}
	dialect_codex_free(&tc);
}

static void claude_line(const char *line, size_t len)
{
	struct claude_tool_call tc;
	char err[256], identity[400], *ans, *who, *images;

	who = dialect_claude_call_id(line, len);
	free(who);
	if (dialect_claude_parse(line, len, &tc, err, sizeof err) < 0)
		return;
	(void)dialect_identity(identity, sizeof identity, "claude", tc.tool, tc.call_id);
	images = images_of(tc.args);
	ans = dialect_claude_result(tc.request_id, 1, tc.args, images);
	answered_to(ans, "requestId", tc.request_id);
	free(ans);
	free(images);
	ans = dialect_claude_result(tc.request_id, 0, tc.tool, NULL);
	answered_to(ans, "requestId", tc.request_id);
	free(ans);
	dialect_claude_free(&tc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lines l;
	char *line;
	size_t len;
	int fd[2], rc;

	/* One pipe's worth: the writer must not block with no reader yet. */
	if (size > 60000 || pipe(fd) < 0)
		return 0;
	if (write(fd[1], data, size) != (ssize_t)size)
		abort();
	close(fd[1]);
	lines_init(&l);
	do {
		rc = lines_fill(&l, fd[0]);
		while ((line = lines_next(&l, &len))) {
			codex_line(line, len, NULL);
			codex_line(line, len, "hbcode_explainer");
			claude_line(line, len);
		}
	} while (rc > 0);
	close(fd[0]);
	lines_free(&l);
	return 0;
}
