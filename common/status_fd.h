/*
 * status_fd - the launcher's side channel, like s6's notification-fd: a
 * program hb-broker launches (the bridges, for a session no bridge
 * carries) finds in HB_STATUS_FD the number of a pipe's write end and
 * writes the sentence of each failure there, one line each, so that the
 * broker can say why the start failed without reading the program's log
 * lines (whose shape is log.c's business).  broker/child_pipes.c reads it.
 */
#ifndef HB_STATUS_FD_H
#define HB_STATUS_FD_H

/* The descriptor HB_STATUS_FD names, taken: the variable is removed from
 * our environment and the descriptor made close-on-exec (what we start
 * must not write there) and non-blocking (a full pipe drops a sentence,
 * never stops us).  -1 when there is none, or it is not an open pipe. */
int hb_status_fd_take(void);

#endif
