/*
 * child - fork/exec with stdio pipes and an exec-failure pipe (see
 * broker/spawn.c for why only async-signal-safe work happens in between).
 */
#include "child.h"
#include "pdeath.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int cloexec_pipe(int fd[2])
{
	if (pipe(fd) < 0)
		return -1;
	if (fcntl(fd[0], F_SETFD, FD_CLOEXEC) < 0 || fcntl(fd[1], F_SETFD, FD_CLOEXEC) < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	return 0;
}

int child_spawn(struct child *c, char *const argv[], char *const envp[], int flags,
		char *err, size_t errlen)
{
	int to[2], from[2], ex[2], child_errno = 0;
	pid_t parent;
	ssize_t n;

	if (cloexec_pipe(to) < 0 || cloexec_pipe(from) < 0 || cloexec_pipe(ex) < 0) {
		snprintf(err, errlen, "cannot make pipes: %s", strerror(errno));
		return -1;
	}
	parent = getpid();
	c->pid = fork();
	if (c->pid == 0) {
		dup2(to[0], STDIN_FILENO);
		dup2(from[1], STDOUT_FILENO);
		if (flags & CHILD_OWN_GROUP)
			setpgid(0, 0);
		/* A parent that died before this line is not noticed by the
		 * kernel: then we are already orphaned, and go. */
		if ((flags & CHILD_PARENT_DEATH) && (hb_pdeath_kill() < 0 || getppid() != parent)) {
			child_errno = getppid() != parent ? ESRCH : errno;
			(void)!write(ex[1], &child_errno, sizeof child_errno);
			_exit(127);
		}
		signal(SIGPIPE, SIG_DFL);
		if (envp)
			environ = (char **)envp;
		execvp(argv[0], argv);
		child_errno = errno;
		(void)!write(ex[1], &child_errno, sizeof child_errno);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	close(ex[1]);
	if (c->pid < 0) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		close(to[1]);
		close(from[0]);
		close(ex[0]);
		return -1;
	}
	do
		n = read(ex[0], &child_errno, sizeof child_errno);
	while (n < 0 && errno == EINTR);
	close(ex[0]);
	if (n == (ssize_t)sizeof child_errno) {
		snprintf(err, errlen, "cannot execute %s: %s", argv[0], strerror(child_errno));
		waitpid(c->pid, NULL, 0);
		close(to[1]);
		close(from[0]);
		return -1;
	}
	c->in = to[1];
	c->out = from[0];
	return 0;
}

int child_wait(struct child *c)
{
	int st = 0;

	while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
}
