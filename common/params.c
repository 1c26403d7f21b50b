/*
 * params - see params.h.  Each parameter is one row; a tool reads it by
 * its id, so its key, variable and default are spelled here only.
 */
#include "params.h"

#include <stdlib.h>
#include <string.h>

static const struct hb_param params[HB_PARAM_COUNT] = {
	[HB_PARAM_CODEX_PATH] = { "codexPath", "HB_CODEX", HB_PARAM_TEXT, "codex", 0, 0,
				  "the Codex program the broker and svc-explainer start (a path, or a name on PATH)" },
	[HB_PARAM_AGENT_HOST] = { "agentHost", "HB_AGENT_HOST", HB_PARAM_TEXT, "", 0, 0,
				  "the command line of the Claude agent host (\"\": the one installed with hbcode)" },
	[HB_PARAM_CLAUDE_PATH] = { "claudePath", "HB_CLAUDE", HB_PARAM_TEXT, "", 0, 0,
				   "Claude's program for hbctl accounts (\"\": claude from PATH, else the agent host's)" },
	[HB_PARAM_CLAUDE_ACCOUNT] = { "claudeAccount", "HB_CLAUDE_ACCOUNT", HB_PARAM_TEXT, "default", 0, 0,
				      "the active Claude account (hbctl accounts use NAME)" },
	[HB_PARAM_GEMINI_BASE_URL] = { "geminiBaseUrl", "HB_GEMINI_BASE_URL", HB_PARAM_TEXT,
				       "https://generativelanguage.googleapis.com", 0, 0,
				       "where svc-speech and svc-video reach the Gemini API" },
	[HB_PARAM_SPEECH_MODEL] = { "speechModel", "HB_GEMINI_SPEECH_MODEL", HB_PARAM_TEXT,
				    "gemini-3.1-flash-tts-preview", 0, 0, "the Gemini model svc-speech speaks with" },
	[HB_PARAM_VIDEO_MODEL] = { "videoModel", "HB_GEMINI_VIDEO_MODEL", HB_PARAM_TEXT, "gemini-3.1-pro-preview", 0,
				   0, "the Gemini model svc-video watches videos with" },
	[HB_PARAM_VIDEO_TEMPERATURE] = { "videoTemperature", "HB_GEMINI_VIDEO_TEMPERATURE", HB_PARAM_NUMBER, "0.2",
					 0.0, 2.0, "svc-video's sampling temperature, from 0 to 2" },
	/* 0.05 minutes (3 s): a test's time limit. */
	[HB_PARAM_EXPLAINER_WORKER_MINUTES] = { "explainerWorkerMinutes", "HB_EXPLAINER_WORKER_MINUTES",
						HB_PARAM_NUMBER, "15", 0.05, 240,
						"how long svc-explainer's worker agent may run, in minutes" },
	[HB_PARAM_EXPLAINER_VOICE] = { "explainerVoice", "HB_EXPLAINER_VOICE", HB_PARAM_TEXT, "Kore", 0, 0,
				       "the voice of an explainer video's narration" },
	[HB_PARAM_RELAY_URL] = { "relayUrl", NULL, HB_PARAM_TEXT, "", 0, 0,
				 "the regional relay svc-alerts links to (hbctl settings relay-url set URL)" },
	[HB_PARAM_RELAY_CA_FILE] = { "relayCaFile", "HB_RELAY_CA_FILE", HB_PARAM_TEXT, "", 0, 0,
				     "a PEM file of the CAs a private relay's certificate is checked with (\"\": the "
				     "system's)" },
	[HB_PARAM_BROWSER_URL] = { "browserUrl", NULL, HB_PARAM_TEXT, "", 0, 0,
				   "Chrome's remote debugging address (\"\": its DevToolsActivePort is looked for)" },
	[HB_PARAM_REPLY_STYLE] = { "replyStyle", "HB_REPLY_STYLE", HB_PARAM_TEXT, "simplified-technical-english", 0,
				   0, "the reply style (simplified-technical-english or default); explainer workers "
				   "narrate in it" },
};

const struct hb_param *hb_param(enum hb_param_id id)
{
	return &params[id];
}

const struct hb_param *hb_param_find(const char *key)
{
	for (size_t i = 0; i < HB_PARAM_COUNT; i++)
		if (strcmp(params[i].key, key) == 0)
			return &params[i];
	return NULL;
}

double hb_param_default_number(const struct hb_param *prm)
{
	return strtod(prm->dflt, NULL);
}
