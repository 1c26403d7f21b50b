/*
 * actions - what use_user_browser can do, one function each, called by
 * tool.c with the act set up (the connection, and the tab for the
 * actions that act on one).  Each answers the call itself.
 *
 *   tabs        the agent's tabs, and the user's (read only: title, url)
 *   open        a url in a new tab of the session, or in one of its tabs
 *   snapshot    the page's accessibility tree with refs
 *   read        the page's text, bounded (maxChars, offset)
 *   click       an element by ref (or selector); an <option> is chosen
 *   hover       the mouse over an element
 *   select      an option of a <select> by its label (or value)
 *   type        text into a field (clearing it), optionally submitting
 *   press       a key, or a combination (Control+A, Shift+Tab)
 *   scroll      the wheel over the page or an element: by an amount, to
 *               the end or start of what scrolls there (act_scroll.c)
 *   wait        for a text to appear, or for a navigation
 *   screenshot  PNG saved in the cache and given to the model
 *   close       one of the session's tabs
 *   back        the tab's previous page in its history
 *   forward     the tab's next page in its history
 *   dialog      answer the JavaScript dialog the page shows (act_dialog.c)
 */
#ifndef BROWSER_ACTIONS_H
#define BROWSER_ACTIONS_H

#include "act.h"

/* Before any action on a tab: a JavaScript dialog open on it (opened
 * since the last call, or left open then) is named in the answer, and
 * the action not done (but dialog and close): 0, or -1 after answering.
 * After it, action_epilogue keeps which dialog the call left open. */
int action_prelude(struct act *a);
void action_epilogue(struct act *a);

int action_tabs(struct act *a);
int action_open(struct act *a);
int action_close(struct act *a);
int action_wait(struct act *a);
int action_snapshot(struct act *a);
int action_read(struct act *a);
int action_screenshot(struct act *a);
int action_click(struct act *a);
int action_type(struct act *a);
int action_press(struct act *a);
int action_scroll(struct act *a);
int action_hover(struct act *a);
int action_select(struct act *a);
int action_back(struct act *a);
int action_forward(struct act *a);
int action_dialog(struct act *a);

/* The element's node name ("SELECT", "OPTION", ...) into tag: 0, or -1
 * after answering. */
int act_node_tag(struct act *a, long node, char *tag, size_t taglen);
/* Choose the <option> node in its list, as a click in the open list
 * does, and answer (act_choose.c). */
int act_choose_option(struct act *a, long node);

#endif
