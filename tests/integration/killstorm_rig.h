/*
 * killstorm_rig - the kill storm that itest_killstorm.c runs and then
 * checks: the broker it runs against (two copies of svc-echo, echo-a and
 * echo-b, each with its own tools, and svc-sessions as deployed; quick
 * heartbeats, hang checks and restarts), the clients that call while it
 * lasts and the tally of what they saw, and the signals (SIGKILL, or
 * SIGSTOP and a later SIGCONT) sent through pidfds to random services'
 * copies.  The storm is one test, so there is one program: the test file
 * keeps what is checked, this one what is done.
 */
#ifndef TEST_KILLSTORM_RIG_H
#define TEST_KILLSTORM_RIG_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "../harness/harness.h"

/* The timings the allowed sentences quote (storm_env sets them). */
#define HANG_MS "1500"
#define CALL_WAIT_MS "5000"

/* The broker's environment for the storm and its services' sections
 * (for fx_deployed_config with svc-sessions). */
extern const char *const storm_env[];
extern const char storm_conf[];

/* The services the storm hits, by name. */
#define NSERVICES 3
extern const char *const services[NSERVICES];

#define MAX_OUTCOMES 64
#define MAX_PROBLEMS 16
#define MAX_STOPPED 4

/* ---- what the clients saw ------------------------------------------------ */

struct outcome {
	char tool[32];
	char text[512];
	long count;
};

struct tally {
	pthread_mutex_t lock;
	struct outcome errors[MAX_OUTCOMES];  /* distinct error sentences */
	int nerrors;
	long other_errors;                    /* past MAX_OUTCOMES distinct ones */
	char problems[MAX_PROBLEMS][768];     /* unanswered calls, wrong answers */
	int nproblems;
	long more_problems;
	long calls, ok, failed;
	long long slowest_ms;
};

void tally_reset(struct tally *t);

/* ---- the storm ------------------------------------------------------------- */

struct storm {
	struct fixture *f;
	char *guide;                    /* svc-sessions' answer to the guide */
	atomic_int stop;
	struct tally tally;
};

struct stopped {
	int pidfd;
	pid_t pid;
	long long cont_at_ms;
};

/* What the storm sent: signals, copies continued alive, targets missed
 * (between copies), and the copies stopped and not yet continued. */
struct storm_count {
	long kills, stops, conts, misses;
	struct stopped stopped[MAX_STOPPED];
	int nstopped;
};

/* The clients call while n signals go out (at most limit_s seconds);
 * then every stopped copy is continued and the clients finish their last
 * calls.  What they saw is in st->tally, what was sent in *sc. */
void run_storm(struct storm *st, long n, long limit_s, unsigned seed, struct storm_count *sc);

#endif
