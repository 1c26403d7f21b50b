/*
 * prompt - the request text and JSON.  Built with jansson so that any
 * quote or control character in the text is escaped correctly.
 */
#include "prompt.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunk.h"

#define PREAMBLE "Synthesize speech: read the transcript below aloud, word for word, and say nothing else.\n"

/* Append n bytes of s to the growing string *buf. */
static int append(char **buf, size_t *len, const char *s, size_t n)
{
	char *b = realloc(*buf, *len + n + 1);

	if (!b)
		return -1;
	memcpy(b + *len, s, n);
	*len += n;
	b[*len] = '\0';
	*buf = b;
	return 0;
}

static int append_str(char **buf, size_t *len, const char *s)
{
	return append(buf, len, s, strlen(s));
}

/* The piece without the blanks around it (they carry nothing to say). */
static const char *trimmed(const char *piece, size_t *len)
{
	size_t start = 0, end = *len;

	while (start < end && speech_is_blank(piece + start, 1))
		start++;
	while (end > start && speech_is_blank(piece + end - 1, 1))
		end--;
	*len = end - start;
	return piece + start;
}

static char *prompt_text(const char *piece, size_t len, size_t index, size_t count, const char *style)
{
	char *buf = NULL, part[200];
	size_t n = 0;
	const char *words = trimmed(piece, &len);
	int rc = append_str(&buf, &n, PREAMBLE);

	if (style)
		rc |= append_str(&buf, &n, "### DIRECTOR'S NOTES (how to speak; never read them aloud)\n") |
		      append_str(&buf, &n, style) | append_str(&buf, &n, "\n");
	if (count > 1) {
		snprintf(part, sizeof part,
			 "### CONTEXT\nThis is part %zu of %zu of one continuous text. Do not say the part number "
			 "or anything about parts; keep the voice and pace of the other parts.\n",
			 index + 1, count);
		rc |= append_str(&buf, &n, part);
	}
	rc |= append_str(&buf, &n, SPEECH_TRANSCRIPT_HEADING) | append(&buf, &n, words, len);
	if (rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *speech_request_body(const char *piece, size_t len, size_t index, size_t count, const char *voice,
			  const char *style)
{
	char *text = prompt_text(piece, len, index, count, style), *body = NULL;
	json_t *req;

	if (!text)
		return NULL;
	req = json_pack("{s:[{s:s, s:[{s:s}]}], s:{s:[s], s:{s:{s:{s:s}}}}}",
			"contents", "role", "user", "parts", "text", text,
			"generationConfig", "responseModalities", "AUDIO",
			"speechConfig", "voiceConfig", "prebuiltVoiceConfig", "voiceName", voice);
	if (req)
		body = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	free(text);
	return body;
}
