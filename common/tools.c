/*
 * tools - the hbcode tool table (the page's build_app_capabilities and
 * tool_approval in one place).
 *
 * Families name the service that serves a tool.  A family whose service is
 * not built yet is simply not in the broker's config, and a call to it gets
 * an honest "no service" error; the catalog issue decides how it is listed.
 */
#include "tools.h"

#include <string.h>

#define SESSIONS_HASH_NOTE \
	"A project is named by the SHA-256 hex of its canonical absolute path (action guide prints yours)."

#define NOTIFY_BASE \
	"Send one push alert about this session to the user's phone and desktop. Title at most " \
	"60 characters, body at most 180: put the outcome first. "
#define NOTIFY_IMPORTANT \
	"Use it only for a result the user is waiting for or a question that blocks your work."
#define NOTIFY_FREQUENT \
	"Use it for results, blocking questions, meaningful milestones and failures; do not send " \
	"routine progress updates."

static const struct hb_tool_def tool_table[] = {
	{
		"use_user_browser", "svc-browser", HB_CLASS_AGENT, HB_LIST_ALWAYS,
		"Use the user's own Chrome (their logged-in profile) while browser control is on. You see a page "
		"only through this tool: open a URL (a new tab of this session, or tab to navigate one of yours), "
		"then act on the snapshot it returns, the page's accessibility tree, where each element you can "
		"act on has a ref like e12. Actions: tabs (this session's tabs, and the user's, listed only), "
		"open {url, tab?}, snapshot {tab?, ref? or selector? (that element's part; a cut snapshot names the "
		"refs of the lists and tables near its cut), offset? (the next part a cut snapshot names)}, read {tab?, maxChars?, offset?} (the page's text, in parts), "
		"click {ref}, type {ref, text, submit?} (replaces the field's text; submit presses Enter), "
		"press {key} (Enter, Tab, Escape, arrows, PageDown, or one character), scroll {ref? or selector?, "
		"direction?, amount? or to?} (a real mouse wheel over the element, or the viewport's middle: "
		"what scrolls there moves, an inner list or the page; to end or start goes all the way; "
		"to view only brings the element into view), wait {text} or {navigation: true} (timeoutMs up to "
		"60000), screenshot "
		"{fullPage?} or {ref} (that element alone) (you get the image; it is saved too), close {tab}, "
		"hover {ref} (the mouse over it), "
		"select {ref, option} (a drop-down's option by its label, or value), back {tab?}, forward {tab?} "
		"(the tab's history), dialog {accept, text?} (answers the alert, confirm, prompt or beforeunload "
		"the page shows: accept true is OK, false Cancel; text is typed into a prompt; a tab with a dialog "
		"open does nothing else until it is answered), drag {ref, toRef} (drags the element onto the "
		"other with the mouse); press also takes a combination like Control+A or "
		"Shift+Tab. console {tab?} (the page's console messages and uncaught exceptions since it was "
		"opened or last navigated, newest last), network {tab?} (its requests since then, numbered), "
		"response {request, maxChars?, offset?} (one request's status, response headers and body), "
		"evaluate {expression} (runs JavaScript in the page and returns its JSON value; only for sessions "
		"with full-auto access or more, as a script there can do whatever the user's logged-in page can). "
		"viewport {width, height, deviceScaleFactor?, mobile?} sets the tab's viewport in CSS px "
		"(200 to 4000; mobile: a phone's layout and touch), viewport {reset: true} goes back to the window's; "
		"pdf {filename?} prints the page to a PDF saved in this session's folder (a plain name like "
		"report.pdf; the answer names the path). tab defaults to this session's "
		"newest; selector (CSS) may replace ref. You act only on tabs this session opened; the user's "
		"tabs are never navigated or closed.",
		"{\"type\":\"object\",\"properties\":{"
		"\"action\":{\"type\":\"string\",\"enum\":[\"tabs\",\"open\",\"snapshot\",\"read\",\"click\","
		"\"type\",\"press\",\"scroll\",\"wait\",\"screenshot\",\"close\","
		"\"hover\",\"select\",\"back\",\"forward\",\"dialog\",\"drag\","
		"\"console\",\"network\",\"response\",\"evaluate\",\"viewport\",\"pdf\"]},"
		"\"tab\":{\"type\":\"string\",\"description\":\"one of this session's tabs, like t1\"},"
		"\"url\":{\"type\":\"string\"},"
		"\"ref\":{\"type\":\"string\",\"description\":\"an element's ref from the latest snapshot, like e12 "
		"(f9e14 inside an iframe)\"},"
		"\"selector\":{\"type\":\"string\",\"description\":\"a CSS selector, when no ref fits\"},"
		"\"text\":{\"type\":\"string\"},\"submit\":{\"type\":\"boolean\"},\"key\":{\"type\":\"string\"},"
		"\"direction\":{\"type\":\"string\",\"enum\":[\"down\",\"up\"]},"
		"\"amount\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"pixels\"},"
		"\"navigation\":{\"type\":\"boolean\"},"
		"\"timeoutMs\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":60000},"
		"\"fullPage\":{\"type\":\"boolean\"},"
		"\"maxChars\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100000},"
		"\"offset\":{\"type\":\"integer\",\"minimum\":0},"
		"\"option\":{\"type\":\"string\",\"description\":\"select: the option's label (or value)\"},"
		"\"accept\":{\"type\":\"boolean\",\"description\":\"dialog: true for OK, false for Cancel\"},"
		"\"toRef\":{\"type\":\"string\",\"description\":\"drag: the ref of the element to drop on\"},"
		"\"toSelector\":{\"type\":\"string\",\"description\":\"drag: a CSS selector of it, when no ref fits\"},"
		"\"request\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"response: the number action network shows\"},"
		"\"expression\":{\"type\":\"string\",\"description\":\"evaluate: JavaScript run in the page\"},"
		"\"width\":{\"type\":\"integer\",\"minimum\":200,\"maximum\":4000,\"description\":\"viewport: CSS px\"},"
		"\"height\":{\"type\":\"integer\",\"minimum\":200,\"maximum\":4000,\"description\":\"viewport: CSS px\"},"
		"\"deviceScaleFactor\":{\"type\":\"number\",\"minimum\":0.5,\"maximum\":4,"
		"\"description\":\"viewport: device pixels per CSS px\"},"
		"\"mobile\":{\"type\":\"boolean\",\"description\":\"viewport: a phone's layout and touch\"},"
		"\"reset\":{\"type\":\"boolean\",\"description\":\"viewport: back to the window's\"},"
		"\"filename\":{\"type\":\"string\",\"description\":\"pdf: a plain file name like report.pdf\"},"
		"\"to\":{\"type\":\"string\",\"enum\":[\"end\",\"start\",\"view\"],\"description\":\"scroll: "
		"to the end or start of what scrolls there, or the element into view\"}},"
		"\"required\":[\"action\"],\"additionalProperties\":false}",
	},
	{
		"maintain_sessions", "svc-sessions", HB_CLASS_READ_ONLY, HB_LIST_ALWAYS,
		"Read-only view of the HB Code sessions. Actions: guide (how to use this tool), "
		"listSessions (sessions with their agent, project, access level and which one is active, "
		"newest first; 25 rows by default, at most 200; filter by projectDirectoryHash), "
		"resolveSession (the Codex thread or Claude session of one session). " SESSIONS_HASH_NOTE,
		"{\"type\":\"object\",\"properties\":{"
		"\"action\":{\"type\":\"string\",\"enum\":[\"guide\",\"listSessions\",\"resolveSession\"]},"
		"\"projectDirectoryHash\":{\"type\":\"string\",\"pattern\":\"^[0-9a-f]{64}$\"},"
		"\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":200},"
		"\"includeArchived\":{\"type\":\"boolean\"},"
		"\"agent\":{\"type\":\"string\",\"enum\":[\"codex\",\"claude\"]},"
		"\"targetSessionId\":{\"type\":\"string\"}},"
		"\"required\":[\"action\"],\"additionalProperties\":false}",
	},
	{
		"manage_sessions", "svc-sessions", HB_CLASS_AGENT, HB_LIST_ALWAYS,
		"Change HB Code sessions: create a session (title, agent, projectPath, accessLevel, model, "
		"effort), rename, archive, unarchive, make a session the active one of its project (activate), "
		"change its access level (setAccessLevel), or the model and effort its runs open with "
		"(setModel; what it leaves out is the agent's default). Returns the changed session.",
		"{\"type\":\"object\",\"properties\":{"
		"\"action\":{\"type\":\"string\",\"enum\":[\"create\",\"rename\",\"archive\",\"unarchive\","
		"\"activate\",\"setAccessLevel\",\"setModel\"]},"
		"\"targetSessionId\":{\"type\":\"string\"},\"title\":{\"type\":\"string\"},"
		"\"agent\":{\"type\":\"string\",\"enum\":[\"codex\",\"claude\"]},"
		"\"projectPath\":{\"type\":\"string\"},"
		"\"accessLevel\":{\"type\":\"string\",\"enum\":[\"read-only\",\"full-auto\",\"full-access\","
		"\"unrestricted\"]},"
		"\"model\":{\"type\":\"string\"},\"effort\":{\"type\":\"string\"}},"
		"\"required\":[\"action\"],\"additionalProperties\":false}",
	},
	{
		"send_session_message", "svc-messages", HB_CLASS_DESKTOP, HB_LIST_ALWAYS,
		"Send a message to another HB Code session (Codex or Claude). Find its id with "
		"maintain_sessions. Returns a receipt at once; do not wait or poll for an answer: "
		"it arrives later as a new message in this session.",
		"{\"type\":\"object\",\"properties\":{"
		"\"recipientSessionId\":{\"type\":\"string\"},\"message\":{\"type\":\"string\"}},"
		"\"required\":[\"recipientSessionId\",\"message\"],\"additionalProperties\":false}",
	},
	{
		"synthesize_speech", "svc-speech", HB_CLASS_AGENT, HB_LIST_GEMINI_KEY,
		"Turn text into a spoken WAV file with Gemini text-to-speech. Optional voice (one of the "
		"30 prebuilt voices, Kore by default) and style notes that are not read aloud. Answers "
		"{file, durationSeconds, parts, voice, model}.",
		"{\"type\":\"object\",\"properties\":{"
		"\"text\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":60000,"
		"\"description\":\"What to say, at most 60,000 characters.\"},"
		"\"voice\":{\"type\":\"string\",\"description\":\"A prebuilt Gemini voice, e.g. Kore (default), "
		"Puck, Charon, Zephyr, Aoede; any case.\"},"
		"\"style\":{\"type\":\"string\",\"maxLength\":2000,\"description\":\"Director's notes: how to "
		"speak (tone, pace, accent). Never read aloud.\"}},"
		"\"required\":[\"text\"],\"additionalProperties\":false}",
	},
	{
		"create_explainer_video", "svc-explainer", HB_CLASS_AGENT, HB_LIST_GEMINI_KEY,
		"Make a short narrated explainer video (an MP4 of 30-120 seconds: 16:9 1920x1080 by default, "
		"or 9:16 vertical or 1:1 square, at 30 or 60 fps) from a question, "
		"the facts and their sources: a private worker on this session's agent and model draws "
		"animated SVG scenes and reviews their frames, then the narration is spoken with Gemini and the "
		"video rendered with captions (WebVTT and SRT files beside it) and a poster frame. Answers "
		"{videoPath, durationSeconds, scenes, revision, format, width, height, fps, captionsPath, "
		"captionsSrtPath, posterPath, checks, limitations}. Pass a saved videoPath to revise that video (it "
		"keeps its format and fps unless you give new ones).",
		"{\"type\":\"object\",\"properties\":{"
		"\"question\":{\"type\":\"string\",\"description\":\"What the video answers.\"},"
		"\"facts\":{\"type\":\"string\",\"description\":\"The facts the video may use.\"},"
		"\"sources\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
		"\"description\":\"Where the facts come from (URLs or titles).\"},"
		"\"videoPath\":{\"type\":\"string\",\"description\":\"The absolute path of a video this tool "
		"saved, to revise it.\"},"
		"\"format\":{\"type\":\"string\",\"enum\":[\"16:9\",\"9:16\",\"1:1\"],\"description\":"
		"\"The picture: 16:9 (1920x1080, landscape, the default), 9:16 (1080x1920, vertical, for phones) "
		"or 1:1 (1080x1080, square).\"},"
		"\"fps\":{\"type\":\"integer\",\"enum\":[30,60],\"description\":\"Frames a second: 30 (the "
		"default) or 60.\"},"
		"\"captions\":{\"type\":\"string\",\"enum\":[\"file\",\"burn\"],\"description\":\"file (the "
		"default): captions as files beside the video; burn: also drawn into the picture.\"}},"
		"\"required\":[\"question\",\"facts\"],\"additionalProperties\":false}",
	},
	{
		"extract_video_context", "svc-video", HB_CLASS_AGENT, HB_LIST_GEMINI_KEY,
		"Watch a video (YouTube URL, public video URL, or a local file with consent) with Gemini "
		"and return timestamped notes for a goal, as a tutorial or a meeting.",
		"{\"type\":\"object\",\"properties\":{"
		"\"youtube_url\":{\"type\":\"string\"},\"video_url\":{\"type\":\"string\"},"
		"\"local_file\":{\"type\":\"string\"},\"localFileConsent\":{\"type\":\"boolean\"},"
		"\"intent\":{\"type\":\"string\",\"enum\":[\"tutorial\",\"meeting\"]},"
		"\"goal\":{\"type\":\"string\"}},"
		"\"required\":[\"intent\",\"goal\"],\"additionalProperties\":false}",
	},
	{
		"send_mobile_notification", "svc-alerts", HB_CLASS_AGENT, HB_LIST_NOTIFICATIONS,
		NOTIFY_BASE NOTIFY_IMPORTANT,
		"{\"type\":\"object\",\"properties\":{"
		"\"title\":{\"type\":\"string\",\"maxLength\":60},\"body\":{\"type\":\"string\",\"maxLength\":180}},"
		"\"required\":[\"title\",\"body\"],\"additionalProperties\":false}",
	},
};

