/*
 * discover - find the user's browser.  Chrome 144 and later, once the
 * user allows remote debugging for the running instance, listen on
 * loopback and write DevToolsActivePort into their user data folder:
 * the port on the first line, the browser's WebSocket path on the
 * second.  Reading that file is the way Chrome DevTools for agents'
 * --autoConnect works, and it reaches the user's own profile rather than
 * a fresh one.
 *
 * The folders, in this order (the first whose browser takes the
 * connection wins, so a stale file of a browser that crashed, or one
 * whose port another program took since, does not hide a live one):
 *   Linux ($XDG_CONFIG_HOME, or ~/.config): google-chrome,
 *     google-chrome-beta, google-chrome-unstable, google-chrome-canary,
 *     chromium, microsoft-edge, microsoft-edge-beta, microsoft-edge-dev
 *   macOS (~/Library/Application Support): Google/Chrome, Google/Chrome
 *     Beta, Google/Chrome Dev, Google/Chrome Canary, Chromium, Microsoft
 *     Edge, Microsoft Edge Beta, Microsoft Edge Dev
 * The browser-url setting, when set, is used instead and resolved
 * through its /json/version; only its path is taken from the answer, the
 * host and port stay the setting's (a browser cannot send us elsewhere).
 */
#include "discover.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http.h"
#include "netaddr.h"
#include "regular_file.h"
#include "settings.h"
#include "url.h"

#define PROBE_MS 500
#define VERSION_TIMEOUT_MS 5000
#define TURN_ON "turn it on in Chrome at chrome://inspect/#remote-debugging (\"Allow remote debugging for this " \
		"browser instance\")"

static const char *const linux_folders[] = {
	"google-chrome", "google-chrome-beta", "google-chrome-unstable", "google-chrome-canary",
	"chromium", "microsoft-edge", "microsoft-edge-beta", "microsoft-edge-dev",
};
static const char *const mac_folders[] = {
	"Google/Chrome", "Google/Chrome Beta", "Google/Chrome Dev", "Google/Chrome Canary",
	"Chromium", "Microsoft Edge", "Microsoft Edge Beta", "Microsoft Edge Dev",
};

int discover_folders(char (*dirs)[HB_PATH_MAX], int max)
{
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	char base[HB_PATH_MAX];
	const char *const *names = linux_folders;
	int n = 0, count = (int)(sizeof linux_folders / sizeof linux_folders[0]);

#ifdef __APPLE__
	names = mac_folders;
	count = (int)(sizeof mac_folders / sizeof mac_folders[0]);
	if (!home || !*home)
		return 0;
	snprintf(base, sizeof base, "%s/Library/Application Support", home);
#else
	(void)mac_folders;
	if (xdg && xdg[0] == '/')
		snprintf(base, sizeof base, "%s", xdg);
	else if (home && *home)
		snprintf(base, sizeof base, "%s/.config", home);
	else
		return 0;
#endif
	for (int i = 0; i < count && n < max; i++)
		if (snprintf(dirs[n], HB_PATH_MAX, "%s/%s", base, names[i]) < HB_PATH_MAX)
			n++;
	return n;
}

/* Whether something accepts a TCP connection on 127.0.0.1:port now. */
static int port_answers(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };
	struct pollfd pfd;
	int fd, rc = 0, soerr = 0;
	socklen_t len = sizeof soerr;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
		return 0;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
		rc = 1;
	} else if (errno == EINPROGRESS) {
		pfd = (struct pollfd){ fd, POLLOUT, 0 };
		if (poll(&pfd, 1, PROBE_MS) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == 0 && !soerr)
			rc = 1;
	}
	close(fd);
	return rc;
}

/* DevToolsActivePort of dir: 1 with the port and path, 0 when there is
 * none, -2 when it was written after this service's start (its
 * confinement gives only the files there at the start), -1 with a
 * sentence in why when it is there but not a small regular file holding
 * the two lines Chrome writes.  Read without
 * blocking: a FIFO in its place must not hold this call (and the worker
 * it runs on) for ever. */
