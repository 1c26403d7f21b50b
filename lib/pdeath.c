/*
 * pdeath - PR_SET_PDEATHSIG on Linux, nothing elsewhere (see pdeath.h).
 */
#include "pdeath.h"

#ifdef __linux__
#include <signal.h>
#include <sys/prctl.h>

int hb_pdeath_kill(void)
{
	return prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 ? -1 : 0;
}

int hb_pdeath_signal(int sig)
{
	return prctl(PR_SET_PDEATHSIG, sig) < 0 ? -1 : 1;
}
#else
int hb_pdeath_kill(void)
{
	return 0;
}

int hb_pdeath_signal(int sig)
{
	(void)sig;
	return 0;
}
#endif
