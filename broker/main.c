/*
 * hb-broker - the kernel of hbcode-tools.
 *
 * Binds front (clients), back (services) and events (PUB) in the runtime
 * directory, starts the services of the config and runs one poll loop:
 * sockets, the signal self-pipe, and timers.  It owns no external I/O.
 * Under socket activation (hb-broker.socket, launchd's Sockets key) front
 * is the socket the service manager passed, once activation.c accepts it.
 *
 * SIGTERM/SIGINT: stop taking calls, give those in flight the shutdown
 * grace, answer the rest, stop the services (TERM, then KILL), remove the
 * sockets and exit 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "exe_path.h"
#include "activation.h"
#include "approvals.h"
#include "back.h"
#include "clock.h"
#include "broker.h"
#include "deliver.h"
#include "events.h"
#include "front.h"
#include "intake.h"
#include "launch.h"
#include "lock.h"
#include "log.h"
#include "notify.h"
#include "reap.h"
#include "route.h"
#include "runs.h"
#include "supervise.h"
#include "tunables.h"
#include "wait.h"
#include "wake.h"

/* How long the front socket may take to write its last answers at exit. */
#define FRONT_LAST_ANSWERS_MS 1000

static int signal_pipe[2] = { -1, -1 }; /* written by signal handlers only */

static void on_signal(int sig)
{
	int saved = errno;
	char c = (char)sig;

	(void)!write(signal_pipe[1], &c, 1);
	errno = saved;
}

static void load_settings(struct broker_settings *s)
{
	s->heartbeat_ms = hb_tunable(HB_T_HEARTBEAT_MS);
	s->hang_ms = hb_tunable_or(HB_T_HANG_MS, 3 * s->heartbeat_ms + 500);
	s->start_timeout_ms = hb_tunable(HB_T_START_TIMEOUT_MS);
	s->call_wait_ms = hb_tunable(HB_T_CALL_WAIT_MS);
	s->healthy_ms = hb_tunable(HB_T_HEALTHY_MS);
	s->backoff_base_ms = hb_tunable(HB_T_BACKOFF_BASE_MS);
	s->backoff_cap_ms = hb_tunable(HB_T_BACKOFF_CAP_MS);
	s->crashloop_after = hb_tunable(HB_T_CRASHLOOP_AFTER);
	s->stop_grace_ms = hb_tunable(HB_T_STOP_GRACE_MS);
	s->shutdown_grace_ms = hb_tunable(HB_T_SHUTDOWN_GRACE_MS);
	s->attach_ttl_ms = hb_tunable(HB_T_ATTACH_TTL_MS);
	s->launch_attach_ms = hb_tunable(HB_T_LAUNCH_ATTACH_MS);
	s->launch_retry_ms = hb_tunable(HB_T_LAUNCH_RETRY_MS);
}

static int usage(int help)
{
	fprintf(help ? stdout : stderr,
		"usage: hb-broker --config FILE [--libexec DIR]\n"
		"  Directories: HB_HOME, or HB_DATA_DIR/HB_CACHE_DIR/HB_CONFIG_DIR/HB_RUNTIME_DIR,\n"
		"  else XDG (docs/deploying.md).  HB_LOG=debug for more lines.\n");
	if (!help)
		return 100;
	printf("\nTunables (environment; a value out of range counts as unset):\n");
	hb_tunables_print(stdout);
	return 0;
}

/* fd >= 0: the listening socket the service manager passed for name
 * (ZMQ_USE_FD: ZeroMQ accepts on it instead of binding); its file is the
 * manager's, so it is not noted in sock_paths for removal at exit. */
