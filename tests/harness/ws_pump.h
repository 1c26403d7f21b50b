/*
 * ws_pump - the poll loop a test runs for a WebSocket link of ws/ws.h
 * in place of a service's event loop, and the ping whose pong shows the
 * peer has answered everything sent before it (a server that reads frames
 * in order and answers each at once: tests/ws/, tests/fake-relay/).
 */
#ifndef HB_WS_PUMP_H
#define HB_WS_PUMP_H

#include "ws.h"

/* One round: wait at most ms for the link's socket, then read and write
 * what it is ready for. */
void ws_pump(struct ws *ws, int ms);
/* Write out what is queued (wslay sends a queued ping ahead of queued
 * messages), send a ping, and pump until its pong is counted, at most
 * patience_ms.  0 once the pong came; -1 if it did not (or the ping could
 * not be sent). */
int ws_pump_ping(struct ws *ws, int patience_ms);

#endif
