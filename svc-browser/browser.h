/*
 * browser - what svc-browser's calls share: the one connection to the
 * user's browser (opened on the first call that needs it, opened again
 * after Chrome restarted) and the tabs each HB Code session opened, which
 * are the only tabs its agent may act on.
 */
#ifndef BROWSER_BROWSER_H
#define BROWSER_BROWSER_H

#include <pthread.h>
#include <stdatomic.h>

#include "cdp.h"
#include "paths.h"

#define TAB_ID_MAX 16
#define TAB_OWNER_MAX 160
#define TABS_MAX 256
#define TABS_GONE_MAX 64

struct tab {
	char id[TAB_ID_MAX];          /* "t1": the agent's name for it */
	char target[64];              /* Chrome's targetId */
	char owner[TAB_OWNER_MAX];    /* the HB Code session that opened it ("" for the user's hbctl) */
	char session[64];             /* its DevTools session on the connection of generation gen */
	unsigned gen;
	unsigned long mark;           /* its events were looked at up to here */
	char dialog_type[16];         /* the JavaScript dialog open on it ("" none): alert, confirm, prompt, beforeunload */
	char dialog_message[400];     /* its message, cut */
};

struct browser {
	pthread_mutex_t lock;
	struct cdp *cdp;              /* NULL until the first call connects */
	unsigned gen;                 /* bumped on each new connection */
	struct tab tabs[TABS_MAX];
	int ntabs;
	unsigned next_tab;
	/* The targets forgotten last (a ring): Chrome lists a closed tab a
	 * little longer, and one of them must not be adopted again. */
	char gone[TABS_GONE_MAX][64];
	unsigned ngone;
};

/* A call's view: the connection (a reference) and its generation. */
struct browser_conn {
	struct cdp *cdp;
	unsigned gen;
	int renew;          /* connecting failed until this service starts anew (discover.h) */
};

int browser_init(struct browser *b);
void browser_destroy(struct browser *b);

/* The live connection, opened (or opened again) if needed: 0 with *out
 * (release with browser_release), or -1 with a sentence that says what
 * the user can do. */
int browser_connect(struct browser *b, const struct hb_paths *p, const atomic_int *cancel, struct browser_conn *out,
		    char *err, size_t errlen);
void browser_release(struct browser_conn *c);

/* Tabs.  A copy of owner's tab id (or, with id "" or NULL, owner's most
 * recent tab), attached on this connection: 0 with *out, or -1 with a
 * sentence (no such tab of yours, it was closed). */
int browser_tab(struct browser *b, struct browser_conn *c, const char *owner, const char *id,
		const atomic_int *cancel, struct tab *out, char *err, size_t errlen);
/* A new tab of owner at about:blank: 0 with *out (attached), -1 with err. */
int browser_new_tab(struct browser *b, struct browser_conn *c, const char *owner, const atomic_int *cancel,
		    struct tab *out, char *err, size_t errlen);
/* Forget a tab (closed by the agent, or found gone): never adopted again. */
void browser_forget_tab(struct browser *b, const char *target);
/* Remember how far a tab's events were looked at. */
void browser_tab_seen(struct browser *b, const char *target, unsigned long mark);
/* Remember the JavaScript dialog open on t's tab (its dialog_type and
 * dialog_message; dialog_type "" for none), as act_dialog.c saw it. */
void browser_tab_dialog(struct browser *b, const struct tab *t);
/* A tab that one of the sessions' tabs opened (a link's target=_blank,
 * window.open: Chrome's openerId) is that session's, as if its agent had
 * opened it: 1 when target was taken so, 0 when it is known already,
 * was forgotten, or opener is no session's tab. */
int browser_adopt_opened(struct browser *b, const char *target, const char *opener);
/* Whose the tab with this target is, as owner may see it. */
enum tab_whose {
	TAB_USERS,    /* no session opened it (the user's own, or one from before svc-browser restarted) */
	TAB_MINE,     /* owner opened it: its id is written */
	TAB_OTHERS,   /* another session opened it: owner is not told of it at all */
	TAB_CLOSED,   /* a session's tab that was closed: Chrome still lists it a little longer */
};
enum tab_whose browser_tab_whose(struct browser *b, const char *owner, const char *target, char *id, size_t idlen);

#endif
