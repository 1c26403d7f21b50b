/*
 * svc-video - the service of extract_video_context (Gemini video
 * understanding).
 * hb_http_service_main sets libcurl up before any thread exists.
 */
#include "http.h"
#include "video.h"

static const struct hb_service_tool tools[] = {
	{ "extract_video_context", video_extract },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	return hb_http_service_main(argc, argv, "svc-video", tools);
}
