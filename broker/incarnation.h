/*
 * incarnation - the mechanism under the supervisor's policy: start, find,
 * stop and free the running copies (instances) of a service.
 */
#ifndef HB_INCARNATION_H
#define HB_INCARNATION_H

#include "broker.h"

#define SUPERVISOR_MAX_DRAINING 8
/* cur, next and every draining generation: the most a service lists. */
#define SUPERVISOR_MAX_LISTED (SUPERVISOR_MAX_DRAINING + 2)

/* Start a new incarnation of s from exec; NULL with err on failure. */
struct instance *incarnation_start(struct broker *b, struct service *s, const char *exec,
				   char *err, size_t errlen);
/* inst out of the child table, and freed. */
void incarnation_free(struct instance *inst);
/* TERM now, KILL once the stop grace has passed (supervisor_tick). */
void incarnation_terminate(struct broker *b, struct instance *inst, long long now);
/* An old instance (neither cur nor next) with no calls left gets its TERM. */
void incarnation_check_drained(struct broker *b, struct instance *inst);
/* 1 while inst's pid is still a child of this process (ended but not yet
 * reaped counts); 0 once it is not: the pid must never be signalled then. */
int incarnation_is_child(const struct instance *inst);
/* Every live instance of s (cur, next, the draining ones) into out[max];
 * returns the count. */
int supervisor_instances(const struct service *s, struct instance **out, int max);
/* How a log line names peer, a socket of inst (NULL: unknown): the
 * instance's id and the socket's suffix ("svc-x#3.w0"), without the
 * random part of its routing id. */
void incarnation_peer_name(const struct instance *inst, const struct hb_peer *peer, char *out, size_t outlen);
/* The instance behind a back-socket peer (its loop or one of its
 * workers), or NULL. */
struct instance *supervisor_instance(struct broker *b, const struct hb_peer *peer);

#endif
