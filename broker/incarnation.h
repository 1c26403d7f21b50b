/*
 * incarnation - the mechanism under the supervisor's policy: start, find,
 * stop and free the running copies (instances) of a service.
 */
#ifndef HB_INCARNATION_H
#define HB_INCARNATION_H

#include "broker.h"

#define SUPERVISOR_MAX_DRAINING 8

/* Start a new incarnation of s from exec; NULL with err on failure. */
struct instance *incarnation_start(struct broker *b, struct service *s, const char *exec,
				   char *err, size_t errlen);
void incarnation_free(struct instance *inst);
/* TERM now, KILL once the stop grace has passed (supervisor_tick). */
void incarnation_terminate(struct broker *b, struct instance *inst, long long now);
struct instance *incarnation_by_pid(struct broker *b, pid_t pid);
/* Every live instance of s (cur, next, the draining ones) into out[max];
 * returns the count. */
int supervisor_instances(const struct service *s, struct instance **out, int max);
/* The instance behind a back-socket peer (its loop or one of its
 * workers), or NULL. */
struct instance *supervisor_instance(struct broker *b, const struct hb_peer *peer);

#endif
