/*
 * fuzz.h - the one entry point every fuzz target defines.
 *
 * Each tests/fuzz/fuzz_*.c hands arbitrary bytes to the project's own
 * parsing code.  Built with clang -fsanitize=fuzzer by `make fuzz`, and
 * with the normal compiler and replay.c by `make test`, which replays the
 * checked-in corpora as regression inputs.
 */
#ifndef HB_FUZZ_H
#define HB_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
