/*
 * alert - the tool send_mobile_notification.
 */
#ifndef ALERTS_ALERT_H
#define ALERTS_ALERT_H

#include "service.h"

int alert_send(struct hb_call *call, const json_t *args);
/* The arguments' checks (title and body, each within its length): 0 with
 * both borrowed from args, or -1 with the tool error in err.  Exported for
 * the fuzz target of the tools' arguments. */
int alert_check_args(const json_t *args, const char **title, const char **body, char *err, size_t errlen);

#endif
