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
#include "names/kernel_pmu.h"
#include "names/pfm.h"
#include "names/perf_grammar.h"
#include "names/pmu_table.h"
#include "names/suggest.h"
#include "names/sysfs_pmu.h"
#include "names/tracepoint.h"

struct events {
	bool forced; /* --pmu given */
	bool warned; /* the no-table warning was taken */
	bool hinted; /* an encoding failed for want of the table */
	char core[64]; /* table used for bare names, or "" */
	struct cpu_id cpu;
	bool cpu_known;
	/* Not x86: Arm's MIDR fields, when libpfm detected no table. */
	struct arm_cpu_id arm;
	bool arm_known;
	struct pmu_choice choice;
	char warning[512];
};

static int force_table(struct events *e, const char *table, struct error *err)
{
	char hint[256] = "";
	pfm_pmu_info_t info;
	int pmu = libpfm__pmu_by_name(table);

	/* In libpfm's spelling, whatever the case given: tables compare so. */
	if (pmu >= 0 && libpfm__pmu_get(pmu, &info)) {
		snprintf(e->core, sizeof(e->core), "%s", info.name);
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
	pfm_pmu_info_t info;
	int ret = libpfm__init(err);

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
	} else if (e->choice.table &&
		   libpfm__pmu_by_name(e->choice.table) >= 0) {
		snprintf(e->core, sizeof(e->core), "%s", e->choice.table);
	} else if (!e->cpu_known) {
		/* Not x86: libpfm's own detection (arm64 reads the MIDR's
		 * implementer and part), or the reason it found nothing. */
		ret = libpfm__detected_core();
		if (ret >= 0 && libpfm__pmu_get(ret, &info))
			snprintf(e->core, sizeof(e->core), "%s", info.name);
		else
			e->arm_known = !cpuinfo_read_arm(&e->arm);
		ret = 0;
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

/* An Arm CPU libpfm has no table for: which, and what names are left. */
static const char *arm_warning(struct events *e)
{
	snprintf(
		e->warning, sizeof(e->warning),
		"this libpfm has no event table for this CPU (CPU implementer 0x%02x%s, part 0x%03x): its hardware events are named by perf's generic names (cycles, instructions) and the kernel's PMU/event/ aliases (bpmc list)",
		e->arm.implementer,
		e->arm.implementer ?
			"" :
			", reserved for software: an emulator's CPU",
		e->arm.part);
	return e->warning;
}

const char *events__take_warning(struct events *e, bool always)
{
	if (e->warned || e->core[0] || !(always || e->hinted))
		return NULL;
	if (e->arm_known) {
		e->warned = true;
		return arm_warning(e);
	}
	if (!e->cpu_known)
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
	/* perf's default: every privilege level, the hypervisor's too. */
	ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3 | PFM_PLMH,
					PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret == PFM_SUCCESS)
		snprintf(ev->fstr, sizeof(ev->fstr), "%s", fstr ? fstr : name);
	/* libpfm excludes the guest unless told (mg=, mh=); perf does not. */
	if (ret == PFM_SUCCESS && !strstr(name, ":mg") &&
	    !strstr(name, ":mh")) {
		char *mg = strstr(ev->fstr, ":mg=0:mh=1");

		ev->attr.exclude_guest = 0;
		ev->attr.exclude_host = 0;
		/* The full form says so too, and re-encodes the same. */
		if (mg)
			mg[4] = '1';
	}
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
	e->hinted |= e->arm_known && is_bare(name);
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
 * fstr is libpfm's qualified name when it encoded, else NULL: then the
 * table is the one libpfm found the event in, and it counts only when we
 * have a table of our own to try instead (a unit mask ours takes may be
 * missing from the other's event of the same name).
 */
static bool foreign_core_table(const struct events *e, const char *name,
			       const char *fstr)
{
	const char *sep = fstr ? strstr(fstr, "::") : NULL;
	char table[64], event[EVENT_NAME_LEN];
	pfm_event_info_t ev;
	pfm_pmu_info_t info;
	int pmu, idx;

	/* Without a CPUID of our own, libpfm's detection is all there is. */
	if (!e->cpu_known && !e->forced)
		return false;
	if (fstr) {
		if (!sep || sep - fstr >= (long)sizeof(table))
			return false;
		snprintf(table, sizeof(table), "%.*s", (int)(sep - fstr), fstr);
		pmu = libpfm__pmu_by_name(table);
	} else {
		snprintf(event, sizeof(event), "%.*s", (int)strcspn(name, ":"),
			 name);
		idx = e->core[0] ? pfm_find_event(event) : -1;
		pmu = idx >= 0 && libpfm__event_get(idx, &ev) ? (int)ev.pmu :
								-1;
	}
	return pmu >= 0 && libpfm__pmu_get(pmu, &info) &&
	       info.type == PFM_PMU_TYPE_CORE && strcmp(info.name, e->core);
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

/* A group's modifiers on a name libpfm encoded: perf's meaning. */
static int add_group_mods(const char *name, const char *group, struct event *ev,
			  struct error *err)
{
	struct perf_mods m;
	char text[16];
	int ret;

	perf_mods__from_attr(&ev->attr, &m);
	ret = perf_mods__parse(group, name, &m, err);
	if (ret)
		return ret;
	perf_mods__apply(&m, &ev->attr);
	perf_mods__format(&m, text, sizeof(text));
	if (strlen(ev->fstr) + strlen(text) + 2 < sizeof(ev->fstr))
		strcat(strcat(ev->fstr, "/"), text);
	return 0;
}

/*
 * An uncore event without its kernel PMU is refused as such (ret is
 * libpfm's answer; qualified the TABLE::NAME a bare name was retried as,
 * or NULL). The PMU is that of our table where it has the event and
 * failed there; there is none where ours is an uncore table without it
 * (--pmu snb_unc_cbo1 UNC_CLOCKTICKS, which only cbo0 has): the name is
 * unknown there, whichever other table has it.
 */
static int check_kernel_pmu(const struct events *e, const char *name, int ret,
			    const char *qualified, const struct event *ev,
			    struct error *err)
{
	if (ret == PFM_SUCCESS)
		return kernel_pmu__check(NULL, name, ev->fstr, &ev->attr, err);
	if (qualified && ret != PFM_ERR_NOTFOUND)
		return kernel_pmu__check(NULL, name, qualified, NULL, err);
	if (qualified && kernel_pmu__is_uncore_table(e->core))
		return 0;
	return kernel_pmu__check(NULL, name, NULL, NULL, err);
}

/* libpfm's names, bare ones through bpmc's table, then tracepoints. */
static int encode_pfm(struct events *e, const char *name, const char *group,
		      struct event *ev, struct error *err)
{
	char qualified[EVENT_NAME_LEN + 64];
	struct error tp = {};
	bool retried;
	int ret, kret;

	ret = check_rate_terms(name, err);
	if (ret)
		return ret;
	ret = pfm_encode(name, ev);
	if (ret != PFM_ERR_NOTFOUND && is_bare(name) &&
	    foreign_core_table(e, name, ret == PFM_SUCCESS ? ev->fstr : NULL))
		ret = PFM_ERR_NOTFOUND;
	retried = ret == PFM_ERR_NOTFOUND && is_bare(name) && e->core[0];
	if (retried) {
		/* libpfm only searches detected tables for bare names; ours
		 * is derived from CPUID (or forced), so retry through it, and
		 * keep its reason ("missing unit mask") if it fails too. */
		snprintf(qualified, sizeof(qualified), "%s::%s", e->core, name);
		ret = pfm_encode(qualified, ev);
	}
	kret = check_kernel_pmu(e, name, ret, retried ? qualified : NULL, ev,
				err);
	if (kret)
		return kret;
	if (ret == PFM_SUCCESS)
		return group ? add_group_mods(name, group, ev, err) : 0;
	if (ret == PFM_ERR_NOTFOUND && tracepoint__is_syntax(name)) {
		int tp_ret = tracepoint__encode(name, group, &ev->attr,
						ev->fstr, sizeof(ev->fstr),
						&tp);

		if (tp_ret != -ENOENT) {
			if (tp_ret)
				error__set(err, tp_ret, "%s", tp.msg);
			return tp_ret;
		}
		unknown_event(e, name, ret, err);
		error__append(err, "; nor is it a tracepoint: %s", tp.msg);
		return -ENOENT;
	}
	return unknown_event(e, name, ret, err);
}

/* The kernel's PMU/terms/ syntax, with a suggestion when unknown. */
static int encode_sysfs(struct events *e, const char *name, const char *group,
			struct event *ev, struct perf_event_info *info,
			struct error *err)
{
	char hint[256] = "";
	int ret;

	ret = sysfs_pmu__encode_event(NULL, name, group, &ev->attr, info, err);
	if (ret == -ENOENT) {
		suggest__event(name, events__core_table(e),
			       events__nearest_table(e), hint, sizeof(hint));
		error__append(err, "%s", hint);
	}
	return ret;
}

/*
 * perf's own names first (legacy, raw, TYPE:CONFIG, mem:), so that their
 * modifiers mean what perf says; then the kernel's PMUs, then libpfm.
 */
static int encode_grouped(struct events *e, const char *name, const char *group,
			  struct event *ev, struct error *err)
{
	struct perf_event_info info = {};
	int ret;

	memset(ev, 0, sizeof(*ev));
	if (strlen(name) >= sizeof(ev->name))
		return error__set(err, ENAMETOOLONG,
				  "event name '%.40s...' is too long", name);
	strcpy(ev->name, name);
	ret = perf_name__encode(name, group, &ev->attr, &info, err);
	if (ret == -ENOENT && sysfs_pmu__is_syntax(name))
		ret = encode_sysfs(e, name, group, ev, &info, err);
	else if (ret == -ENOENT)
		ret = encode_pfm(e, name, group, ev, err); /* fills ev->fstr */
	if (ret)
		return ret;
	if (info.fstr[0])
		snprintf(ev->fstr, sizeof(ev->fstr), "%s", info.fstr);
	/* name= is the event's name in rows and metrics. */
	if (info.display[0])
		snprintf(ev->name, sizeof(ev->name), "%s", info.display);
	ev->attr.size = sizeof(ev->attr);
	ev->own_period = ev->attr.sample_period != 0;
	return 0;
}

int events__encode(struct events *e, const char *name, struct event *ev,
		   struct error *err)
{
	return encode_grouped(e, name, NULL, ev, err);
}

/* A breakpoint's length slash, "mem:0/4", opens no term list. */
static bool is_length_slash(const char *name, size_t n, const char *p)
{
	return n > 4 && !strncmp(name, "mem:", 4) && !memchr(name, '/', n) &&
	       p[1] >= '0' && p[1] <= '9';
}

/*
 * Copies the next name of a list and returns its delimiter (',' or NUL),
 * or NULL when the name does not fit. Commas inside PMU/.../ and inside
 * quotes ('...') do not split.
 */
static const char *next_name(const char *p, char *out, size_t len)
{
	bool quoted = false;
	int slashes = 0;
	size_t n = 0;

	for (; *p && (*p != ',' || slashes % 2 || quoted); p++) {
		if (*p == '\'')
			quoted = !quoted;
		else if (*p == '/' && !quoted && !is_length_slash(out, n, p))
			slashes++;
		if (n + 1 >= len)
			return NULL;
		out[n++] = *p;
		out[n] = '\0';
	}
	out[n] = '\0';
	return p;
}

/* "name{" or "{": opens a group, named or not (perf's names are dropped). */
static char *group_open(char *name)
{
	size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyz"
				"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

	return name[n] == '{' ? name + n + 1 : NULL;
}

/*
 * "...}" or "...}:mods": closes a group; *mods gets its modifiers, which
 * perf adds to every member's own. False when name closes nothing.
 */
static bool group_close(char *name, const char **mods)
{
	char *brace = strrchr(name, '}');

	if (!brace || (brace[1] && brace[1] != ':'))
		return false;
	*mods = brace[1] ? brace + 2 : "";
	*brace = '\0';
	return true;
}

/* Encodes every member of the group that starts at first again, with mods. */
static int regroup(struct events *e, struct event_list *list, int first,
		   char (*src)[EVENT_NAME_LEN], const char *mods,
		   struct error *err)
{
	int ret;

	if (!*mods)
		return 0;
	for (int i = first; i < list->nr; i++) {
		ret = encode_grouped(e, src[i], mods, &list->ev[i], err);
		if (ret)
			return ret;
		list->ev[i].leader = first;
	}
	return 0;
}

static int add_name(struct events *e, const char *spec, const char *name,
		    struct event_list *list, struct error *err)
{
	struct event *ev = &list->ev[list->nr];
	int ret;

	if (!*name)
		return error__set(err, EINVAL, "empty event name in '%s'",
				  spec);
	if (strpbrk(name, "{}"))
		return error__set(err, EINVAL, "unbalanced braces in '%s'",
				  spec);
	if (list->nr == BPMC_MAX_EVENTS)
		return error__set(err, E2BIG,
				  "too many events in '%s': at most %d", spec,
				  BPMC_MAX_EVENTS);
	ret = events__encode(e, name, ev, err);
	if (ret)
		return ret;
	for (int i = 0; i < list->nr; i++) {
		if (!strcmp(list->ev[i].name, ev->name))
			return error__set(err, EINVAL,
					  "event '%s' is listed twice",
					  ev->name);
	}
	return 0;
}

/*
 * The kernel takes pinned and exclusive from a group's leader only and
 * refuses them on a member: a group's D or e pins or reserves the group.
 */
static void members_follow_leader(struct event_list *list)
{
	for (int i = 0; i < list->nr; i++) {
		if (list->ev[i].leader != i) {
			list->ev[i].attr.pinned = 0;
			list->ev[i].attr.exclusive = 0;
		}
	}
}

int events__parse_list(struct events *e, const char *spec,
		       struct event_list *list, struct error *err)
{
	char src[BPMC_MAX_EVENTS][EVENT_NAME_LEN], buf[EVENT_NAME_LEN], *name;
	const char *p = spec, *mods;
	int ret, group = -1;

	list->nr = 0;
	if (!*spec)
		return error__set(err, EINVAL, "empty event list");
	for (;;) {
		const char *start = p;
		bool closes;

		p = next_name(p, buf, sizeof(buf));
		if (!p)
			return error__set(err, ENAMETOOLONG,
					  "event name '%.40s...' is too long",
					  start);
		name = group_open(buf);
		if (name && group >= 0)
			return error__set(
				err, EINVAL,
				"nested '{' in '%s': groups do not nest", spec);
		if (name)
			group = list->nr;
		else
			name = buf;
		closes = group_close(name, &mods);
		if (closes && group < 0)
			return error__set(err, EINVAL,
					  "unbalanced braces in '%s'", spec);
		ret = add_name(e, spec, name, list, err);
		if (ret)
			return ret;
		strcpy(src[list->nr], name);
		list->ev[list->nr].leader = group >= 0 ? group : list->nr;
		list->nr++;
		if (closes) {
			ret = regroup(e, list, group, src, mods, err);
			if (ret)
				return ret;
			group = -1;
		}
		if (!*p++)
			break;
	}
	if (group >= 0)
		return error__set(err, EINVAL, "unclosed '{' in '%s'", spec);
	members_follow_leader(list);
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
