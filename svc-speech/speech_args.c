/*
 * speech_args - argument checks of synthesize_speech.  The voice table is
 * Gemini's own list (gemini.md, from the speech-generation page); a name
 * outside it would only come back from Gemini as a 400, after the wait.
 */
#include "speech_args.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "chunk.h"
#include "json.h"
#include "utf8.h"

static const char *const voices[] = {
	"Zephyr", "Puck", "Charon", "Kore", "Fenrir", "Leda", "Orus", "Aoede", "Callirrhoe", "Autonoe",
	"Enceladus", "Iapetus", "Umbriel", "Algieba", "Despina", "Erinome", "Algenib", "Rasalgethi",
	"Laomedeia", "Achernar", "Alnilam", "Schedar", "Gacrux", "Pulcherrima", "Achird", "Zubenelgenubi",
	"Vindemiatrix", "Sadachbia", "Sadaltager", "Sulafat", NULL,
};

const char *speech_voice_find(const char *voice)
{
	for (const char *const *v = voices; *v; v++)
		if (strcasecmp(*v, voice) == 0)
			return *v;
	return NULL;
}

/* A string of at most max characters (code points). */
static int text_field(const json_t *args, const char *key, int required, size_t max, const char **out,
		      char *err, size_t errlen)
{
	/* A code point takes at most 4 bytes: the byte check is only a first cut. */
	int rc = required ? hb_json_req_string(args, key, max * 4, out, err, errlen)
			  : hb_json_opt_string(args, key, max * 4, 0, out, err, errlen);

	if (rc == 0 && *out && hb_utf8_count(*out, strlen(*out)) > max) {
		snprintf(err, errlen, "\"%s\" is %zu characters long; at most %zu are accepted%s", key,
			 hb_utf8_count(*out, strlen(*out)), max,
			 required ? ": split the text over several calls" : "");
		return -1;
	}
	return rc;
}

int speech_args_parse(const json_t *args, struct speech_args *out, char *err, size_t errlen)
{
	static const char *const fields[] = { "text", "voice", "style", NULL };
	const char *voice;

	memset(out, 0, sizeof *out);
	if (hb_json_only_fields(args, fields, err, errlen) < 0 ||
	    text_field(args, "text", 1, SPEECH_TEXT_MAX_CHARS, &out->text, err, errlen) < 0 ||
	    hb_json_opt_string(args, "voice", 64, 1, &voice, err, errlen) < 0 ||
	    text_field(args, "style", 0, SPEECH_STYLE_MAX_CHARS, &out->style, err, errlen) < 0)
		return -1;
	out->text_len = strlen(out->text);
	if (speech_is_blank(out->text, out->text_len)) {
		snprintf(err, errlen, "\"text\" holds only blanks: there is nothing to speak");
		return -1;
	}
	if (out->style && speech_is_blank(out->style, strlen(out->style)))
		out->style = NULL;
	out->voice = speech_voice_find(voice ? voice : SPEECH_DEFAULT_VOICE);
	if (!out->voice) {
		size_t n = (size_t)snprintf(err, errlen, "unknown voice \"%s\"; ", voice);
		/* The shared helper's sentence lists the choices. */
		hb_json_check_choice("voice", voice, voices, err + (n < errlen ? n : errlen - 1),
				     n < errlen ? errlen - n : 1);
		return -1;
	}
	return 0;
}
