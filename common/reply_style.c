/*
 * reply_style - see reply_style.h.  The styles' texts are the desktop's
 * (page 000: "The desktop owns this setting and its instructions"), so
 * they are spelled here once; the explainer's brief only prints the one
 * the setting names.
 */
#include "reply_style.h"

#include <stdio.h>
#include <strings.h>

struct style {
	const char *key;  /* the setting's value */
	const char *name; /* as the desktop shows it */
	const char *narration;
};

/* Both styles keep what a spoken video needs: sentences for the ear,
 * and no words about what the viewer cannot hear (the page's Narration
 * section).  Simplified Technical English adds the ASD-STE100 writing
 * rules that apply to speech. */
static const struct style styles[] = {
	[REPLY_STYLE_STE] = {
		"simplified-technical-english", "Simplified Technical English",
		"## Narration (reply style: Simplified Technical English)\n"
		"Write the narration in Simplified Technical English (ASD-STE100), as short spoken "
		"sentences the way a person explains aloud: at most 20 words in a sentence and one idea "
		"in each; the active voice and the present tense; common words with one meaning each, "
		"and the same word for the same thing every time; no idioms, no slang. Never talk about "
		"the page, the screen, the slide, the scene or the layout (no \"as you can see\", no "
		"\"on the left\"): say what the viewer should understand. Do not read lists or numbers "
		"that only make sense written down.\n\n",
	},
	[REPLY_STYLE_DEFAULT] = {
		"default", "Default",
		"## Narration (reply style: Default)\n"
		"Write the narration as short spoken sentences, the way a person explains aloud. Never "
		"talk about the page, the screen, the slide, the scene or the layout (no \"as you can "
		"see\", no \"on the left\"): say what the viewer should understand. Do not read lists "
		"or numbers that only make sense written down.\n\n",
	},
};

int reply_style_parse(const char *value, enum reply_style *style, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof styles / sizeof styles[0]; i++)
		if (strcasecmp(value, styles[i].key) == 0 || strcasecmp(value, styles[i].name) == 0) {
			*style = (enum reply_style)i;
			return 0;
		}
	snprintf(err, errlen, "The reply style \"%.64s\" (setting replyStyle) is not one HB Code knows; "
		 "choose \"%s\" or \"%s\" in Settings > Agents > Reply style.", value,
		 styles[REPLY_STYLE_STE].key, styles[REPLY_STYLE_DEFAULT].key);
	return -1;
}

const char *reply_style_name(enum reply_style style)
{
	return styles[style].name;
}

const char *reply_style_narration(enum reply_style style)
{
	return styles[style].narration;
}
