/*
 * asan_rows - pixel loops that AddressSanitizer checks a row at a time.
 *
 * Under ASan every byte a loop reads or writes is checked on its own, which
 * also keeps the loop from being vectorised: the colour conversion of each
 * frame took a fifth of a sanitized render (4 times its share in the
 * optimised build).  A loop over one contiguous row marked HB_ROW_LOOP is
 * not instrumented, by ASan nor by UBSan (whose overflow checks on its
 * arithmetic keep it from being vectorised as much); its caller checks the
 * row's whole extent with hb_asan_row() first, which finds the same
 * overflow (the first bad byte, reported by ASan as usual) before any byte
 * is touched, and proves the loop's arithmetic cannot overflow with
 * static assertions.  Without ASan both are nothing.
 */
#ifndef HB_ASAN_ROWS_H
#define HB_ASAN_ROWS_H

#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define HB_ASAN_ROWS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HB_ASAN_ROWS 1
#endif
#endif

#ifdef HB_ASAN_ROWS
#include <sanitizer/asan_interface.h>

#define HB_ROW_LOOP __attribute__((no_sanitize("address", "undefined")))

/* The n bytes at p are all addressable, or ASan reports the first that is
 * not (an ordinary checked read of it). */
static inline void hb_asan_row(const void *p, size_t n)
{
	const volatile unsigned char *bad = __asan_region_is_poisoned((void *)(size_t)p, n);

	if (bad)
		(void)*bad;
}
#else
#define HB_ROW_LOOP
static inline void hb_asan_row(const void *p, size_t n)
{
	(void)p;
	(void)n;
}
#endif

#endif
