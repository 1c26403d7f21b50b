/*
 * svc-speech - the service of synthesize_speech (Gemini text-to-speech).
 * libcurl is initialised here, once, before any thread exists.
 */
#include <curl/curl.h>
#include <stdio.h>

#include "service.h"
#include "speech.h"

static const struct hb_service_tool tools[] = {
	{ "synthesize_speech", speech_synthesize },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	int rc;

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, "svc-speech: libcurl cannot start\n");
		return 1;
	}
	rc = hb_service_main(argc, argv, "svc-speech", tools);
	curl_global_cleanup();
	return rc;
}
