/*
 * svc-explainer - the service of create_explainer_video.  Before any
 * thread: libxml2's parser and the renderer's private fonts (both are
 * process-wide set-ups that must not race), and the entries a killed
 * incarnation left half-committed are settled, so that every videoPath
 * names a whole video before the first call comes.  Its background task
 * ends the timeline rows a killed incarnation left open.
 */
#include <libxml/parser.h>
#include <stdio.h>

#include "explain.h"
#include "fonts.h"
#include "log.h"
#include "paths.h"
#include "service.h"
#include "videos.h"

static int explainer_pre_init(void)
{
	struct hb_paths p;
	char err[1024];

	xmlInitParser();
	if (fonts_setup(err, sizeof err) < 0) {
		log_error(NULL, "%s", err);
		return -1;
	}
	if (hb_paths_resolve(&p, err, sizeof err) < 0 || videos_tidy(&p, err, sizeof err) < 0)
		log_warn(NULL, "explainer: settling the saved videos: %s", err); /* the calls settle their own */
	return 0;
}

static void explainer_at_exit(void)
{
	xmlCleanupParser();
}

static const struct hb_service_tool tools[] = {
	{ "create_explainer_video", explain_create },
	{ NULL, NULL },
};

static const struct hb_service_spec spec = {
	.name = "svc-explainer",
	.tools = tools,
	.pre_init = explainer_pre_init,
	.task = explain_rows_run,
	.at_exit = explainer_at_exit,
};

int main(int argc, char **argv)
{
	return hb_service_run(argc, argv, &spec);
}
