/*
 * random - unpredictable bytes from the system, for names that must not be
 * guessed or collide (session ids, explainer video ids, message uuids).
 *
 * /dev/urandom exists on every POSIX system we target (Linux, macOS, the
 * BSDs), unlike getrandom() or getentropy() declarations, which move between
 * headers; it never blocks once the system has booted.
 */
#ifndef HB_RANDOM_H
#define HB_RANDOM_H

#include <stddef.h>

/* Fills buf with len random bytes: 0, or -1 with a sentence in err when
 * the system has no randomness to give. */
int hb_random_bytes(void *buf, size_t len, char *err, size_t errlen);
/* A random UUID (version 4) into out, lower-case hex with dashes: 0, or
 * -1 with a sentence in err. */
int hb_random_uuid(char out[37], char *err, size_t errlen);

#endif
