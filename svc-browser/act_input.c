/*
 * act_input - the actions that act on a page as the user's hand would:
 * click, hover, type, press a key (or a combination: Control+A); the
 * wheel is act_scroll.c's.
 * Input goes through Chrome's input
 * events (Input.dispatch*), not through script, so the page sees what it
 * sees from a person: focus, mouse down and up, key events, trusted
 * events.  After a click or a key the answer waits for a navigation that
 * started (a link, a submitted form) and ends with the new snapshot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"

struct key {
	const char *name;
	const char *code;
	int vk;                /* windowsVirtualKeyCode */
	const char *text;      /* what it types, or NULL */
};

static const struct key keys[] = {
	{ "Enter", "Enter", 13, "\r" },       { "Tab", "Tab", 9, NULL },
	{ "Escape", "Escape", 27, NULL },     { "Backspace", "Backspace", 8, NULL },
	{ "Delete", "Delete", 46, NULL },     { "ArrowUp", "ArrowUp", 38, NULL },
	{ "ArrowDown", "ArrowDown", 40, NULL }, { "ArrowLeft", "ArrowLeft", 37, NULL },
	{ "ArrowRight", "ArrowRight", 39, NULL }, { "PageUp", "PageUp", 33, NULL },
	{ "PageDown", "PageDown", 34, NULL },  { "Home", "Home", 36, NULL },
	{ "End", "End", 35, NULL },           { "Space", "Space", 32, " " },
};

/* The element's ref or selector from the arguments: 0 with *node, or -1
 * after answering. */
static int target_node(struct act *a, const char *what, long *node)
{
	const char *ref = json_string_value(json_object_get(a->args, "ref"));
	const char *selector = json_string_value(json_object_get(a->args, "selector"));

	if (!ref && !selector)
		return hb_call_failf(a->call, "Action %s needs a ref (from a snapshot, like e12) or a selector.", what),
		       -1;
	return act_element(a, ref, selector, node);
}

/* The box around a quad: x, y, width, height. */
static void quad_bounds(const json_t *quad, double box[4])
{
	double x0 = json_number_value(json_array_get(quad, 0)), y0 = json_number_value(json_array_get(quad, 1));
	double x1 = x0, y1 = y0;

	for (size_t i = 1; i < 4; i++) {
		double x = json_number_value(json_array_get(quad, 2 * i)), y = json_number_value(json_array_get(quad, 2 * i + 1));

		x0 = x < x0 ? x : x0;
		x1 = x > x1 ? x : x1;
		y0 = y < y0 ? y : y0;
		y1 = y > y1 ? y : y1;
	}
	box[0] = x0;
	box[1] = y0;
	box[2] = x1 - x0;
	box[3] = y1 - y0;
}

/* In an out-of-process iframe the element is measured on its frame's
 * screen and moved by where the frame is on the tab's (actions.h). */
int act_element_centre(struct act *a, long node, double *x, double *y)
{
	json_t *res = NULL, *quad;
	double box[4];

	if (act_node_call(a, "DOM.scrollIntoViewIfNeeded", json_pack("{s:I}", "backendNodeId", (json_int_t)node), &res) < 0)
		return -1;
	json_decref(res);
	if (act_node_call(a, "DOM.getContentQuads", json_pack("{s:I}", "backendNodeId", (json_int_t)node), &res) < 0)
		return -1;
	quad = json_array_get(json_object_get(res, "quads"), 0);
	if (json_array_size(quad) != 8) {
		json_decref(res);
		return hb_call_fail(a->call, "The element is not visible on the page (it has no box to click): "
					     "take a snapshot and pick another."), -1;
	}
	*x = *y = 0;
	for (int i = 0; i < 4; i++) {
		*x += json_number_value(json_array_get(quad, (size_t)(2 * i))) / 4;
		*y += json_number_value(json_array_get(quad, (size_t)(2 * i + 1))) / 4;
	}
	quad_bounds(quad, box);
	json_decref(res);
	return act_node_on_tab(a, box, x, y);
}

int act_mouse(struct act *a, const char *type, double x, double y, int held)
{
	json_t *res = NULL;
	int pressing = strcmp(type, "mouseMoved") != 0;

	if (act_tab_call(a, "Input.dispatchMouseEvent",
			 json_pack("{s:s, s:f, s:f, s:s, s:i, s:i}", "type", type, "x", x, "y", y, "button",
				   pressing || held ? "left" : "none", "buttons", held ? 1 : 0, "clickCount",
				   pressing ? 1 : 0),
			 &res) < 0)
		return -1;
	json_decref(res);
	return 0;
}

