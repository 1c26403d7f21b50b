/*
 * invariant - HB_ASSERT(cond): a broken invariant named by its file and
 * line.  An error line "invariant broken at FILE:LINE (FUNCTION): COND"
 * always; then, when HB_ASSERT_ABORT=1 is in the environment (tests/run.sh
 * and the test harness set it), abort(), so that a test fails at the
 * break instead of at its consequence; otherwise the program goes on (a
 * user's broker keeps serving, and its status self-check says what broke).
 * docs/testing.md says why it is decided by the environment.
 */
#ifndef HB_INVARIANT_H
#define HB_INVARIANT_H

#define HB_ASSERT(cond) ((cond) ? (void)0 : hb_assert_failed(#cond, __FILE__, __LINE__, __func__))

/* Log the broken invariant; abort when HB_ASSERT_ABORT=1. */
void hb_assert_failed(const char *cond, const char *file, int line, const char *func);

#endif
