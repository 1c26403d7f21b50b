/*
 * itest_browser_input - the actions of use_user_browser that act as a
 * person's hand beyond a click (issue 35): hover, select, key
 * combinations for press, back and forward through a tab's history,
 * drag (HTML5 drag and drop, and a drag of pointer events), and the
 * wheel inside a container that scrolls by itself, driving a REAL headless Chromium on the local pages of
 * tests/browser/pages.mjs (the rig: browser_rig.h).  Each is checked on
 * the page's own state afterwards (what its scripts wrote from the events
 * they saw, read with the read action), not on the action's answer.
 */
#include "../harness/checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "browser_rig.h"

/* The page's text (the read action) must hold want. */
static void page_says(struct agent *a, const char *want)
{
	free(call(a, 1, want, "{\"action\":\"read\"}"));
}

/* ---- hover: the page sees a real mouse over the element ---------------- */

static void test_hover(void **state)
{
	char ref[16], args[200];
	char *t;

	(void)state;
	t = open_page(&A, "/menu", 1, "Opened ");
	assert_null(strstr(t, "Settings"));
	ref_of(t, "button \"Menu\"", ref, sizeof ref);
	free(t);
	page_says(&A, "Menu closed");
	snprintf(args, sizeof args, "{\"action\":\"hover\",\"ref\":\"%s\"}", ref);
	t = call(&A, 1, "The mouse is over ", args);
	/* the answer's snapshot shows the menu the page opened */
	assert_non_null(strstr(t, "link \"Settings\""));
	free(t);
	page_says(&A, "Menu opened by mouseover");
	free(call(&A, 0, "Action hover needs a ref", "{\"action\":\"hover\"}"));
}

/* ---- select: an option by label or value, with the user's events ------- */

static void test_select(void **state)
{
	char color[16], plain[16], args[300];
	char *t;

	(void)state;
	t = open_page(&A, "/choose", 1, "Opened ");
	ref_of(t, "combobox \"Colour\"", color, sizeof color);
	ref_of(t, "button \"Plain button\"", plain, sizeof plain);
	free(t);
	snprintf(args, sizeof args, "{\"action\":\"select\",\"ref\":\"%s\",\"option\":\"Green\"}", color);
	free(call(&A, 1, "Selected \"Green\" (value \"g\").", args));
	page_says(&A, "Events: input:g change:g");
	page_says(&A, "Value: g");
	/* by value when no label matches */
	snprintf(args, sizeof args, "{\"action\":\"select\",\"ref\":\"%s\",\"option\":\"b\"}", color);
	free(call(&A, 1, "Selected \"Blue\"", args));
	page_says(&A, "Value: b");
	/* no such option: the options are named, and nothing changes */
	snprintf(args, sizeof args, "{\"action\":\"select\",\"ref\":\"%s\",\"option\":\"Purple\"}", color);
	free(call(&A, 0, "Its options: \"Red\", \"Green\", \"Blue\".", args));
	/* not a select */
	snprintf(args, sizeof args, "{\"action\":\"select\",\"ref\":\"%s\",\"option\":\"Red\"}", plain);
	free(call(&A, 0, "not a <select>", args));
	free(call(&A, 0, "needs the option", "{\"action\":\"select\",\"selector\":\"#color\"}"));
	/* typing into a select points to select; the value stays */
	snprintf(args, sizeof args, "{\"action\":\"type\",\"ref\":\"%s\",\"text\":\"Red\"}", color);
	t = call(&A, 0, "use select {ref, option}", args);
	assert_null(strstr(t, "Typed"));
	free(t);
	page_says(&A, "Value: b");
	/* a click on an option chooses it, never a DevTools error */
	t = call(&A, 1, "Selected \"Red\"", "{\"action\":\"click\",\"selector\":\"#color option[value=r]\"}");
	assert_null(strstr(t, "layout object"));
	free(t);
	page_says(&A, "Events: input:g change:g input:b change:b input:r change:r");
}

/* ---- press: key combinations ------------------------------------------- */

