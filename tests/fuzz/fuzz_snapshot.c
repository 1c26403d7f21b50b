/*
 * fuzz_snapshot - the page snapshot svc-browser writes for the model
 * (svc-browser/snapshot.c) from Chrome's Accessibility.getFullAXTree
 * answer: whatever a page, or a browser that is not Chrome, puts there.
 *
 * The first two bytes are the max_chars the call asked for; the rest is
 * the answer's JSON.  The text must be as long as it says, and every ref
 * it hands the model must read back as a node.  A cut one's sentence
 * about the containers near the cut (snapshot_near.c) is made too, and
 * must be one line.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../../svc-browser/snapshot.h"
#include "../../svc-browser/snapshot_near.h"
#include "fuzz.h"

/* Each "[ref=eN]" written must parse back to a node id. */
static void refs_read_back(const char *text)
{
	char ref[32];
	const char *p, *e;

	for (p = strstr(text, "[ref="); p; p = strstr(p + 1, "[ref=")) {
		e = strchr(p + 5, ']');
		if (!e || (size_t)(e - p - 5) >= sizeof ref)
			continue;
		memcpy(ref, p + 5, (size_t)(e - p - 5));
		ref[e - p - 5] = '\0';
		(void)snapshot_ref_node(ref);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct snapshot s;
	json_t *res;
	char err[512], *text;
	size_t max;

	if (size < 2)
		return 0;
	max = (size_t)data[0] << 8 | data[1];
	res = json_loadb((const char *)data + 2, size - 2, 0, NULL);
	if (!res)
		return 0;
	if (snapshot_build(json_object_get(res, "nodes"), max, &s, err, sizeof err) == 0) {
		if (!s.text || strlen(s.text) != s.len || s.refs > s.nodes)
			abort();
		refs_read_back(s.text);
		if (s.truncated && (text = snapshot_near_cut(json_object_get(res, "nodes"), s.cut_node, 1))) {
			if (strchr(text, '\n') != text + strlen(text) - 1)
				abort();
			free(text);
		}
		snapshot_free(&s);
	}
	json_decref(res);
	/* The refs a model sends back, from any text. */
	if ((text = malloc(size - 1))) {
		memcpy(text, data + 2, size - 2);
		text[size - 2] = '\0';
		(void)snapshot_ref_node(text);
		free(text);
	}
	return 0;
}
