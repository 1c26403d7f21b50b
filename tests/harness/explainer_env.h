/*
 * explainer_env - what the explainer renderer's unit tests share: the
 * process-wide setup the renderer expects of its program (libxml2's
 * parser, the private fontconfig of renderer/fonts.h) as a cmocka
 * group setup and teardown, and the narration WAV svc-speech would write.
 */
#ifndef HB_EXPLAINER_ENV_H
#define HB_EXPLAINER_ENV_H

#include <stddef.h>

/* cmocka group setup: xmlInitParser and fonts_setup; a failure fails the
 * group with fonts_setup's sentence. */
int fx_explainer_setup(void **state);
/* cmocka group teardown: xmlCleanupParser. */
int fx_explainer_teardown(void **state);
/* dir/name: a WAV as svc-speech writes it, of n silent 24 kHz samples. */
void fx_speech_wav(const char *dir, const char *name, size_t n);

#endif
