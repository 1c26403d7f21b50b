/*
 * pty_screen - a program under a pseudo-terminal and its screen (see
 * pty_screen.h).  The terminal is POSIX's (posix_openpt, grantpt,
 * unlockpt, ptsname); the child makes it its controlling terminal with
 * setsid and open, so isatty and TIOCGWINSZ answer as in a real one.
 * The screen is kept as lines, the cursor on one of them: enough for a
 * program that writes whole lines and redraws a line from its start.
 */
#define _XOPEN_SOURCE 700 /* posix_openpt */

#include "pty_screen.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define SCREEN_LINES 4096

int pty_start(struct pty_prog *p, struct fixture *f, const char *prog, const char *const *args, int rows, int cols)
{
	struct winsize ws = { (unsigned short)rows, (unsigned short)cols, 0, 0 };
	const char *argv[32];
	char exe[600], *slave;
	int n = 0;

	memset(p, 0, sizeof *p);
	p->master = posix_openpt(O_RDWR | O_NOCTTY);
	if (p->master < 0 || grantpt(p->master) < 0 || unlockpt(p->master) < 0 || !(slave = ptsname(p->master)) ||
	    ioctl(p->master, TIOCSWINSZ, &ws) < 0) {
		fprintf(stderr, "pty_screen: no pseudo-terminal: %s\n", strerror(errno));
		if (p->master >= 0)
			close(p->master);
		return -1;
	}
	snprintf(exe, sizeof exe, "%s/%s", f->build, prog);
	argv[n++] = prog;
	for (const char *const *a = args; a && *a && n < 31; a++)
		argv[n++] = *a;
	argv[n] = NULL;
	p->pid = fork();
	if (p->pid == 0) {
		int fd;

#ifdef __linux__
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives a test stopped by its time limit */
#endif
		if (setsid() < 0 || (fd = open(slave, O_RDWR)) < 0)
			_exit(126);
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
		close(p->master);
		fx_use_env(f);
		execv(exe, (char *const *)argv);
		_exit(127);
	}
	if (p->pid < 0) {
		fprintf(stderr, "pty_screen: fork: %s\n", strerror(errno));
		close(p->master);
		return -1;
	}
	return 0;
}

ssize_t pty_read(struct pty_prog *p, int wait_ms)
{
	struct pollfd pfd = { p->master, POLLIN, 0 };
	ssize_t total = 0;
	char buf[4096];

	while (poll(&pfd, 1, total ? 0 : wait_ms) == 1 && (pfd.revents & POLLIN)) {
		ssize_t got = read(p->master, buf, sizeof buf);
		char *more;

		if (got <= 0)
			return total ? total : got < 0 && errno != EIO ? -1 : 0;
		if (!(more = realloc(p->raw, p->len + (size_t)got + 1)))
			return -1;
		p->raw = more;
		memcpy(p->raw + p->len, buf, (size_t)got);
		p->len += (size_t)got;
		p->raw[p->len] = '\0';
		total += got;
	}
	return total;
}

/* The count of a CSI sequence at s ("2A": 2; "A": 1), its final byte in
 * *final; the bytes it takes after "ESC[". */
static size_t csi(const char *s, size_t left, int *count, char *final)
{
	size_t i = 0;

	*count = 0;
	while (i < left && ((s[i] >= '0' && s[i] <= '9') || s[i] == ';' || s[i] == '?'))
		*count = s[i] >= '0' && s[i] <= '9' ? *count * 10 + (s[i] - '0') : *count, i++;
	*final = i < left ? s[i] : '\0';
	if (*count == 0)
		*count = 1;
	return i < left ? i + 1 : i;
}

char *pty_screen(const struct pty_prog *p)
{
	char **lines = calloc(SCREEN_LINES, sizeof *lines), *out = NULL;
	size_t *lens = calloc(SCREEN_LINES, sizeof *lens), row = 0, nlines = 1, col = 0, outlen = 0;
	FILE *f;

	for (size_t i = 0; lines && lens && i < p->len; i++) {
		char c = p->raw[i];

		if (c == '\033' && i + 1 < p->len && p->raw[i + 1] == '[') {
			int count;
			char final;

			i += 1 + csi(p->raw + i + 2, p->len - i - 2, &count, &final);
			if (final == 'A')
				row = row >= (size_t)count ? row - (size_t)count : 0;
			else if (final == 'B')
				row = row + (size_t)count < nlines ? row + (size_t)count : nlines - 1;
			else if (final == 'K')
				lens[row] = col;
			continue;
		}
		if (c == '\r') {
			col = 0;
		} else if (c == '\n') {
			if (row + 1 < SCREEN_LINES)
				row++;
			nlines = row + 1 > nlines ? row + 1 : nlines;
			col = 0;
		} else {
			char *more = realloc(lines[row], (col > lens[row] ? col : lens[row]) + 2);

			if (!more)
				break;
			lines[row] = more;
			lines[row][col++] = c;
			if (col > lens[row])
				lens[row] = col;
		}
	}
	if ((f = open_memstream(&out, &outlen))) {
		for (size_t r = 0; lines && lens && r < nlines; r++) {
			fwrite(lines[r] ? lines[r] : "", 1, lines[r] ? lens[r] : 0, f);
			fputc('\n', f);
		}
		fclose(f);
	}
	for (size_t r = 0; lines && r < SCREEN_LINES; r++)
		free(lines[r]);
	free(lines);
	free(lens);
	return out;
}

int pty_stop(struct pty_prog *p)
{
	int st = -1;

	if (p->pid > 0 && kill(p->pid, SIGINT) == 0)
		st = fx_wait_bounded(p->pid, 10000);
	close(p->master);
	free(p->raw);
	p->raw = NULL;
	return st;
}
