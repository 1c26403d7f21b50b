/*
 * run_ops - the front operations that open, close and stop runs.
 */
#ifndef HB_RUN_OPS_H
#define HB_RUN_OPS_H

#include "broker.h"

void run_op_open(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);
void run_op_close(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);
void run_op_stop(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);

#endif
