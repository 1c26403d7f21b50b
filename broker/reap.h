/*
 * reap - the broker's one reaper: after SIGCHLD, every child that ended
 * is reaped, taken out of the child table (children.h) and handed to the
 * owner its type names: a service's incarnation to the supervisor
 * (supervisor_instance_ended), a launched bridge to the launcher
 * (launch_ended).  Then the supervisor looks for instances that ended
 * unnoticed (supervisor_check_lost).
 */
#ifndef HB_REAP_H
#define HB_REAP_H

#include "broker.h"

void broker_reap(struct broker *b);

#endif
