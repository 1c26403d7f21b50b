/*
 * svc-video - the service of extract_video_context (Gemini video
 * understanding).
 * libcurl is set up before any thread exists (the spec's pre_init).
 */
#include "http.h"
#include "service.h"
#include "video.h"

static const struct hb_service_tool tools[] = {
	{ "extract_video_context", video_extract },
	{ NULL, NULL },
};

static const struct hb_service_spec spec = {
	.name = "svc-video",
	.tools = tools,
	.pre_init = hb_http_global_init,
	.at_exit = hb_http_global_cleanup,
};

int main(int argc, char **argv)
{
	return hb_service_run(argc, argv, &spec);
}
