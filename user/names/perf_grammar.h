/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf's event grammar (tools/perf/util/parse-events.l/.y), the parts
 * that are not libpfm's: the modifiers u k h H G I D e p pp ppp P, the
 * legacy hardware, software and cache names, raw rNNN, TYPE:CONFIG,
 * breakpoints mem:ADDR[/LEN][:rwx], and the terms perf takes between
 * slashes after any of them (name=, period=, freq=, config*=,
 * call-graph=, time).
 */
#ifndef BPMC_NAMES_PERF_GRAMMAR_H
#define BPMC_NAMES_PERF_GRAMMAR_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

#define PERF_NAME_LEN 256

/* Modifier letters as perf reads them (not libpfm's, where e is edge). */
struct perf_mods {
	bool u, k, h; /* count only these privilege levels; none: all */
	bool host, guest; /* H, G: one without the other excludes the other */
	bool no_idle; /* I */
	bool pinned, exclusive; /* D, e */
	bool precise_max; /* P: the highest precise_ip the PMU takes */
	int precise; /* p, pp, ppp */
};

/* True when every character of s is one of perf's modifier letters. */
bool perf_mods__is_syntax(const char *s);

/*
 * Parses mods ("kp", "uDp") into m, adding to what m holds (a group's
 * modifiers are parsed on top of each member's). input names the event
 * in messages; a refused letter names itself.
 */
int perf_mods__parse(const char *mods, const char *input, struct perf_mods *m,
		     struct error *err);

/* Sets the exclude_*, pinned, exclusive and precise_ip bits of attr. */
void perf_mods__apply(const struct perf_mods *m, struct perf_event_attr *attr);

/* "ukhHGIDeppP" order, for fully qualified names; "" for none. */
void perf_mods__format(const struct perf_mods *m, char *buf, size_t len);

/* The modifiers an attr already says, for names libpfm encoded. */
void perf_mods__from_attr(const struct perf_event_attr *attr,
			  struct perf_mods *m);

/*
 * perf's legacy names: "cycles", "faults", "L1-dcache-load-miss"...
 * True with type and config set when name is one.
 */
bool perf_legacy__lookup(const char *name, __u32 *type, __u64 *config);

/*
 * A term perf takes on every kind of event: name=, call-graph=, time.
 * Returns 1 when term is none of them (the caller places it), 0 when it
 * took it (name= into display), or -errno with err naming the term.
 * value is NULL for a bare term.
 */
int perf_term__generic(const char *term, const char *value, const char *input,
		       char *display, size_t display_len, struct error *err);

/*
 * Splits the next term off *cursor at a comma outside single quotes,
 * strips the quotes of a quoted value, and sets *value to what follows
 * '=' (NULL for a bare term). Returns NULL when no term is left.
 */
char *perf_terms__next(char **cursor, char **value);

/*
 * Finds the term list of "HEAD/TERMS/MODS": *head_len is HEAD's length,
 * *terms its start and *terms_len its length, *mods the text after the
 * last slash. False when name does not end that way.
 */
bool perf_name__split_slashes(const char *name, size_t *head_len,
			      const char **terms, size_t *terms_len,
			      const char **mods);

/* What a perf-style name says beyond its attr. */
struct perf_event_info {
	char display[PERF_NAME_LEN]; /* name=, or "" */
	char fstr[PERF_NAME_LEN]; /* fully qualified */
	bool precise_max;
};

/*
 * Encodes a perf-style name: legacy, raw, TYPE:CONFIG or breakpoint,
 * with optional /terms/ and modifiers, adding group's modifiers (may be
 * NULL). -ENOENT (err says so) when name is none of these, so that
 * the caller tries libpfm and the kernel's PMUs, which set err anew.
 */
int perf_name__encode(const char *name, const char *group,
		      struct perf_event_attr *attr,
		      struct perf_event_info *info, struct error *err);

#endif
