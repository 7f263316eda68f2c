// SPDX-License-Identifier: MIT
/* libFuzzer entry point (meson -Dfuzz=enabled, clang). */
#include "fuzz-one.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_one(data, size);
}
