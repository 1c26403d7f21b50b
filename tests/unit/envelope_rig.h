/*
 * envelope_rig - what the tests of the envelope codec (test_envelope.c,
 * test_envelope_limits.c) share: frames written as hex, a round trip
 * through the codec, and the check that a frame is refused for the
 * expected reason.
 */
#ifndef TEST_ENVELOPE_RIG_H
#define TEST_ENVELOPE_RIG_H

#include <stddef.h>

#include "envelope.h"

/* Decode a hex string into out; returns the byte count. */
size_t unhex(const char *hex, unsigned char *out, size_t cap);
/* Encode e and decode the result into *out (must succeed). */
void round_trip(const struct hb_env *e, struct hb_env *out);
/* Frames that must be refused.  check: what hb_msgpack_check alone says
 * (-1 for a structural fault, 0 when only the envelope schema is wrong);
 * why: a piece of the expected reason. */
struct reject_case {
	const char *name;
	const char *hex;
	int check;
	const char *why;
};

/* 1 when buf is refused as the case says, else 0 after printing why. */
int refused(const char *name, const unsigned char *buf, size_t len, int check, const char *why);
void expect_rejected(const char *name, const unsigned char *buf, size_t len, int check,
		     const char *why);
/* Run a table of refused frames; every case runs, failures are listed. */
void run_reject_table(const struct reject_case *cases, size_t n);

#endif
