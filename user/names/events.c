// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
/* The kernel's header first: libpfm's copy then steps aside. */
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "names/events.h"
#include "names/pfm.h"
#include "names/pmu_table.h"
#include "names/suggest.h"
#include "names/sysfs_pmu.h"

struct events {
	bool forced; /* --pmu given */
	bool warned; /* the no-table warning was taken */
	bool hinted; /* an encoding failed for want of the table */
	char core[64]; /* table used for bare names, or "" */
	struct cpu_id cpu;
	bool cpu_known;
	struct pmu_choice choice;
	char warning[512];
};

static int force_table(struct events *e, const char *table, struct error *err)
{
	char hint[256] = "";

	if (pfm_pmu_by_name(table) >= 0) {
		snprintf(e->core, sizeof(e->core), "%s", table);
		e->forced = true;
		return 0;
	}
	suggest__table(table, hint, sizeof(hint));
	return error__set(err, ENOENT, "unknown PMU table '--pmu %s'%s", table,
			  hint);
}

int events__new(struct events **out, const char *pmu_table, struct error *err)
{
	struct events *e;
	int ret = pfm__init(err);

	if (ret)
		return ret;
	e = calloc(1, sizeof(*e));
	if (!e)
		return error__set(err, ENOMEM, "out of memory");
	e->cpu_known = !cpuinfo_read(&e->cpu);
	if (e->cpu_known)
		pmu_table_for_cpu(&e->cpu, &e->choice);
	if (pmu_table) {
		ret = force_table(e, pmu_table, err);
		if (ret) {
			free(e);
			return ret;
		}
	} else if (e->choice.table && pfm_pmu_by_name(e->choice.table) >= 0) {
		snprintf(e->core, sizeof(e->core), "%s", e->choice.table);
	}
	*out = e;
	return 0;
}

void events__free(struct events *e)
{
	free(e);
}

const char *events__core_table(const struct events *e)
{
	return e->core[0] ? e->core : NULL;
}

const char *events__nearest_table(const struct events *e)
{
	return e->core[0] ? NULL : e->choice.nearest;
}

const char *events__take_warning(struct events *e, bool always)
{
	if (e->warned || e->core[0] || !e->cpu_known || !(always || e->hinted))
		return NULL;
	e->warned = true;
	if (e->choice.nearest)
		snprintf(
			e->warning, sizeof(e->warning),
			"this libpfm has no event table for this CPU (%s family 0x%x model 0x%x%s%s); the nearest is %s: force it with --pmu %s",
			e->cpu.vendor, e->cpu.family, e->cpu.model,
			e->choice.uarch ? ", " : "",
			e->choice.uarch ? e->choice.uarch : "",
			e->choice.nearest, e->choice.nearest);
	else
		snprintf(
			e->warning, sizeof(e->warning),
			"this libpfm has no event table for this CPU (%s family 0x%x model 0x%x) and bpmc knows no close one; name events with TABLE:: or use --pmu",
			e->cpu.vendor, e->cpu.family, e->cpu.model);
	return e->warning;
}

