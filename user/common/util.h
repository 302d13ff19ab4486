/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BPMC_UTIL_H
#define BPMC_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * What commands print on stderr, every line "bpmc: ...": an error, a
 * warning ("bpmc: warning: ..."), or a progress note, which shares the
 * error's format on purpose (one prefix to grep) but not its meaning.
 * Modules below cmd/ never print: they fill a struct error.
 */
void p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void p_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void p_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* -v: libbpf's messages too. */
extern bool verbose;

/* Whole-string decimal parse within [min, max]; 0 or -EINVAL/-ERANGE. */
int parse_long(const char *s, long min, long max, long *out);
/* Decimal or 0x-hex unsigned 64-bit parse; 0 or -EINVAL/-ERANGE. */
int parse_u64(const char *s, uint64_t *out);

/*
 * A decimal count with a unit suffix, e.g. "15m" or "256M": the units
 * table maps each suffix letter to its multiplier ({ 0 }-terminated).
 * A bare number is taken only when bare_ok. 0, -EINVAL or -ERANGE.
 */
struct unit_suffix {
	char letter;
	uint64_t scale;
};
int parse_with_unit(const char *s, const struct unit_suffix *units,
		    bool bare_ok, uint64_t *out);
/* s m h d, and K M G T (powers of 1024), for the parsers above. */
extern const struct unit_suffix duration_units[], size_units[];

uint64_t clock_ns(clockid_t clock);

/* Writes all of data to fd, through short writes and EINTR; 0 or -errno
 * (-EIO for a write that wrote nothing). */
int write_full(int fd, const void *data, size_t len);

/*
 * Reserves the blocks of fd's [at, at + len) without changing its size
 * (fallocate, FALLOC_FL_KEEP_SIZE), so that a write there cannot stop
 * half-way on a full disk: a reader never sees part of it. 0 also where
 * fd cannot reserve (a pipe, a filesystem without it): the write tells
 * then; else -errno (-ENOSPC, -EDQUOT).
 */
int reserve_blocks(int fd, uint64_t at, size_t len);

/* Reads a small sysfs/procfs file into buf, NUL-terminated, newline cut. */
int read_file_str(const char *path, char *buf, size_t len);
int read_file_long(const char *path, long *out);

/* True when the comma-separated list holds word, whole. */
bool comma_list_has(const char *list, const char *word);

/* Levenshtein distance, ignoring case; strings longer than 255 count
 * as 255 characters. */
unsigned edit_distance(const char *a, const char *b);

/* Parses a kernel CPU list ("0-3,8") into a bool map of max_cpus. */
int cpulist_parse(const char *list, bool *cpus, int max_cpus);

/*
 * The number of possible CPUs (the highest in
 * /sys/devices/system/cpu/possible, plus one): what per-CPU arrays are
 * sized by, online or not. -errno on failure.
 */
int cpus_possible(void);

/*
 * The online CPUs, from /sys/devices/system/cpu/online, into a bool map
 * of max_cpus (possible CPUs). 0 or -errno.
 */
#define CPUS_ONLINE_PATH "/sys/devices/system/cpu/online"
int cpus_online(bool *cpus, int max_cpus);

#endif