static void test_key_combinations(void **state)
{
	char second[16], args[200];
	char *t;

	(void)state;
	t = open_page(&A, "/keys", 1, "Opened ");
	ref_of(t, "textbox \"Second\"", second, sizeof second);
	free(t);
	snprintf(args, sizeof args, "{\"action\":\"click\",\"ref\":\"%s\"}", second);
	free(call(&A, 1, "Clicked ", args));
	page_says(&A, "Focused: second");
	/* Control+A selects the field's text: the key typed next replaces it */
	free(call(&A, 1, "Pressed Control+A.", "{\"action\":\"press\",\"key\":\"Control+A\"}"));
	free(call(&A, 1, "Pressed x.", "{\"action\":\"press\",\"key\":\"x\"}"));
	page_says(&A, "Second: x");
	/* Shift+Tab moves the focus backwards */
	free(call(&A, 1, "Pressed Shift+Tab.", "{\"action\":\"press\",\"key\":\"Shift+Tab\"}"));
	page_says(&A, "Focused: first");
	free(call(&A, 0, "is not a modifier", "{\"action\":\"press\",\"key\":\"Hyper+A\"}"));
	free(call(&A, 0, "is not a key this tool presses", "{\"action\":\"press\",\"key\":\"Control+Nothing\"}"));
}

/* ---- back and forward through the tab's history ------------------------ */

static void test_back_forward(void **state)
{
	char tab[16], args[300];
	char *t;

	(void)state;
	t = open_page(&A, "/button", 1, "Opened ");
	tab_of(t, tab, sizeof tab);
	free(t);
	snprintf(args, sizeof args, "{\"action\":\"open\",\"tab\":\"%s\",\"url\":\"%s/form\"}", tab, P.base);
	free(call(&A, 1, "Opened ", args));
	page_says(&A, "Sign up");
	snprintf(args, sizeof args, "{\"action\":\"back\",\"tab\":\"%s\"}", tab);
	t = call(&A, 1, "Went back to ", args);
	assert_non_null(strstr(t, "/button)"));
	free(t);
	page_says(&A, "Button page");
	snprintf(args, sizeof args, "{\"action\":\"forward\",\"tab\":\"%s\"}", tab);
	t = call(&A, 1, "Went forward to ", args);
	assert_non_null(strstr(t, "/form)"));
	free(t);
	page_says(&A, "Sign up");
	/* at the end of the history: said, and the page stays */
	free(call(&A, 0, "has no page to go forward to", args));
	page_says(&A, "Sign up");
}

/* ---- drag: HTML5 drag and drop, and a drag made of pointer events ---- */

static void test_drag(void **state)
{
	char card[16], done[16], handle[16], slot[16], args[300];
	char *t;

	(void)state;
	t = open_page(&A, "/drag", 1, "Opened ");
	ref_of(t, "button \"Card\"", card, sizeof card);
	ref_of(t, "region \"Done\"", done, sizeof done);
	ref_of(t, "button \"Handle\"", handle, sizeof handle);
	ref_of(t, "region \"Slot\"", slot, sizeof slot);
	free(t);
	page_says(&A, "Nothing dropped");
	/* the page's drop handler gets the data its dragstart set */
	snprintf(args, sizeof args, "{\"action\":\"drag\",\"ref\":\"%s\",\"toRef\":\"%s\"}", card, done);
	free(call(&A, 1, "Dragged ", args));
	page_says(&A, "Dropped: card-1");
	/* mousedown on the handle, mouseup over the slot */
	snprintf(args, sizeof args, "{\"action\":\"drag\",\"ref\":\"%s\",\"toSelector\":\"#slot\"}", handle);
	free(call(&A, 1, "Dragged ", args));
	page_says(&A, "Handle in slot");
	snprintf(args, sizeof args, "{\"action\":\"drag\",\"ref\":\"%s\"}", card);
	free(call(&A, 0, "toRef, or toSelector", args));
	snprintf(args, sizeof args, "{\"action\":\"drag\",\"ref\":\"%s\",\"toRef\":\"%s\"}", card, card);
	free(call(&A, 0, "the same one twice", args));
	/* the drop targets, named regions, have refs too */
	snprintf(args, sizeof args, "{\"action\":\"hover\",\"ref\":\"%s\"}", slot);
	free(call(&A, 1, "The mouse is over ", args));
}

/* ---- scroll: the wheel inside a list that scrolls by itself ------------ */

