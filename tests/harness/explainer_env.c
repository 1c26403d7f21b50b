/*
 * explainer_env - the explainer renderer's unit tests' shared setup and
 * narration WAVs (see explainer_env.h).
 */
#include "explainer_env.h"

/* cmocka.h needs these before it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <libxml/parser.h>
#include <stdio.h>

#include "../../renderer/fonts.h"
#include "../../svc-speech/wav.h"

int fx_explainer_setup(void **state)
{
	char err[512];

	(void)state;
	xmlInitParser();
	if (fonts_setup(err, sizeof err) < 0)
		fail_msg("%s", err);
	return 0;
}

int fx_explainer_teardown(void **state)
{
	(void)state;
	xmlCleanupParser();
	return 0;
}

void fx_speech_wav(const char *dir, const char *name, size_t n)
{
	struct speech_wav w;
	char err[256], to[256];

	assert_int_equal(speech_wav_open(&w, dir, "speech", 24000, err, sizeof err), 0);
	assert_int_equal(speech_wav_silence(&w, n, err, sizeof err), 0);
	assert_int_equal(speech_wav_finish(&w, err, sizeof err), 0);
	snprintf(to, sizeof to, "%s/%s", dir, name);
	assert_int_equal(rename(w.path, to), 0);
}
