/*
 * children - the broker's one table of its child processes, each with its
 * type: a service's incarnation (incarnation.c starts it, supervise.c
 * decides what its end means) or a bridge launched for a session
 * (launch.c).  One reaper: SIGCHLD → broker_reap (reap.h), which reaps
 * every child that ended and hands it to its type's owner.
 *
 * An entry lives inside its owner (struct instance, struct launch), so
 * adding one cannot fail; it is in the table from the fork to the reap.
 */
#ifndef HB_CHILDREN_H
#define HB_CHILDREN_H

#include <sys/types.h>

struct broker;

enum child_type { CHILD_SERVICE, CHILD_LAUNCH };

struct broker_child {
	pid_t pid;
	enum child_type type;
	void *owner;                    /* struct instance or struct launch */
	struct broker_child *next, **pprev; /* pprev NULL: not in the table */
};

/* e (inside owner) is in the table as pid's. */
void children_add(struct broker *b, struct broker_child *e, pid_t pid, enum child_type type, void *owner);
/* e is out of the table (nothing when it is not in it). */
void children_remove(struct broker_child *e);
/* The entry of pid (of type, or any type when type < 0), or NULL. */
struct broker_child *children_find(const struct broker *b, pid_t pid, int type);
/* How many children of type the table holds. */
int children_count(const struct broker *b, enum child_type type);
#endif
