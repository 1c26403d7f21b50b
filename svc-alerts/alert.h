/*
 * alert - the tool send_mobile_notification.
 */
#ifndef ALERTS_ALERT_H
#define ALERTS_ALERT_H

#include "service.h"

int alert_send(struct hb_call *call, const json_t *args);

#endif
