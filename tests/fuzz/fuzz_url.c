/*
 * fuzz_url - the URL parser (lib/url.c) and the YouTube link rules
 * built on it (svc-video/youtube.c): text from settings, from a model's
 * tool arguments, from Chrome's /json/version.
 *
 * The input is one URL, or two on either side of the first newline for
 * hb_url_same_origin.  Every part the parser hands back must lie inside
 * the text, and a YouTube link it accepts must be the canonical watch URL
 * with an 11-character ID.
 */
#include <stdlib.h>
#include <string.h>

#include "../../svc-video/youtube.h"
#include "fuzz.h"
#include "url.h"

/* An empty part may be a constant "" (no path, no query). */
static void inside(const char *text, size_t n, const char *part, size_t len)
{
	if (len && (!part || part < text || part + len > text + n))
		abort();
}

static void one_url(const char *s)
{
	struct hb_url u;
	char out[YOUTUBE_CANONICAL_MAX], err[256];
	static const char watch[] = "https://www.youtube.com/watch?v=";
	size_t n = strlen(s);

	if (hb_url_parse(s, &u) == 0) {
		inside(s, n, u.scheme, u.scheme_len);
		inside(s, n, u.host, u.host_len);
		inside(s, n, u.path, u.path_len);
		inside(s, n, u.query, u.query_len);
		inside(s, n, u.fragment, u.fragment_len);
		(void)hb_url_scheme_is(&u, "https");
		(void)hb_url_host_is(&u, "localhost");
		(void)hb_url_host_is_loopback(&u);
		(void)hb_url_transport_ok(&u);
		if (u.host)
			(void)youtube_is_host(u.host, u.host_len);
	}
	if (youtube_canonical(s, out, sizeof out, err, sizeof err) == 0) {
		if (strncmp(out, watch, sizeof watch - 1) != 0 || strlen(out) != sizeof watch - 1 + YOUTUBE_ID_LEN)
			abort();
	}
	/* Too small a buffer must fail, not overflow. */
	(void)youtube_canonical(s, out, 8, err, 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *nl;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	one_url(text);
	if ((nl = strchr(text, '\n'))) {
		*nl = '\0';
		one_url(text);
		one_url(nl + 1);
		(void)hb_url_same_origin(text, nl + 1);
	}
	free(text);
	return 0;
}
