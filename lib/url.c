/*
 * url - a small strict parser of absolute URLs.  Strict because each
 * caller decides from the host where data (and a key) goes: an odd byte
 * that two parsers could read differently is refused, not guessed at.
 */
#include "url.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int scheme_char(char c)
{
	return isalnum((unsigned char)c) || c == '+' || c == '-' || c == '.';
}

/* The host and port of an authority (userinfo already cut off). */
static int parse_host(const char *a, size_t n, struct hb_url *u)
{
	const char *colon;

	if (n > 0 && a[0] == '[') {
		const char *close = memchr(a, ']', n);
		if (!close)
			return -1;
		u->host = a;
		u->host_len = (size_t)(close - a) + 1;
		colon = u->host_len < n ? a + u->host_len : NULL;
		if (colon && *colon != ':')
			return -1;
	} else {
		colon = memchr(a, ':', n);
		u->host = a;
		u->host_len = colon ? (size_t)(colon - a) : n;
	}
	if (u->host_len == 0)
		return -1;
	if (colon) {
		size_t digits = n - (size_t)(colon - a) - 1;
		char buf[8];
		if (digits == 0 || digits > 5)
			return -1;
		memcpy(buf, colon + 1, digits);
		buf[digits] = '\0';
		for (size_t i = 0; i < digits; i++)
			if (!isdigit((unsigned char)buf[i]))
				return -1;
		u->port = strtol(buf, NULL, 10);
		if (u->port < 1 || u->port > 65535)
			return -1;
	}
	return 0;
}

int hb_url_parse(const char *url, struct hb_url *u)
{
	const char *p = url, *auth, *at, *end;
	size_t n;

	memset(u, 0, sizeof *u);
	u->port = -1;
	u->path = u->query = u->fragment = "";
	for (const unsigned char *c = (const unsigned char *)url; *c; c++)
		if (*c <= 0x20 || *c >= 0x7f || *c == '\\')
			return -1;
	if (!isalpha((unsigned char)*p))
		return -1;
	while (scheme_char(*p))
		p++;
	if (strncmp(p, "://", 3) != 0)
		return -1;
	u->scheme = url;
	u->scheme_len = (size_t)(p - url);
	auth = p + 3;
	end = auth + strcspn(auth, "/?#");
	/* The last '@' ends the userinfo, as browsers and libcurl read it. */
	for (at = NULL, p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	if (at) {
		u->userinfo = 1;
		auth = at + 1;
	}
	if (parse_host(auth, (size_t)(end - auth), u) < 0)
		return -1;
	p = end;
	n = strcspn(p, "?#");
	u->path = p;
	u->path_len = n;
	p += n;
	if (*p == '?') {
		u->has_query = 1;
		u->query = ++p;
		u->query_len = strcspn(p, "#");
		p += u->query_len;
	}
	if (*p == '#') {
		u->has_fragment = 1;
		u->fragment = p + 1;
		u->fragment_len = strlen(p + 1);
	}
	return 0;
}

int hb_url_scheme_is(const struct hb_url *u, const char *scheme)
{
	return strlen(scheme) == u->scheme_len && strncasecmp(u->scheme, scheme, u->scheme_len) == 0;
}

int hb_url_host_is(const struct hb_url *u, const char *host)
{
	return strlen(host) == u->host_len && strncasecmp(u->host, host, u->host_len) == 0;
}

int hb_url_host_is_loopback(const struct hb_url *u)
{
	return hb_url_host_is(u, "127.0.0.1") || hb_url_host_is(u, "[::1]") || hb_url_host_is(u, "localhost");
}

int hb_url_transport_ok(const struct hb_url *u)
{
	return hb_url_scheme_is(u, "https") || (hb_url_scheme_is(u, "http") && hb_url_host_is_loopback(u));
}

static long effective_port(const struct hb_url *u)
{
	if (u->port >= 0)
		return u->port;
	return hb_url_scheme_is(u, "https") ? 443 : hb_url_scheme_is(u, "http") ? 80 : -1;
}

int hb_url_same_origin(const char *a, const char *b)
{
	struct hb_url ua, ub;

	if (hb_url_parse(a, &ua) < 0 || hb_url_parse(b, &ub) < 0)
		return 0;
	return ua.scheme_len == ub.scheme_len && strncasecmp(ua.scheme, ub.scheme, ua.scheme_len) == 0 &&
	       ua.host_len == ub.host_len && strncasecmp(ua.host, ub.host, ua.host_len) == 0 &&
	       effective_port(&ua) == effective_port(&ub) && !ua.userinfo && !ub.userinfo;
}
