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
 *   screenshot  PNG of the view, the whole page or one element, saved in
 *               the cache and given to the model
 *   close       one of the session's tabs
 *   back        the tab's previous page in its history
 *   forward     the tab's next page in its history
 *   dialog      answer the JavaScript dialog the page shows (act_dialog.c)
 *   drag        an element onto another, with the mouse (act_drag.c)
 *   console     the page's console messages and uncaught exceptions since
 *               it was opened or last navigated (act_devtools.c)
 *   network     the page's requests since then, numbered (act_devtools.c)
 *   response    one of them: status, headers, body (act_response.c)
 *   evaluate    a script's JSON value, for full-auto access and above
 *               (act_evaluate.c)
 *   viewport    the tab's viewport size, scale and mobile emulation (act_emulate.c)
 *   pdf         the page printed to a PDF in the session's folder (act_pdf.c)
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
int action_drag(struct act *a);
int action_console(struct act *a);
int action_network(struct act *a);
int action_response(struct act *a);
int action_evaluate(struct act *a);
int action_viewport(struct act *a);
int action_pdf(struct act *a);

/* One mouse event on the tab at (x, y), type mouseMoved, mousePressed or
 * mouseReleased, with the left button held down meanwhile (held: a drag)
 * or not: 0, or -1 after answering (act_input.c). */
int act_mouse(struct act *a, const char *type, double x, double y, int held);
/* The middle of the element on the screen (the tab's viewport pixels),
 * scrolled into view first: 0, or -1 after answering (act_input.c). */
int act_element_centre(struct act *a, long node, double *x, double *y);

/* The element's node name ("SELECT", "OPTION", ...) into tag: 0, or -1
 * after answering. */
int act_node_tag(struct act *a, long node, char *tag, size_t taglen);
/* Choose the <option> node in its list, as a click in the open list
 * does, and answer (act_choose.c). */
int act_choose_option(struct act *a, long node);

#endif
