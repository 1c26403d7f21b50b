/*
 * badinput_rig - what the bad-input tables (itest_badinput.c,
 * itest_badinput_frames.c) share: the broker running the seven services of
 * deploy/services.conf as deployed, with a fake Gemini key saved,
 * notifications and browser control on, and the Gemini base URL a closed
 * port of 127.0.0.1, so that every call reaches its argument checks and
 * none calls out; the services' pids at the start, and the check that
 * after a table every service is the same process it was, status says
 * "ok" and a normal call works; the comparison of an answer with the
 * expected one (whole, its start, or a part), always UTF-8.
 */
#ifndef TEST_BADINPUT_RIG_H
#define TEST_BADINPUT_RIG_H

#include <stddef.h>
#include <sys/types.h>

#include "../harness/checks.h"

#define KEY "AIzaBadInputTableKey0123456789abcdef"
#define HUGE_ARGS (5u << 20)   /* over HB_MAX_PAYLOAD, under HB_MAX_FRAME */
#define BIG_STRING (3u << 20)  /* under HB_MAX_PAYLOAD: the service judges it */
#define DEEP 10000

extern const char *const services[];
extern const char *const tools[];
extern struct fixture F;
extern pid_t pids[8];
enum match { EXACT, PREFIX, CONTAINS };

struct arg_case {
	const char *tool;
	const char *json;
	enum match match;
	const char *want;
};

void show(const char *what, const char *text);
/* text must match want as m says, and be UTF-8; what names the case. */
void check_text(const char *what, const char *text, enum match m, const char *want);
/* One call on c that must fail with want; what names it. */
void expect_refusal(struct hb_client *c, const char *what, const char *tool, const char *json,
		    enum match m, const char *want);
char *repeat(const char *head, char c, size_t n, const char *tail);
/* {"k": [[[ ... ]]]} with DEEP arrays. */
char *deep_nesting(void);

/* ---- fixture ---------------------------------------------------------------- */

int badinput_setup(void **state);
int badinput_teardown(void **state);
/* 0 when every service is the process it was at the start and up, the
 * broker alive with selfCheck "ok", and a normal call answers; else -1
 * with why. */
int badinput_still_up(char *why, size_t len);
/* The teardown after a table: badinput_still_up, then badinput_teardown;
 * -1 when either fails. */
int badinput_teardown_checked(void **state);

#endif