/* The container an answer says scrolled ("element e45 (..."), into ref. */
static void scrolled_container(const char *answer, char *ref, size_t reflen)
{
	const char *at = strstr(answer, "element e");
	size_t n;

	if (!at)
		fail_msg("no container named:\n%.2000s", answer);
	at += strlen("element ");
	n = strspn(at + 1, "0123456789") + 1;
	assert_true(n > 1 && n < reflen);
	memcpy(ref, at, n);
	ref[n] = '\0';
}

static void test_scroll_inside(void **state)
{
	char row[16], list[16], args[200];
	char *t;

	(void)state;
	t = open_page(&A, "/inner-scroll", 1, "Opened ");
	assert_null(strstr(t, "button \"Row 100\""));
	ref_of(t, "button \"Row 2\"", row, sizeof row);
	free(t);
	/* no ref: the wheel over the viewport's middle, which is over the
	 * list: the list moves (window.scrollBy said "0 of 0" here) */
	t = call(&A, 1, "Scrolled down element e", "{\"action\":\"scroll\"}");
	assert_non_null(strstr(t, "now at 450 of 2500 pixels"));
	free(t);
	page_says(&A, "Inner at 450 of 2500");
	page_says(&A, "Wheels: 1 trusted");
	/* over a row: its list goes to its end, and the last row is drawn */
	snprintf(args, sizeof args, "{\"action\":\"scroll\",\"ref\":\"%s\",\"to\":\"end\"}", row);
	free(call(&A, 0, "from an earlier state of the page", args));
	t = call(&A, 1, "Scrolled element e", "{\"action\":\"scroll\",\"selector\":\"#space button\",\"to\":\"end\"}");
	if (!strstr(t, "to its end: now at 2500 of 2500 pixels."))
		fail_msg("not at the end:\n%.2000s", t);
	scrolled_container(t, list, sizeof list);
	ref_of(t, "button \"Row 100\"", row, sizeof row);
	assert_null(strstr(t, "button \"Row 2\""));
	free(t);
	page_says(&A, "Inner at 2500 of 2500");
	page_says(&A, "Wheels: 2 trusted");
	/* the drawn row's ref works */
	snprintf(args, sizeof args, "{\"action\":\"click\",\"ref\":\"%s\"}", row);
	free(call(&A, 1, "Clicked ", args));
	page_says(&A, "Clicked: Row 100");
	/* at the end: nothing moves, and it says so */
	snprintf(args, sizeof args, "{\"action\":\"scroll\",\"ref\":\"%s\",\"to\":\"end\"}", list);
	free(call(&A, 1, "Nothing scrolled", args));
	page_says(&A, "Wheels: 2 trusted");
	/* by an amount, up, over the container's own ref; then to its start */
	snprintf(args, sizeof args, "{\"action\":\"scroll\",\"ref\":\"%s\",\"direction\":\"up\",\"amount\":600}",
		 list);
	free(call(&A, 1, "now at 1900 of 2500 pixels", args));
	page_says(&A, "Inner at 1900 of 2500");
	snprintf(args, sizeof args, "{\"action\":\"scroll\",\"ref\":\"%s\",\"to\":\"start\"}", list);
	t = call(&A, 1, "to its start: now at 0 of 2500 pixels.", args);
	assert_non_null(strstr(t, "button \"Row 1\""));
	free(t);
	page_says(&A, "Inner at 0 of 2500");
	/* what it refuses */
	free(call(&A, 0, "takes to \"end\", \"start\"", "{\"action\":\"scroll\",\"to\":\"middle\"}"));
	free(call(&A, 0, "leave direction out", "{\"action\":\"scroll\",\"to\":\"end\",\"direction\":\"up\"}"));
	free(call(&A, 0, "an amount or to, not both", "{\"action\":\"scroll\",\"to\":\"end\",\"amount\":5}"));
	free(call(&A, 0, "needs the element's ref", "{\"action\":\"scroll\",\"to\":\"view\"}"));
	page_says(&A, "Inner at 0 of 2500");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hover),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_key_combinations),
		cmocka_unit_test(test_back_forward),
		cmocka_unit_test(test_drag),
		cmocka_unit_test(test_scroll_inside),
	};

	return ck_run_group_tests(tests, browser_setup, browser_teardown);
}
