/*
 * envelope_rig - see envelope_rig.h.
 */
#include "envelope_rig.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "envelope.h"

/* Decode a hex string into out; returns the byte count. */
size_t unhex(const char *hex, unsigned char *out, size_t cap)
{
	size_t n = 0;

	while (*hex) {
		unsigned hi, lo;

		if (*hex == ' ') {
			hex++;
			continue;
		}
		assert_true(hex[1] != '\0');
		assert_int_equal(sscanf(hex, "%1x%1x", &hi, &lo), 2);
		assert_true(n < cap);
		out[n++] = (unsigned char)(hi << 4 | lo);
		hex += 2;
	}
	return n;
}

/* Encode e and decode the result into *out (must succeed). */
void round_trip(const struct hb_env *e, struct hb_env *out)
{
	char *buf = NULL, err[256] = "";
	size_t len = 0;

	assert_int_equal(hb_env_encode(e, &buf, &len), 0);
	assert_non_null(buf);
	if (hb_env_decode(out, buf, len, err, sizeof err) != 0)
		fail_msg("decode of an encoded envelope failed: %s", err);
	free(buf);
}

/* 1 when buf is refused as the case says, else 0 after printing why. */
int refused(const char *name, const unsigned char *buf, size_t len, int check, const char *why)
{
	struct hb_env e;
	char err[256] = "";
	int rc;

	rc = hb_msgpack_check(buf, len, HB_MAX_DEPTH, err, sizeof err);
	if (rc != check) {
		print_error("%s: hb_msgpack_check returned %d, want %d (%s)\n", name, rc, check, err);
		return 0;
	}
	if (check < 0 && why && !strstr(err, why)) {
		print_error("%s: check said \"%s\", want it to mention \"%s\"\n", name, err, why);
		return 0;
	}
	err[0] = '\0';
	e.n = 99;
	e.arena = (char *)&e; /* decode must reset these, never free them */
	if (hb_env_decode(&e, buf, len, err, sizeof err) != -1) {
		print_error("%s: decoded a frame that must be refused\n", name);
		hb_env_free(&e);
		return 0;
	}
	if (err[0] == '\0') {
		print_error("%s: refused without a reason\n", name);
		return 0;
	}
	if (why && !strstr(err, why)) {
		print_error("%s: decode said \"%s\", want it to mention \"%s\"\n", name, err, why);
		return 0;
	}
	if (e.arena != NULL || e.n != 0) {
		print_error("%s: refused but left state behind\n", name);
		return 0;
	}
	return 1;
}

void expect_rejected(const char *name, const unsigned char *buf, size_t len, int check,
		     const char *why)
{
	if (!refused(name, buf, len, check, why))
		fail_msg("%s: see above", name);
}

/* Run a table of refused frames; every case runs, failures are listed. */
void run_reject_table(const struct reject_case *cases, size_t n)
{
	int failed = 0;

	for (size_t c = 0; c < n; c++) {
		unsigned char buf[512];
		size_t len = unhex(cases[c].hex, buf, sizeof buf);

		failed += !refused(cases[c].name, buf, len, cases[c].check, cases[c].why);
	}
	if (failed)
		fail_msg("%d of %zu cases failed", failed, n);
}
