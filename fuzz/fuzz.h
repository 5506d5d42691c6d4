/*
 * fuzz.h - what the fuzz targets share: the libFuzzer entry point and the check that turns
 * a broken invariant into a crash libFuzzer (or the replay program under ctest) reports.
 */
#ifndef ROCJIT_FUZZ_H
#define ROCJIT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Runs one input; returns 0 (libFuzzer reserves other values).  Defined by each target. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts, saying which invariant failed where, when cond does not hold. */
#define FUZZ_CHECK(cond)                                                              \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__,    \
				__LINE__, #cond);                                     \
			abort();                                                      \
		}                                                                     \
	} while (0)

#endif