int action_click(struct act *a)
{
	unsigned long mark;
	char head[128], tag[32];
	double x, y;
	long node;

	if (target_node(a, "click", &node) < 0 || act_node_tag(a, node, tag, sizeof tag) < 0)
		return -1;
	/* an option has no box of its own: Chrome draws the open list */
	if (strcmp(tag, "OPTION") == 0)
		return act_choose_option(a, node);
	if (act_element_centre(a, node, &x, &y) < 0)
		return -1;
	mark = cdp_event_mark(a->conn.cdp);
	if (act_mouse(a, "mouseMoved", x, y, 0) < 0 || act_mouse(a, "mousePressed", x, y, 0) < 0 ||
	    act_mouse(a, "mouseReleased", x, y, 0) < 0 || act_settle(a, mark) < 0)
		return -1;
	snprintf(head, sizeof head, "Clicked %s.", json_string_value(json_object_get(a->args, "ref"))
							   ? json_string_value(json_object_get(a->args, "ref"))
							   : "the element");
	return act_answer_with_snapshot(a, head);
}

int action_hover(struct act *a)
{
	unsigned long mark;
	char head[128];
	double x, y;
	long node;

	if (target_node(a, "hover", &node) < 0 || act_element_centre(a, node, &x, &y) < 0)
		return -1;
	mark = cdp_event_mark(a->conn.cdp);
	if (act_mouse(a, "mouseMoved", x, y, 0) < 0 || act_settle(a, mark) < 0)
		return -1;
	snprintf(head, sizeof head, "The mouse is over %s.", json_string_value(json_object_get(a->args, "ref"))
								    ? json_string_value(json_object_get(a->args, "ref"))
								    : "the element");
	return act_answer_with_snapshot(a, head);
}

/* The modifier keys of a combination, with their bit of the events'
 * modifiers (Alt 1, Control 2, Meta 4, Shift 8). */
static const struct modifier {
	const char *name;
	int bit;
	struct key key;
} modifiers[] = {
	{ "Alt", 1, { "Alt", "AltLeft", 18, NULL } },
	{ "Control", 2, { "Control", "ControlLeft", 17, NULL } },
	{ "Meta", 4, { "Meta", "MetaLeft", 91, NULL } },
	{ "Shift", 8, { "Shift", "ShiftLeft", 16, NULL } },
};
#define MODIFIERS (sizeof modifiers / sizeof modifiers[0])

static int key_event(struct act *a, const char *type, const struct key *k, const char *text, int mods)
{
	json_t *res = NULL, *p = json_pack("{s:s, s:s, s:s, s:i, s:i}", "type", type, "key", k->name, "code", k->code,
					 "windowsVirtualKeyCode", k->vk, "modifiers", mods);

	if (p && text && strcmp(type, "keyDown") == 0)
		json_object_set_new(p, "text", json_string(text));
	/* Chrome on a Mac runs no editing shortcut for a synthetic key: the
	 * command goes with it (Control+A or Meta+A selects all everywhere,
	 * as an agent means it; given once, it is run once) */
	if (p && (mods & (2 | 4)) && k->vk == 'A' && strcmp(type, "keyUp") != 0)
		json_object_set_new(p, "commands", json_pack("[s]", "selectAll"));
	if (act_tab_call(a, "Input.dispatchKeyEvent", p, &res) < 0)
		return -1;
	json_decref(res);
	return 0;
}

