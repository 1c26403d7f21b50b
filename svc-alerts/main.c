/*
 * svc-alerts - push alerts to the user's phone through the regional relay:
 * the tool send_mobile_notification, and the background task that keeps
 * the device link to the relay (link.c), which also shows the phone the
 * open approval cards and carries its answers back (phone_cards.c).  The link's state is the one
 * piece of state the task and the calls share; it lives here.
 */
#include <stdio.h>

#include "alert.h"
#include "link.h"
#include "link_state.h"
#include "log.h"
#include "service.h"

static const struct hb_service_tool tools[] = {
	{ "send_mobile_notification", alert_send },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	static struct link_state link;
	struct hb_service_spec spec = {
		.name = "svc-alerts",
		.tools = tools,
		.task = link_run,
		.task_arg = &link,
		.task_approvals = 1,
		.task_idles = 1,
	};
	int rc;

	if (link_state_init(&link) < 0) {
		fprintf(stderr, "svc-alerts: cannot set up the link's state\n");
		return 1;
	}
	rc = hb_service_run(argc, argv, &spec);
	link_state_destroy(&link);
	return rc;
}
