/*
 * svc-speech - the service of synthesize_speech (Gemini text-to-speech).
 * hb_http_service_main sets libcurl up before any thread exists.
 */
#include "http.h"
#include "speech.h"

static const struct hb_service_tool tools[] = {
	{ "synthesize_speech", speech_synthesize },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	return hb_http_service_main(argc, argv, "svc-speech", tools);
}
