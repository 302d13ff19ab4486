/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libFuzzer's entry points, which every target defines: declared here
 * so that they have a prototype (-Wmissing-prototypes).
 */
#ifndef BPMC_TESTS_FUZZ_H
#define BPMC_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