static int bind_socket(void *sock, struct broker *b, int idx, const char *name, int fd)
{
	char ep[HB_PATH_MAX + 8];

	if (hb_ipc_endpoint(ep, sizeof ep, &b->paths, name) < 0) {
		log_error(NULL, "the runtime directory %s is too long for a socket path", b->paths.runtime);
		return -1;
	}
	if (fd >= 0 && zmq_setsockopt(sock, ZMQ_USE_FD, &fd, sizeof fd) < 0) {
		log_error(NULL, "cannot listen on the socket passed for %s: %s", ep, zmq_strerror(errno));
		return -1;
	}
	if (zmq_bind(sock, ep) < 0) {
		log_error(NULL, "cannot bind %s: %s", ep, zmq_strerror(errno));
		return -1;
	}
	/* hb_ipc_endpoint bounds the path well below HB_PATH_MAX. */
	if (fd < 0)
		memcpy(b->sock_paths[idx], ep + 6, strlen(ep + 6) + 1);
	return 0;
}

/* front_fd: the front socket passed by the service manager, or -1. */
static int open_sockets(struct broker *b, int front_fd)
{
	mode_t old = umask(0077); /* ipc sockets take their mode from the umask */
	int rc = -1;

	if (!(b->zctx = zmq_ctx_new()))
		goto out;
	b->front = hb_sock_router(b->zctx);
	b->back = hb_sock_router(b->zctx);
	b->pub = hb_sock_pub(b->zctx);
	if (!b->front || !b->back || !b->pub)
		goto out;
	if (bind_socket(b->front, b, 0, "front.sock", front_fd) < 0 || bind_socket(b->back, b, 1, "back.sock", -1) < 0 ||
	    bind_socket(b->pub, b, 2, "events.sock", -1) < 0 || wait_init(&b->wait, b->pub, b->back, b->front) < 0)
		goto out;
	rc = 0;
out:
	umask(old);
	return rc;
}

/* The front socket the service manager passed (1, *fd), none (0), or a
 * refusal: the broker does not start on a socket that is not its own. */
static int take_front_fd(struct broker *b, int *fd, char *err, size_t errlen)
{
	char path[HB_PATH_MAX];
	int rc;

	if (hb_path_join(path, sizeof path, b->paths.runtime, "front.sock") < 0) {
		snprintf(err, errlen, "the runtime directory %.200s is too long for a socket path", b->paths.runtime);
		return -1;
	}
	rc = activation_front_fd(path, fd, err, errlen);
	if (rc > 0)
		log_info(NULL, "socket activation: listening on %s, passed by the service manager", path);
	return rc;
}

