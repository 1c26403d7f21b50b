/*
 * scale_standins - the stand-in bridges of the scale benchmark's part 3
 * (scale_attach.c): up to `max` connections to one broker, each attached
 * for a session of its own and repeating session.attach at the interval
 * the broker names, as the bridges do (bridge/deliveries.c), on a thread
 * of their own.  The part sets how many are attached and reads the
 * counters; everything between the threads is atomic.
 */
#ifndef BENCH_SCALE_STANDINS_H
#define BENCH_SCALE_STANDINS_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

struct standin;

struct standins {
	pthread_t thread;
	char endpoint[400];
	char (*sessions)[64];    /* max session ids, one a bridge: the part fills them in */
	int max;
	struct standin *b;
	atomic_int want;         /* bridges that should be attached */
	atomic_int attached;     /* of them, answered ok at least once */
	atomic_long replies;     /* session.attach answers, all told */
	atomic_int failed;       /* a bridge could not connect, or was refused */
	atomic_int stop;
};

/* Room for max bridges on the front socket of the broker folder dir (s is
 * cleared first); 0, or -1 when out of memory. */
int standins_init(struct standins *s, const char *dir, int max);
/* Start the bridges' thread, none attached yet; 0 or -1. */
int standins_start(struct standins *s);
/* k bridges attached, each having repeated its attach once since; 0, or
 * -1 after 30 s, a refusal (said on stderr) or *stop. */
int standins_switch(struct standins *s, int k, const volatile sig_atomic_t *stop);
/* Stop the thread that standins_start started (it detaches every
 * bridge first); 0, or -1 when it could not be joined. */
int standins_stop(struct standins *s);
/* Free what standins_init allocated (the thread is not running). */
void standins_free(struct standins *s);

#endif