static int pfm_encode(const char *name, struct event *ev)
{
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL;
	int ret;

	memset(&ev->attr, 0, sizeof(ev->attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &ev->attr;
	arg.size = sizeof(arg);
	arg.fstr = &fstr;
	ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3,
					PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret == PFM_SUCCESS)
		snprintf(ev->fstr, sizeof(ev->fstr), "%s", fstr ? fstr : name);
	free(fstr);
	return ret;
}

/* A bare microarchitecture name: no TABLE:: and no sysfs slash. */
static bool is_bare(const char *name)
{
	return !strstr(name, "::") && !strchr(name, '/');
}

/* True when the nearest table knows name: worth telling the user. */
static bool nearest_knows(const struct events *e, const char *name)
{
	char qualified[EVENT_NAME_LEN + 64];
	struct event probe;

	if (!is_bare(name) || e->core[0] || !e->choice.nearest)
		return false;
	snprintf(qualified, sizeof(qualified), "%s::%s", e->choice.nearest,
		 name);
	return pfm_encode(qualified, &probe) == PFM_SUCCESS;
}

static int unknown_event(struct events *e, const char *name, int ret,
			 struct error *err)
{
	char hint[256] = "";

	error__set(err, ENOENT, "unknown event '%s': %s", name,
		   pfm_strerror(ret));
	if (nearest_knows(e, name)) {
		e->hinted = true;
		error__append(
			err,
			" (this CPU has no libpfm table; with --pmu %s it is %s::%s)",
			e->choice.nearest, e->choice.nearest, name);
		return -ENOENT;
	}
	suggest__event(name, events__core_table(e), events__nearest_table(e),
		       hint, sizeof(hint));
	error__append(err, "%s", hint);
	return -ENOENT;
}

/*
 * Did libpfm take a bare name through a core table other than ours? It
 * searches the tables it detected itself, while bpmc's table comes from
 * CPUID (or --pmu, or $BPMC_CPUINFO): where the two differ, ours wins,
 * so that a name means the same thing on every host bpmc calls alike.
 */
static bool foreign_core_table(const struct events *e, const struct event *ev)
{
	const char *sep = strstr(ev->fstr, "::");
	char table[64];
	pfm_pmu_info_t info;
	int pmu;

	/* Without a CPUID of our own, libpfm's detection is all there is. */
	if (!e->cpu_known || !sep || sep - ev->fstr >= (long)sizeof(table))
		return false;
	snprintf(table, sizeof(table), "%.*s", (int)(sep - ev->fstr), ev->fstr);
	pmu = pfm_pmu_by_name(table);
	return pmu >= 0 && pfm_pmu_get(pmu, &info) &&
	       info.type == PFM_PMU_TYPE_CORE && strcmp(table, e->core);
}

/*
 * libpfm takes ":period=-1" as 2^64-1 and saturates a number too long:
 * check the values as written, so that the message names the real cause.
 */
static int check_rate_terms(const char *name, struct error *err)
{
	static const char *const terms[] = { ":period=", ":freq=" };
	char value[32];
	uint64_t v;

	for (size_t i = 0; i < ARRAY_SIZE(terms); i++) {
		const char *at = strstr(name, terms[i]);
		size_t n;

		if (!at)
			continue;
		at += strlen(terms[i]);
		n = strcspn(at, ":");
		snprintf(value, sizeof(value), "%.*s", (int)(n < 31 ? n : 31),
			 at);
		if (n >= sizeof(value) || parse_u64(value, &v) || !v || v >> 63)
			return error__set(
				err, EINVAL,
				"invalid '%s%.*s' in event '%s': want 1 to 2^63-1",
				terms[i] + 1, (int)n, at, name);
	}
	return 0;
}

int events__encode(struct events *e, const char *name, struct event *ev,
		   struct error *err)
{
	char qualified[EVENT_NAME_LEN + 64], hint[256] = "";
	int ret;

	memset(ev, 0, sizeof(*ev));
	if (strlen(name) >= sizeof(ev->name))
		return error__set(err, ENAMETOOLONG,
				  "event name '%.40s...' is too long", name);
	strcpy(ev->name, name);
	if (sysfs_pmu__is_syntax(name)) {
		ret = sysfs_pmu__encode(NULL, name, &ev->attr, ev->fstr,
					sizeof(ev->fstr), err);
		if (ret == -ENOENT) {
			suggest__event(name, events__core_table(e),
				       events__nearest_table(e), hint,
				       sizeof(hint));
			error__append(err, "%s", hint);
		}
		if (ret)
			return ret;
		goto done;
	}
	ret = check_rate_terms(name, err);
	if (ret)
		return ret;
	ret = pfm_encode(name, ev);
	if (ret == PFM_SUCCESS && is_bare(name) && foreign_core_table(e, ev))
		ret = PFM_ERR_NOTFOUND;
	if (ret == PFM_ERR_NOTFOUND && is_bare(name) && e->core[0]) {
		/* libpfm only searches detected tables for bare names; ours
		 * is derived from CPUID (or forced), so retry through it. */
		snprintf(qualified, sizeof(qualified), "%s::%s", e->core, name);
		if (pfm_encode(qualified, ev) == PFM_SUCCESS)
			ret = PFM_SUCCESS;
	}
	if (ret != PFM_SUCCESS)
		return unknown_event(e, name, ret, err);
done:
	ev->attr.size = sizeof(ev->attr);
	ev->own_period = ev->attr.sample_period != 0;
	return 0;
}

/*
 * Copies the next name of a list and returns its delimiter (',' or NUL),
 * or NULL when the name does not fit. Commas inside PMU/.../ do not
 * split.
 */
static const char *next_name(const char *p, char *out, size_t len)
{
	int slashes = 0;
	size_t n = 0;

	for (; *p && (*p != ',' || slashes % 2); p++) {
		if (*p == '/')
			slashes++;
		if (n + 1 >= len)
			return NULL;
		out[n++] = *p;
	}
	out[n] = '\0';
	return p;
}

int events__parse_list(struct events *e, const char *spec,
		       struct event_list *list, struct error *err)
{
	char name[EVENT_NAME_LEN];
	const char *p = spec;
	int ret, group = -1;
	size_t n;

	list->nr = 0;
	if (!*spec) {
		return error__set(err, EINVAL, "empty event list");
	}
	for (;;) {
		const char *start = p;
		bool closes = false;

		if (*p == '{') {
			if (group >= 0) {
				return error__set(
					err, EINVAL,
					"nested '{' in '%s': groups do not nest",
					spec);
			}
			group = list->nr;
			p++;
		}
		p = next_name(p, name, sizeof(name));
		if (!p) {
			return error__set(err, ENAMETOOLONG,
					  "event name '%.40s...' is too long",
					  start);
		}
		n = strlen(name);
		if (n && name[n - 1] == '}') {
			name[--n] = '\0';
			closes = true;
		}
		if (!*name) {
			return error__set(err, EINVAL,
					  "empty event name in '%s'", spec);
		}
		if (strpbrk(name, "{}") || (closes && group < 0)) {
			return error__set(err, EINVAL,
					  "unbalanced braces in '%s'", spec);
		}
		if (list->nr == BPMC_MAX_EVENTS) {
			return error__set(err, E2BIG,
					  "too many events in '%s': at most %d",
					  spec, BPMC_MAX_EVENTS);
		}
		for (int i = 0; i < list->nr; i++) {
			if (!strcmp(list->ev[i].name, name)) {
				return error__set(err, EINVAL,
						  "event '%s' is listed twice",
						  name);
			}
		}
		ret = events__encode(e, name, &list->ev[list->nr], err);
		if (ret)
			return ret;
		list->ev[list->nr].leader = group >= 0 ? group : list->nr;
		list->nr++;
		if (closes)
			group = -1;
		if (!*p++)
			break;
	}
	if (group >= 0) {
		return error__set(err, EINVAL, "unclosed '{' in '%s'", spec);
	}
	return 0;
}

void event_list__keep(const struct event_list *in, const bool *keep,
		      struct event_list *out, int *map)
{
	int index[BPMC_MAX_EVENTS], lead;

	out->nr = 0;
	for (int i = 0; i < in->nr; i++) {
		index[i] = -1;
		if (!keep[i])
			continue;
		/* The group's first kept event, this one if none before. */
		lead = out->nr;
		for (int j = in->ev[i].leader; j < i; j++) {
			if (index[j] >= 0 &&
			    in->ev[j].leader == in->ev[i].leader) {
				lead = out->ev[index[j]].leader;
				break;
			}
		}
		out->ev[out->nr] = in->ev[i];
		out->ev[out->nr].leader = lead;
		index[i] = out->nr++;
	}
	if (map)
		memcpy(map, index, in->nr * sizeof(*map));
}

bool event__is_hardware(const struct event *ev)
{
	return ev->attr.type == PERF_TYPE_HARDWARE ||
	       ev->attr.type == PERF_TYPE_HW_CACHE ||
	       ev->attr.type == PERF_TYPE_RAW;
}
