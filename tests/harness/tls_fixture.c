/*
 * tls_fixture - the throwaway CA and server certificate of tls_fixture.h.
 * openssl runs directly (no shell: the names never meet a quoting rule),
 * in the folder, with its chatter sent to /dev/null; a failure names the
 * step.  EC P-256 keys, as they are quick to make; 2 days of validity, as
 * a test's folder never lives longer.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "tls_fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define EC_KEY "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"

/* openssl with argv (argv[0] is "openssl") in dir: 0 when it succeeded. */
static int openssl(const char *dir, const char *const *argv)
{
	pid_t pid;
	int status, null;

	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		if (chdir(dir) < 0 || (null = open("/dev/null", O_WRONLY)) < 0 || dup2(null, 1) < 0 ||
		    dup2(null, 2) < 0)
			_exit(127);
		execvp("openssl", (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The extensions of the server certificate: its names, and not a CA. */
static int write_ext(const struct tls_fixture *t, const char *names)
{
	char path[100];
	FILE *f;
	int ok;

	snprintf(path, sizeof path, "%s/ext.cnf", t->dir);
	if (!(f = fopen(path, "w")))
		return -1;
	ok = fprintf(f, "subjectAltName=%s\nbasicConstraints=CA:FALSE\n", names) > 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static int make_files(struct tls_fixture *t, const char *names)
{
	static const char *const ca[] = { "openssl", "req", "-x509", EC_KEY, "-keyout", "ca.key", "-out", "ca.pem",
					  "-days", "2", "-subj", "/CN=hbcode-test-ca", NULL };
	static const char *const csr[] = { "openssl", "req", EC_KEY, "-keyout", "server.key", "-out", "server.csr",
					   "-subj", "/CN=localhost", NULL };
	static const char *const sign[] = { "openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.pem",
					    "-CAkey", "ca.key", "-CAcreateserial", "-days", "2", "-extfile",
					    "ext.cnf", "-out", "server.pem", NULL };
	static const char *const other[] = { "openssl", "req", "-x509", EC_KEY, "-keyout", "other.key", "-out",
					     "other.pem", "-days", "2", "-subj", "/CN=another-ca", NULL };

	if (write_ext(t, names ? names : "DNS:localhost,IP:127.0.0.1") < 0) {
		fprintf(stderr, "tls_fixture: cannot write %s/ext.cnf\n", t->dir);
		return -1;
	}
	if (openssl(t->dir, ca) < 0 || openssl(t->dir, csr) < 0 || openssl(t->dir, sign) < 0 ||
	    openssl(t->dir, other) < 0) {
		fprintf(stderr, "tls_fixture: openssl could not make the test certificates in %s\n", t->dir);
		return -1;
	}
	return 0;
}

int tls_make(struct tls_fixture *t, const char *name, const char *names)
{
	memset(t, 0, sizeof *t);
	if ((size_t)snprintf(t->dir, sizeof t->dir, "/tmp/%s.XXXXXX", name) >= sizeof t->dir || !mkdtemp(t->dir)) {
		fprintf(stderr, "tls_fixture: cannot make a folder /tmp/%s.XXXXXX\n", name);
		t->dir[0] = '\0';
		return -1;
	}
	snprintf(t->ca, sizeof t->ca, "%s/ca.pem", t->dir);
	snprintf(t->cert, sizeof t->cert, "%s/server.pem", t->dir);
	snprintf(t->key, sizeof t->key, "%s/server.key", t->dir);
	snprintf(t->other_ca, sizeof t->other_ca, "%s/other.pem", t->dir);
	if (make_files(t, names) < 0) {
		tls_remove(t);
		return -1;
	}
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) == 0 ? 0 : -1;
}

int tls_remove(struct tls_fixture *t)
{
	int r = 0;

	/* Deepest first, not following links out of the folder. */
	if (t->dir[0])
		r = nftw(t->dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	t->dir[0] = '\0';
	return r == 0 ? 0 : -1;
}
