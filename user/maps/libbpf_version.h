/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BPMC_MAPS_LIBBPF_VERSION_H
#define BPMC_MAPS_LIBBPF_VERSION_H

#include "common/version.h"

/* libbpf's version, built and in use (libbpf is maps/' alone). */
void libbpf__version(struct lib_version *v);

#endif
