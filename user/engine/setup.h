/* SPDX-License-Identifier: GPL-2.0 */
/* engine.c's steps before the first interval, each 0 or -errno with err set. */
#ifndef BPMC_ENGINE_SETUP_H
#define BPMC_ENGINE_SETUP_H

#include "engine/state.h"

/* The cgroup hierarchy, --cgroup-v1's subsystem and -G's subtrees. */
int setup__identity(struct engine *e, struct error *err);
/* The naming handle and -e's list (a default one without -e). */
int setup__events(struct engine *e, struct error *err);
/* The mode, --best-effort's choice, the kernel's features, the counters
 * opened and the BPF side loaded and attached, nothing enabled yet. */
int setup__collector(struct engine *e, struct error *err);

#endif
