/*
 * svc-speech - the service of synthesize_speech (Gemini text-to-speech).
 * libcurl is set up before any thread exists (the spec's pre_init).
 */
#include "http.h"
#include "service.h"
#include "speech.h"

static const struct hb_service_tool tools[] = {
	{ "synthesize_speech", speech_synthesize },
	{ NULL, NULL },
};

static const struct hb_service_spec spec = {
	.name = "svc-speech",
	.tools = tools,
	.pre_init = hb_http_global_init,
	.at_exit = hb_http_global_cleanup,
};

int main(int argc, char **argv)
{
	return hb_service_run(argc, argv, &spec);
}