static int setup_signals(void)
{
	struct sigaction sa;

	if (pipe(signal_pipe) < 0)
		return -1;
	for (int i = 0; i < 2; i++)
		if (fcntl(signal_pipe[i], F_SETFL, O_NONBLOCK) < 0 || fcntl(signal_pipe[i], F_SETFD, FD_CLOEXEC) < 0)
			return -1;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	if (sigaction(SIGCHLD, &sa, NULL) < 0 || sigaction(SIGTERM, &sa, NULL) < 0 ||
	    sigaction(SIGINT, &sa, NULL) < 0)
		return -1;
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static void begin_shutdown(struct broker *b)
{
	if (b->stopping)
		return;
	b->stopping = 1;
	b->stop_deadline_ms = broker_now_ms() + b->set.shutdown_grace_ms;
	/* A call held for its card would only hold the stop up: nobody may
	 * answer it in time. */
	approvals_end_held(b, "hb-broker is shutting down; try the call again when it is back");
	log_info(NULL, "stopping: %zu calls in flight get %d ms", b->calls.count, b->set.shutdown_grace_ms);
	notify_manager("STOPPING=1");
}

static void read_signals(struct broker *b)
{
	char buf[64];
	ssize_t n;

	while ((n = read(signal_pipe[0], buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == SIGCHLD)
				broker_reap(b);
			else
				begin_shutdown(b);
		}
}

static long long poll_timeout(const struct broker *b, long long now)
{
	long long d = supervisor_next_deadline(b), r = route_next_deadline(b), l = launch_next_deadline(b);
	long long a = deliver_next_deadline(b), t;

	if (r && (!d || r < d))
		d = r;
	if (l && (!d || l < d))
		d = l;
	if (a && (!d || a < d))
		d = a;
	if (b->stopping && (!d || b->stop_deadline_ms < d))
		d = b->stop_deadline_ms;
	if (!b->ready_notified && (!d || b->started_ms + b->set.start_timeout_ms < d))
		d = b->started_ms + b->set.start_timeout_ms;
	/* Nothing due: sleep until something arrives (issue 38: nothing
	 * awake when idle); a deadline never sleeps longer than a minute. */
	if (!d)
		return -1;
	t = d - now;
	return t < 0 ? 0 : (t > 60000 ? 60000 : t);
}

/* READY=1 once every service is up, or after the start timeout anyway:
 * a broken service must not keep the broker from serving the others. */
static void maybe_notify_ready(struct broker *b, long long now)
{
	if (b->ready_notified || b->stopping)
		return;
	if (!supervisor_all_up(b) && now < b->started_ms + b->set.start_timeout_ms)
		return;
	b->ready_notified = 1;
	notify_manager(supervisor_all_up(b) ? "READY=1\nSTATUS=serving"
					    : "READY=1\nSTATUS=serving; some services did not start");
	log_info(NULL, "serving");
}

#define LAUNCH_FDS (2 * LAUNCH_MAX) /* each launch: its output and its status fd */
_Static_assert(1 + WAKE_DIRS + LAUNCH_FDS <= WAIT_MAX_FDS,
	       "one sleep watches the signal pipe, the wake folders and every launch");

static void run(struct broker *b)
{
	int services_stopping = 0;

	for (;;) {
		struct pollfd fds[1 + WAKE_DIRS + LAUNCH_FDS] = { { .fd = signal_pipe[0], .events = POLLIN } };
		long long now = broker_now_ms();
		/* The wake folders' watches (wake.h), if any, then the output of
		 * the bridges it started, for its log, and their status fds. */
		int nwake = wake_poll_fds(b, &fds[1]);
		int nlaunch = launch_poll_fds(b, fds + 1 + nwake, LAUNCH_FDS);

		if (wait_sleep(&b->wait, fds, 1 + nwake + nlaunch, (int)poll_timeout(b, now)) < 0) {
			log_error(NULL, "poll failed: %s", strerror(errno));
			break;
		}
		for (int i = 1; i < 1 + nwake; i++)
			if (fds[i].revents & POLLIN) {
				wake_read(b);
				break;
			}
		for (int i = 1 + nwake; i < 1 + nwake + nlaunch; i++)
			if (fds[i].revents & (POLLIN | POLLERR | POLLHUP))
				launch_read(b, fds[i].fd);
		if (wait_due(&b->wait, WAIT_PUB)) /* first: a new watcher sees this round */
			wait_read(&b->wait, WAIT_PUB, events_read_subscriptions(b));
		if (fds[0].revents & POLLIN)
			read_signals(b);
		if (wait_due(&b->wait, WAIT_BACK))
			wait_read(&b->wait, WAIT_BACK, back_handle(b));
		if (wait_due(&b->wait, WAIT_FRONT))
			wait_read(&b->wait, WAIT_FRONT, front_handle(b));
		now = broker_now_ms();
		route_tick(b, now);
		deliver_tick(b, now);
		launch_tick(b, now);
		supervisor_tick(b, now);
		maybe_notify_ready(b, now);
		if (!b->stopping)
			continue;
		if (!services_stopping && (b->calls.count == 0 || now >= b->stop_deadline_ms)) {
			route_fail_all(b, "hb-broker stopped before this call finished; try the call again");
			supervisor_terminate_all(b);
			launch_terminate_all(b);
			services_stopping = 1;
		}
		if (services_stopping && supervisor_all_exited(b) && launch_all_exited(b))
			break;
	}
}

int main(int argc, char **argv)
{
	const char *config = NULL, *libexec = NULL;
	struct broker b;
	char err[768], exe_dir[HB_PATH_MAX];
	int front_fd = -1;

	hb_log_init("hb-broker");
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
			config = argv[++i];
		else if (strcmp(argv[i], "--libexec") == 0 && i + 1 < argc)
			libexec = argv[++i];
		else if (strcmp(argv[i], "--help") == 0)
			return usage(1);
		else
			return usage(0);
	}
	if (!config)
		return usage(0);
	if (!libexec) {
		/* Default: the folder of this executable's path as given. */
		snprintf(exe_dir, sizeof exe_dir, "%s", argv[0]);
		char *slash = strrchr(exe_dir, '/');
		snprintf(slash ? slash : exe_dir, sizeof exe_dir - (size_t)(slash ? slash - exe_dir : 0), "%s",
			 slash ? "" : ".");
		libexec = exe_dir;
	}
	memset(&b, 0, sizeof b);
	load_settings(&b.set);
	b.started_ms = broker_now_ms();
	if (hb_paths_resolve(&b.paths, err, sizeof err) < 0)
		hb_fatal("%s", err);
	/* Before the lock: a folder someone else made is refused, not used. */
	if (hb_paths_make_private(&b.paths, err, sizeof err) < 0)
		hb_fatal("%s", err);
	if (hb_path_join(b.lock_path, sizeof b.lock_path, b.paths.runtime, HB_BROKER_LOCK_FILE) < 0 ||
	    lock_take(b.lock_path, err, sizeof err) < 0)
		hb_fatal("%s", err);
	if (config_load(&b.cfg, config, libexec, err, sizeof err) < 0)
		hb_fatal("%s", err);
	/* The bridges the launcher starts are installed beside hb-broker; a
	 * broker started under another name (argv[0]) looks in --libexec. */
	if (hb_exe_dir(argv[0], b.exe_dir, sizeof b.exe_dir, err, sizeof err) < 0) {
		log_warn(NULL, "%s; the bridges for sessions without one are looked for in %s", err, libexec);
		snprintf(b.exe_dir, sizeof b.exe_dir, "%s", libexec);
	}
	if (setup_signals() < 0)
		hb_fatal("cannot set up signals: %s", strerror(errno));
	if (take_front_fd(&b, &front_fd, err, sizeof err) < 0)
		hb_fatal("%s", err);
	if (open_sockets(&b, front_fd) < 0)
		hb_fatal("cannot open the broker sockets");
	route_init(&b);
	hb_map_init(&b.thread_sessions);
	if (supervisor_init(&b, err, sizeof err) < 0)
		hb_fatal("%s", err);
	log_info(NULL, "pid %ld, runtime %s, %d services", (long)getpid(), b.paths.runtime, b.nservices);
	wake_init(&b);
	supervisor_start_all(&b);
	run(&b);

	for (int i = 0; i < 3; i++)
		if (b.sock_paths[i][0])
			unlink(b.sock_paths[i]);
	/* The last answers (route_fail_all's "hb-broker stopped before this
	 * call finished") are only queued when the loop ends; with the
	 * sockets' linger of 0 a busy machine's I/O thread could drop them
	 * before they are written, and the caller read "went away" instead.
	 * A bounded linger lets them reach every client still connected. */
	if (zmq_setsockopt(b.front, ZMQ_LINGER, &(int){ FRONT_LAST_ANSWERS_MS }, sizeof(int)) < 0)
		log_warn(NULL, "the last answers may be lost: %s", zmq_strerror(errno));
	zmq_close(b.front);
	zmq_close(b.back);
	zmq_close(b.pub);
	zmq_ctx_term(b.zctx);
	route_free(&b);
	deliver_free(&b);
	launch_free(&b);
	approvals_free(&b);
	intake_free(&b);
	runs_free(&b);
	supervisor_free(&b);
	wake_free(&b);
	config_free(&b.cfg);
	unlink(b.lock_path);
	log_info(NULL, "stopped");
	return 0;
}
