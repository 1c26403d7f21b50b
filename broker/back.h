/*
 * back - messages from services on back.sock (the table of ops and their
 * fields is in back.c).  Only an instance the supervisor started may speak.
 */
#ifndef HB_BACK_H
#define HB_BACK_H

#include "broker.h"

/* Read the services' messages; 1 when more may be queued (wait_read). */
int back_handle(struct broker *b);

#endif
