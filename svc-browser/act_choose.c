/*
 * act_choose - choosing an option of a <select>, as a person's pick in
 * the list does: the action select (an option by its visible label, or
 * by its value when no label matches), and a click on an <option>, which
 * chooses it.  Chrome draws a select's open list outside the page (an
 * option has no box to click, and typing into a select changes nothing),
 * so the choice is made on the element itself, with the input and change
 * events a user's choice fires.
 */
#include <stdio.h>
#include <string.h>

#include "actions.h"

#define OPTIONS_NAMED 30   /* the options a "no such option" answer lists */

/* Runs on the select (want: the label or value) or on one of its options
 * (want null: that option).  Returns what was chosen, or why not. */
static const char choose_js[] =
	"function (want, named) {"
	" const label = (o) => (o.label || o.text || '').trim();"
	" const sel = this instanceof HTMLOptionElement ? this.closest('select') : this;"
	" if (!(sel instanceof HTMLSelectElement))"
	"  return { error: 'notselect', tag: (this.tagName || '').toLowerCase() };"
	" const opts = Array.from(sel.options);"
	" const o = this instanceof HTMLOptionElement ? this"
	"  : opts.find((x) => label(x) === String(want).trim()) || opts.find((x) => x.value === want);"
	" if (!o) return { error: 'nomatch', count: opts.length, options: opts.slice(0, named).map(label) };"
	" if (sel.disabled || o.disabled) return { error: 'disabled', label: label(o) };"
	" sel.focus();"
	" if (sel.multiple) opts.forEach((x) => { x.selected = x === o; }); else sel.value = o.value;"
	" sel.dispatchEvent(new Event('input', { bubbles: true }));"
	" sel.dispatchEvent(new Event('change', { bubbles: true }));"
	" return { label: label(o), value: o.value };"
	"}";

int act_node_tag(struct act *a, long node, char *tag, size_t taglen)
{
	json_t *res = NULL;
	const char *name;

	if (act_node_call(a, "DOM.describeNode", json_pack("{s:I}", "backendNodeId", (json_int_t)node), &res) < 0)
		return -1;
	name = json_string_value(json_object_get(json_object_get(res, "node"), "nodeName"));
	snprintf(tag, taglen, "%s", name ? name : "");
	json_decref(res);
	return 0;
}

/* The options a failed choice names: "Red", "Green" (and N more). */
static void options_named(const json_t *v, char *out, size_t outlen)
{
	const json_t *o;
	size_t i, used = 0;
	long long count = (long long)json_integer_value(json_object_get(v, "count"));

	*out = 0;
	json_array_foreach(json_object_get(v, "options"), i, o) {
		int n = snprintf(out + used, outlen - used, "%s\"%.60s\"", i ? ", " : "", json_string_value(o));

		if (n < 0 || (size_t)n >= outlen - used)
			break;
		used += (size_t)n;
	}
	if (count > (long long)json_array_size(json_object_get(v, "options")) && used < outlen)
		snprintf(out + used, outlen - used, " and %lld more",
			 count - (long long)json_array_size(json_object_get(v, "options")));
}

/* Say why the choice was not made: -1 after answering. */
static int refuse(struct act *a, const json_t *v, const char *want)
{
	const char *error = json_string_value(json_object_get(v, "error"));
	char names[1500];

	if (!error)
		error = "";
	if (strcmp(error, "notselect") == 0)
		return hb_call_failf(a->call, "The element is a <%.20s>, not a <select>: select chooses an option of a "
					      "drop-down list; click or type act on other elements.",
				     json_string_value(json_object_get(v, "tag"))), -1;
	if (strcmp(error, "disabled") == 0)
		return hb_call_failf(a->call, "The option \"%.100s\" (or its list) is disabled: the page does not let "
					      "it be chosen now.", json_string_value(json_object_get(v, "label"))), -1;
	options_named(v, names, sizeof names);
	return hb_call_failf(a->call, "The list has no option labelled or valued \"%.100s\". Its options: %s.", want,
			     *names ? names : "none"), -1;
}

/* Choose on node (a select, with want; or an option, want NULL) and
 * answer with the snapshot. */
static int choose(struct act *a, long node, const char *want)
{
	json_t *obj = NULL, *res = NULL, *v;
	const char *object_id;
	char head[300];
	int rc;

	if (act_node_call(a, "DOM.resolveNode", json_pack("{s:I}", "backendNodeId", (json_int_t)node), &obj) < 0)
		return -1;
	object_id = json_string_value(json_object_get(json_object_get(obj, "object"), "objectId"));
	if (!object_id) {
		json_decref(obj);
		return hb_call_fail(a->call, "The browser did not hand over the element: take a snapshot and try again.");
	}
	rc = act_node_call(a, "Runtime.callFunctionOn",
			   json_pack("{s:s, s:s, s:[{s:s?}, {s:i}], s:b}", "objectId", object_id, "functionDeclaration",
				     choose_js, "arguments", "value", want, "value", OPTIONS_NAMED, "returnByValue", 1),
			   &res);
	json_decref(obj);
	if (rc < 0)
		return -1;
	v = json_object_get(json_object_get(res, "result"), "value");
	if (json_object_get(res, "exceptionDetails") || !json_is_object(v)) {
		json_decref(res);
		return hb_call_fail(a->call, "The page's script kept the option from being chosen.");
	}
	if (json_object_get(v, "error")) {
		rc = refuse(a, v, want ? want : "");
		json_decref(res);
		return rc;
	}
	snprintf(head, sizeof head, "Selected \"%.100s\" (value \"%.100s\").", json_string_value(json_object_get(v, "label")),
		 json_string_value(json_object_get(v, "value")));
	json_decref(res);
	return act_answer_with_snapshot(a, head);
}

int act_choose_option(struct act *a, long node)
{
	return choose(a, node, NULL);
}

int action_select(struct act *a)
{
	const char *ref = json_string_value(json_object_get(a->args, "ref"));
	const char *selector = json_string_value(json_object_get(a->args, "selector"));
	const char *option = json_string_value(json_object_get(a->args, "option"));
	long node;

	if (!ref && !selector)
		return hb_call_fail(a->call, "Action select needs the list's ref (from a snapshot, like e12) or a selector.");
	if (!option)
		return hb_call_fail(a->call, "Action select needs the option to choose: its label as the page shows it "
					     "(or its value).");
	if (act_element(a, ref, selector, &node) < 0)
		return -1;
	return choose(a, node, option);
}
