/*
 * back - messages from services on back.sock: ready, heartbeat, result,
 * progress, subcall.  Only an instance the supervisor started may speak.
 */
#ifndef HB_BACK_H
#define HB_BACK_H

#include "broker.h"

void back_handle(struct broker *b);

#endif