const struct hb_tool_def *hb_tool_find(const char *name)
{
	for (size_t i = 0; i < sizeof tool_table / sizeof tool_table[0]; i++)
		if (strcmp(tool_table[i].name, name) == 0)
			return &tool_table[i];
	return NULL;
}

const struct hb_tool_def *hb_tools_all(size_t *n)
{
	*n = sizeof tool_table / sizeof tool_table[0];
	return tool_table;
}

const char *hb_approval_class_name(enum hb_approval_class c)
{
	switch (c) {
	case HB_CLASS_READ_ONLY: return "read-only";
	case HB_CLASS_DESKTOP: return "desktop";
	case HB_CLASS_AGENT: return "agent";
	}
	return "agent";
}

const char *hb_list_condition_name(enum hb_list_condition c)
{
	switch (c) {
	case HB_LIST_ALWAYS: return "always";
	case HB_LIST_GEMINI_KEY: return "gemini-key";
	case HB_LIST_NOTIFICATIONS: return "notifications";
	}
	return "always";
}

const char *hb_tool_description(const struct hb_tool_def *t, enum hb_notify_policy policy)
{
	if (t->listed == HB_LIST_NOTIFICATIONS && policy == HB_NOTIFY_FREQUENT)
		return NOTIFY_BASE NOTIFY_FREQUENT;
	return t->description;
}

int hb_tool_listed(const struct hb_tool_def *t, const struct hb_settings *s)
{
	switch (t->listed) {
	case HB_LIST_ALWAYS: return 1;
	case HB_LIST_GEMINI_KEY: return s->gemini_key;
	case HB_LIST_NOTIFICATIONS: return s->notifications;
	}
	return 0;
}