/* One key, with the modifiers held (their bits). */
static int press_with(struct act *a, const char *name, int mods)
{
	struct key one = { name, "", 0, name };
	const struct key *k = NULL;
	char code[16];

	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (strcmp(keys[i].name, name) == 0)
			k = &keys[i];
	if (!k) {
		/* one character types itself */
		size_t len = strlen(name);

		if (len == 0 || len > 4 || (len > 1 && ((unsigned char)name[0] < 0xc0)))
			return hb_call_failf(a->call,
					     "\"%.32s\" is not a key this tool presses: Enter, Tab, Escape, Backspace, "
					     "Delete, ArrowUp, ArrowDown, ArrowLeft, ArrowRight, PageUp, PageDown, Home, "
					     "End, Space, or one character; a combination puts Control+, Shift+, Alt+ or "
					     "Meta+ before one (Control+A).", name), -1;
		/* a letter or digit has its key code, which shortcuts (Control+A)
		 * are known by */
		if (len == 1 && ((*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z'))) {
			one.vk = *name & ~0x20;
			snprintf(code, sizeof code, "Key%c", (char)one.vk);
			one.code = code;
		} else if (len == 1 && *name >= '0' && *name <= '9') {
			one.vk = *name;
			snprintf(code, sizeof code, "Digit%c", *name);
			one.code = code;
		}
		k = &one;
	}
	/* with Control, Alt or Meta held a key is a shortcut, not text */
	return key_event(a, "keyDown", k, mods & ~8 ? NULL : k->text, mods) < 0 || key_event(a, "keyUp", k, NULL, mods) < 0
		       ? -1
		       : 0;
}

/* A key, or a combination ("Control+A", "Shift+Tab"): the modifiers go
 * down in order, the key is pressed, they come up in reverse. */
static int press(struct act *a, const char *name)
{
	size_t held[MODIFIERS], n = 0;
	const char *plus;
	int mods = 0, rc;

	while ((plus = strchr(name, '+')) && plus[1]) {
		size_t i, len = (size_t)(plus - name);

		for (i = 0; i < MODIFIERS; i++)
			if (strlen(modifiers[i].name) == len && strncmp(modifiers[i].name, name, len) == 0)
				break;
		if (i == MODIFIERS || (mods & modifiers[i].bit) || n == MODIFIERS)
			return hb_call_failf(a->call, "\"%.*s\" is not a modifier this tool holds: a combination is "
						      "Control, Shift, Alt or Meta (each once), +, then a key, like "
						      "Control+A or Shift+Tab.", (int)(len > 32 ? 32 : len), name), -1;
		mods |= modifiers[i].bit;
		if (key_event(a, "rawKeyDown", &modifiers[i].key, NULL, mods) < 0)
			return -1;
		held[n++] = i;
		name = plus + 1;
	}
	rc = press_with(a, name, mods);
	while (n > 0) {
		mods &= ~modifiers[held[--n]].bit;
		if (key_event(a, "keyUp", &modifiers[held[n]].key, NULL, mods) < 0)
			return -1;
	}
	return rc;
}

int action_press(struct act *a)
{
	const char *key = json_string_value(json_object_get(a->args, "key"));
	unsigned long mark;
	char head[96];

	if (!key)
		return hb_call_fail(a->call, "Action press needs a key (Enter, Tab, Escape, ... or one character, or a "
					     "combination like Control+A).");
	mark = cdp_event_mark(a->conn.cdp);
	if (press(a, key) < 0 || act_settle(a, mark) < 0)
		return -1;
	snprintf(head, sizeof head, "Pressed %.32s.", key);
	return act_answer_with_snapshot(a, head);
}

int action_type(struct act *a)
{
	const char *text = json_string_value(json_object_get(a->args, "text"));
	int submit = json_is_true(json_object_get(a->args, "submit"));
	json_t *res = NULL, *obj = NULL;
	const char *object_id;
	unsigned long mark;
	char tag[32];
	long node;

	if (!text)
		return hb_call_fail(a->call, "Action type needs the text to type.");
	if (target_node(a, "type", &node) < 0 || act_node_tag(a, node, tag, sizeof tag) < 0)
		return -1;
	if (strcmp(tag, "SELECT") == 0 || strcmp(tag, "OPTION") == 0)
		return hb_call_fail(a->call, "The element is a drop-down list (<select>), which typing does not change: "
					     "use select {ref, option} with the option's label.");
	if (act_node_call(a, "DOM.focus", json_pack("{s:I}", "backendNodeId", (json_int_t)node), &res) < 0)
		return -1;
	json_decref(res);
	/* the field's old text goes first, as a person selects it and types
	 * over it: type means "the field says this" */
	if (act_node_call(a, "DOM.resolveNode", json_pack("{s:I}", "backendNodeId", (json_int_t)node), &obj) < 0)
		return -1;
	object_id = json_string_value(json_object_get(json_object_get(obj, "object"), "objectId"));
	if (object_id) {
		if (act_node_call(a, "Runtime.callFunctionOn",
				 json_pack("{s:s, s:s}", "objectId", object_id, "functionDeclaration",
					   "function () { if (typeof this.select === 'function') this.select();"
					   " else if (this.isContentEditable) document.execCommand('selectAll'); }"),
				 &res) < 0) {
			json_decref(obj);
			return -1;
		}
		json_decref(res);
	}
	json_decref(obj);
	if (act_tab_call(a, "Input.insertText", json_pack("{s:s}", "text", text), &res) < 0)
		return -1;
	json_decref(res);
	if (submit) {
		mark = cdp_event_mark(a->conn.cdp);
		if (press(a, "Enter") < 0 || act_settle(a, mark) < 0)
			return -1;
	}
	return act_answer_with_snapshot(a, submit ? "Typed the text and pressed Enter." : "Typed the text.");
}
