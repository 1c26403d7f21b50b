/*
 * log - stderr lines for people and journald: "time level process [key] text".
 *
 * One write(2) per line so lines from worker threads never interleave.  The
 * settings are read once, in hb_log_init, before any thread starts.
 */
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct log_settings {
	char process[48];
	enum hb_log_level min;
	int errors_fd;          /* hb_log_errors_to, or -1 */
};

/* Set once in hb_log_init() (and hb_log_errors_to) before threads start,
 * read-only afterwards. */
static struct log_settings settings = { "hbcode", HB_LOG_INFO, -1 };

static const char *const level_names[] = { "debug", "info", "warn", "error" };

void hb_log_init(const char *process)
{
	const char *env = getenv("HB_LOG");

	snprintf(settings.process, sizeof settings.process, "%s", process);
	settings.min = HB_LOG_INFO;
	if (env && strcmp(env, "debug") == 0)
		settings.min = HB_LOG_DEBUG;
	else if (env && strcmp(env, "warn") == 0)
		settings.min = HB_LOG_WARN;
	else if (env && strcmp(env, "error") == 0)
		settings.min = HB_LOG_ERROR;
}

void hb_log_errors_to(int fd)
{
	settings.errors_fd = fd;
}

void hb_log_error_text(const char *fmt, va_list ap)
{
	char text[1024]; /* broker/child_pipes.h's CHILD_PIPES_STATUS_MAX fits it */
	int r;
	size_t n;

	if (settings.errors_fd < 0)
		return;
	/* The text alone, one line, best effort like the log. */
	r = vsnprintf(text, sizeof text - 1, fmt, ap);
	if (r < 0)
		return;
	n = (size_t)r < sizeof text - 1 ? (size_t)r : sizeof text - 2;
	for (size_t i = 0; i < n; i++)
		if (text[i] == '\n' || text[i] == '\r')
			text[i] = ' ';
	text[n++] = '\n';
	(void)!write(settings.errors_fd, text, n);
}

int hb_log_enabled(enum hb_log_level level)
{
	return level >= settings.min;
}

size_t hb_log_format(char *line, size_t size, enum hb_log_level level, const char *key, const char *fmt,
		     va_list ap)
{
	struct timespec ts;
	struct tm tm;
	size_t n;
	int r;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(line, size, "%Y-%m-%dT%H:%M:%S", &tm);
	r = snprintf(line + n, size - n, ".%03ldZ %s %s[%ld]%s%s%s ",
		     ts.tv_nsec / 1000000, level_names[level], settings.process, (long)getpid(),
		     key ? " [" : "", key ? key : "", key ? "]" : "");
	if (r > 0 && (size_t)r < size - n)
		n += (size_t)r;
	r = vsnprintf(line + n, size - n, fmt, ap);
	if (r > 0)
		n += (size_t)r < size - n ? (size_t)r : size - n - 1;
	if (n >= size - 1)
		n = size - 2;
	line[n++] = '\n';
	line[n] = 0;
	return n;
}

void hb_vlog(enum hb_log_level level, const char *key, const char *fmt, va_list ap)
{
	char line[2048];
	size_t n;

	if (!hb_log_enabled(level))
		return;
	if (level == HB_LOG_ERROR) {
		va_list copy;

		va_copy(copy, ap);
		hb_log_error_text(fmt, copy);
		va_end(copy);
	}
	n = hb_log_format(line, sizeof line, level, key, fmt, ap);
	/* Best effort: a failed log line has nowhere else to go. */
	(void)!write(STDERR_FILENO, line, n);
}

void hb_log(enum hb_log_level level, const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hb_vlog(level, key, fmt, ap);
	va_end(ap);
}

void hb_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hb_vlog(HB_LOG_ERROR, NULL, fmt, ap);
	va_end(ap);
	exit(111);
}

void hb_escape(const void *bytes, size_t len, size_t max, char *out, size_t outlen)
{
	const unsigned char *p = bytes;
	size_t n = 0;

	if (!outlen)
		return;
	for (size_t i = 0; i < len && i < max && n + 5 < outlen; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
			out[n++] = (char)p[i];
		else
			n += (size_t)snprintf(out + n, outlen - n, "\\x%02x", p[i]);
	}
	out[n < outlen ? n : outlen - 1] = '\0';
}