static int read_port_file(const char *dir, int *port, char *path, size_t pathlen, char *file, size_t filelen,
			  char *why, size_t whylen)
{
	char *buf, *nl, *end;
	size_t n;
	long v;
	int rc;

	snprintf(file, filelen, "%.1000s/DevToolsActivePort", dir);
	if (hb_read_regular_file(file, DISCOVER_FILE_MAX, &buf, &n, why, whylen) < 0) {
		/* Landlock refuses the open but not access(): a file that was
		 * not there when this service was confined (confine.h) */
		if (errno == EACCES && access(file, R_OK) == 0)
			return -2;
		return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	}
	rc = -1;
	if (!(nl = strchr(buf, '\n')))
		goto bad;
	*nl = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || *end || v < 1 || v > 65535)
		goto bad;
	nl[1 + strcspn(nl + 1, "\r\n")] = '\0';
	if (nl[1] != '/' || strlen(nl + 1) >= pathlen ||
	    strspn(nl + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/-_.") != strlen(nl + 1))
		goto bad;
	*port = (int)v;
	snprintf(path, pathlen, "%s", nl + 1);
	rc = 1;
bad:
	if (rc < 0)
		snprintf(why, whylen, "%s is not the two lines Chrome writes (a port, then a path)", file);
	free(buf);
	return rc;
}

/* Only loopback addresses, whatever the setting's host resolves to. */
static int loopback_only(void *arg, const struct sockaddr *sa, size_t len)
{
	(void)arg;
	return hb_netaddr_classify(sa, len) == HB_NETADDR_LOOPBACK;
}

/* Whether the browser at port is the one whose WebSocket path the file
 * names: 0 when its /json/version names another path (or answers 200 as
 * no Chrome does), 1 otherwise.  A Chrome started with
 * --remote-debugging-port answers with its webSocketDebuggerUrl; the
 * WebSocket-only mode of chrome://inspect answers 404 to every HTTP
 * request, and then only the Upgrade can tell (a Chrome answers a
 * browser path that is not its own with 404). */
static int port_is_that_browser(int port, const char *path, int (*cancelled)(void *), void *arg)
{
	char url[64];
	struct hb_http_request rq = { .method = "GET", .url = url, .connect_timeout_ms = PROBE_MS,
				      .timeout_ms = VERSION_TIMEOUT_MS, .max_answer = 65536, .cancelled = cancelled,
				      .cancel_arg = arg, .address_ok = loopback_only };
	struct hb_http_response rs;
	struct hb_url ws;
	const char *dbg;
	json_t *root = NULL;
	int same = 1;

	snprintf(url, sizeof url, "http://127.0.0.1:%d/json/version", port);
	if (hb_http_perform(&rq, &rs) == HB_HTTP_ANSWERED && rs.status == 200) {
		root = rs.body ? json_loadb(rs.body, rs.len, 0, NULL) : NULL;
		dbg = json_string_value(json_object_get(root, "webSocketDebuggerUrl"));
		same = dbg && hb_url_parse(dbg, &ws) == 0 && ws.path_len == strlen(path) &&
		       memcmp(ws.path, path, ws.path_len) == 0;
		json_decref(root);
	}
	hb_http_response_free(&rs);
	return same;
}

/* The sentence when no port file gave an endpoint. */
static void no_file_sentence(const char *stale, const char *taken, const char *bad, char *err, size_t errlen)
{
	if (stale[0] || taken[0])
		snprintf(err, errlen,
			 "Chrome is not running, or no longer allows remote debugging: %s names a port where %s (a "
			 "file left by a Chrome that ended). Start Chrome; if it runs, " TURN_ON ".",
			 stale[0] ? stale : taken,
			 stale[0] ? "nothing answers" : "another program or browser answers now");
	else if (bad[0])
		snprintf(err, errlen, "%s. Restart Chrome with remote debugging allowed.", bad);
	else
		snprintf(err, errlen,
			 "No Chrome allows remote debugging: no DevToolsActivePort file in Chrome's, Chromium's or "
			 "Edge's folders. Start Chrome and " TURN_ON ", or set its address with hbctl settings "
			 "browser-url set http://127.0.0.1:PORT.");
}

static int from_port_files(struct browser_endpoint *out, int max, int (*cancelled)(void *), void *arg, int *renew,
			   char *err, size_t errlen)
{
	char dirs[DISCOVER_MAX][HB_PATH_MAX], file[HB_PATH_MAX + 32], path[256], why[HB_PATH_MAX + 160],
		stale[HB_PATH_MAX + 32] = "", taken[HB_PATH_MAX + 32] = "", bad[HB_PATH_MAX + 160] = "",
		later[HB_PATH_MAX + 32] = "";
	int n = discover_folders(dirs, DISCOVER_MAX), found = 0;

	for (int i = 0; i < n && found < max; i++) {
		int port, rc = read_port_file(dirs[i], &port, path, sizeof path, file, sizeof file, why, sizeof why);

		if (rc == -2 && !later[0])
			snprintf(later, sizeof later, "%s", file);
		if (rc == -1 && !bad[0])
			snprintf(bad, sizeof bad, "%s", why);
		if (rc <= 0)
			continue;
		if (!port_answers(port)) {
			if (!stale[0])
				snprintf(stale, sizeof stale, "%s", file);
			continue;
		}
		if (!port_is_that_browser(port, path, cancelled, arg)) {
			if (!taken[0])
				snprintf(taken, sizeof taken, "%s", file);
			continue;
		}
		snprintf(out[found].ws_url, sizeof out[found].ws_url, "ws://127.0.0.1:%d%s", port, path);
		snprintf(out[found].source, sizeof out[found].source, "%s", file);
		out[found].from_file = 1;
		found++;
	}
	if (found > 0)
		return found;
	if (later[0]) {
		*renew = 1;
		snprintf(err, errlen,
			 "Chrome wrote %s after svc-browser started, and svc-browser may read only the port files that "
			 "were there at its start; it is starting anew to read it. Call again in a moment.",
			 later);
		return -1;
	}
	no_file_sentence(stale, taken, bad, err, errlen);
	return -1;
}

static int from_setting(const char *setting, struct browser_endpoint *out, int (*cancelled)(void *), void *arg,
			char *err, size_t errlen)
{
	char url[DISCOVER_URL_MAX];
	struct hb_http_request rq = { .method = "GET", .url = url, .connect_timeout_ms = VERSION_TIMEOUT_MS,
				      .timeout_ms = VERSION_TIMEOUT_MS, .max_answer = 65536, .cancelled = cancelled,
				      .cancel_arg = arg, .address_ok = loopback_only };
	struct hb_http_response rs;
	struct hb_url u, ws;
	enum hb_http_result r;
	const char *dbg;
	json_t *root = NULL;
	int rc = -1;

	if (hb_url_parse(setting, &u) < 0)
		return snprintf(err, errlen, "The browser-url setting is not a URL."), -1;
	snprintf(url, sizeof url, "http://%.*s:%ld/json/version", (int)u.host_len, u.host, u.port > 0 ? u.port : 80);
	r = hb_http_perform(&rq, &rs);
	if (r != HB_HTTP_ANSWERED) {
		snprintf(err, errlen,
			 "Nothing answers at %s (the browser-url setting): Chrome is not running there, or remote "
			 "debugging is off. Start Chrome with remote debugging, or fix the setting (hbctl settings "
			 "browser-url set http://127.0.0.1:PORT).",
			 setting);
		hb_http_response_free(&rs);
		return -1;
	}
	if (rs.status == 200 && rs.body)
		root = json_loadb(rs.body, rs.len, 0, NULL);
	dbg = json_string_value(json_object_get(root, "webSocketDebuggerUrl"));
	if (!dbg || hb_url_parse(dbg, &ws) < 0 || !hb_url_scheme_is(&ws, "ws") || ws.path_len == 0 ||
	    ws.path_len > 200) {
		snprintf(err, errlen,
			 "%s answers, but not as Chrome does (no webSocketDebuggerUrl in /json/version): is it "
			 "Chrome's remote debugging address?",
			 setting);
	} else {
		snprintf(out->ws_url, sizeof out->ws_url, "ws://%.*s:%ld%.*s", (int)u.host_len, u.host,
			 u.port > 0 ? u.port : 80, (int)ws.path_len, ws.path);
		snprintf(out->source, sizeof out->source, "the browser-url setting (%s)", setting);
		out->from_file = 0;
		rc = 0;
	}
	json_decref(root);
	hb_http_response_free(&rs);
	return rc;
}

int discover_browser(const struct hb_paths *p, struct browser_endpoint *out, int max, int (*cancelled)(void *),
		     void *arg, int *renew, char *err, size_t errlen)
{
	char setting[HB_BROWSER_URL_MAX + 1], why[512];

	memset(out, 0, (size_t)max * sizeof *out);
	if (hb_settings_browser_url(p, setting, sizeof setting, why, sizeof why) < 0) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	if (setting[0])
		return from_setting(setting, out, cancelled, arg, err, errlen) < 0 ? -1 : 1;
	return from_port_files(out, max, cancelled, arg, renew, err, errlen);
}
