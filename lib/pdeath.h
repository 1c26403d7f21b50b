/*
 * pdeath - the Linux seam for "die with the parent": a child started for
 * a service (svc-explainer's worker) must not outlive it when the service
 * is killed, which only Linux can promise (PR_SET_PDEATHSIG).  Elsewhere it
 * does nothing and the service's own stop is the only guard.
 */
#ifndef HB_PDEATH_H
#define HB_PDEATH_H

/* Ask for SIGKILL when the parent thread ends.  Called in a child between
 * fork and exec: async-signal-safe.  0, or -1 with errno. */
int hb_pdeath_kill(void);
/* Ask for sig when the parent thread ends, in the process itself (a
 * service's loop, which stops on SIGTERM): 1 when the system will send
 * it, 0 where it cannot (the caller must look for its parent itself),
 * -1 with errno. */
int hb_pdeath_signal(int sig);

#endif
