/*
 * claude_once - when a headless run of hb-claude-bridge (--once) ends.
 * The broker starts such a bridge for a session whose agent does not run,
 * only to carry in the session messages due for it (page 000: "a
 * recipient that does not run starts a turn for it").  Nobody is on its
 * stdin to close it, so it closes itself: once the turns those messages
 * started are idle and no delivery waits, or when nothing was handed to
 * it within HB_ONCE_IDLE_MS of the open (the broker found nothing to give
 * after all, or gave it to another bridge).
 */
#ifndef HB_CLAUDE_ONCE_H
#define HB_CLAUDE_ONCE_H

struct claude_once {
	int on;                         /* --once */
	int opened;                     /* the open went through: the idle limit runs */
	int handed;                     /* a message was taken to carry in */
	int idle_ms;
	long long idle_deadline_ms;
};

void claude_once_init(struct claude_once *o, int on, int idle_ms);
/* The host's open is answered and linked: the idle limit starts. */
void claude_once_opened(struct claude_once *o);
/* The broker handed a message that the bridge took. */
void claude_once_handed(struct claude_once *o);
/* Before each wait, while the run is not closing.  in_flight: a turn
 * runs or a delivery is not done.  Returns ms until the idle limit (-1:
 * nothing to wait for here), or -2 when the run should close now. */
long long claude_once_tick(struct claude_once *o, int in_flight);

#endif
