/*
 * invariants - the ownership rules broker.h states, checked with
 * HB_ASSERT (common/invariant.h): every call in the call table is on the
 * one list its state says (its service's wait queue, its instance's
 * in-flight list, or none while it resolves) and every listed call is in
 * the table; run ids are unique; every approval card belongs to an open
 * run; every listed instance is in the child table under its pid.  Run
 * beside supervisor_selfcheck, on every status.
 */
#ifndef HB_INVARIANTS_H
#define HB_INVARIANTS_H

#include "broker.h"

void broker_check_invariants(const struct broker *b);

#endif
