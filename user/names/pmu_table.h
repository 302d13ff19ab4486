/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which libpfm4 core-PMU table fits this CPU. libpfm 4.13's own detection
 * misses recent CPUs (Zen 4 outside model 0x11, every Zen 5), so bpmc
 * derives the table from /proc/cpuinfo itself.
 */
#ifndef BPMC_PMU_TABLE_H
#define BPMC_PMU_TABLE_H

#include <stdbool.h>
#include <stddef.h>

struct cpu_id {
	char vendor[16]; /* "AuthenticAMD", "GenuineIntel", ... */
	int family; /* "cpu family" */
	int model;
	int stepping; /* -1 when absent */
	char model_name[64]; /* "model name", may be empty */
};

struct pmu_choice {
	/* The libpfm table for exactly this CPU, or NULL when none fits. */
	const char *table;
	/* When table is NULL: the closest table a user could force with
	 * --pmu (same vendor, latest older generation), or NULL. */
	const char *nearest;
	/* Short human name of the microarchitecture ("Zen 5"), or NULL. */
	const char *uarch;
};

/*
 * Parses the first processor block of /proc/cpuinfo text. -EINVAL when
 * the vendor, family or model is missing.
 */
int cpuinfo_parse(const char *text, struct cpu_id *id);

/* Reads /proc/cpuinfo, or the file named by $BPMC_CPUINFO if set. */
int cpuinfo_read(struct cpu_id *id);

/*
 * Arm's identification of the first processor block (MIDR_EL1's fields,
 * "CPU implementer" and "CPU part"), where x86's is absent. -EINVAL when
 * either is missing.
 */
struct arm_cpu_id {
	int implementer;
	int part;
};
int cpuinfo_parse_arm(const char *text, struct arm_cpu_id *id);
int cpuinfo_read_arm(struct arm_cpu_id *id);

/*
 * Maps a CPU to a libpfm table name. Pure: does not ask libpfm whether
 * the table exists (events.c checks that).
 */
void pmu_table_for_cpu(const struct cpu_id *id, struct pmu_choice *out);

#endif
