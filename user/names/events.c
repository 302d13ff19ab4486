// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
/* The kernel's header first: libpfm's copy then steps aside. */
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "names/events.h"
#include "names/pmu_table.h"
#include "names/sysfs_pmu.h"
#include "common/util.h"

static struct {
	bool ready;
	bool forced; /* --pmu given */
	bool warned; /* "no table for this CPU" said once */
	char core[64]; /* table used for bare names, or "" */
	struct cpu_id cpu;
	bool cpu_known;
	struct pmu_choice choice;
} st;

bool pfm_pmu_get(pfm_pmu_t pmu, pfm_pmu_info_t *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return pfm_get_pmu_info(pmu, info) == PFM_SUCCESS;
}

bool pfm_event_get(int idx, pfm_event_info_t *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return pfm_get_event_info(idx, PFM_OS_NONE, info) == PFM_SUCCESS;
}

bool pfm_umask_get(int idx, int attr, pfm_event_attr_info_t *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return pfm_get_event_attr_info(idx, attr, PFM_OS_NONE, info) ==
		       PFM_SUCCESS &&
	       info->type == PFM_ATTR_UMASK;
}

int events__pfm_pmu_by_name(const char *name)
{
	pfm_pmu_info_t info;
	pfm_pmu_t pmu;

	pfm_for_all_pmus(pmu) {
		if (pfm_pmu_get(pmu, &info) && !strcmp(info.name, name))
			return pmu;
	}
	return -1;
}

static int force_table(const char *table)
{
	char hint[256] = "";

	if (events__pfm_pmu_by_name(table) >= 0) {
		snprintf(st.core, sizeof(st.core), "%s", table);
		st.forced = true;
		return 0;
	}
	events__suggest_table(table, hint, sizeof(hint));
	p_err("unknown PMU table '--pmu %s'%s", table, hint);
	return -ENOENT;
}

int events__init(const char *pmu_table)
{
	int ret;

	if (st.ready)
		return 0;
	/* Without this, libpfm 4.13 hides every table it did not detect,
	 * even when the name carries an explicit TABLE:: prefix. */
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	ret = pfm_initialize();
	if (ret != PFM_SUCCESS) {
		p_err("cannot initialise libpfm: %s", pfm_strerror(ret));
		return -EINVAL;
	}
	st.ready = true;
	st.cpu_known = !cpuinfo_read(&st.cpu);
	if (st.cpu_known)
		pmu_table_for_cpu(&st.cpu, &st.choice);
	if (pmu_table)
		return force_table(pmu_table);
	if (st.choice.table && events__pfm_pmu_by_name(st.choice.table) >= 0)
		snprintf(st.core, sizeof(st.core), "%s", st.choice.table);
	return 0;
}

const char *events__core_table(void)
{
	return st.core[0] ? st.core : NULL;
}

const char *events__nearest_table(void)
{
	return st.core[0] ? NULL : st.choice.nearest;
}

void events__warn_no_table(void)
{
	if (st.warned || st.core[0] || !st.cpu_known)
		return;
	st.warned = true;
	if (st.choice.nearest)
		p_warn("this libpfm has no event table for this CPU (%s family 0x%x model 0x%x%s%s); the nearest is %s: force it with --pmu %s",
		       st.cpu.vendor, st.cpu.family, st.cpu.model,
		       st.choice.uarch ? ", " : "",
		       st.choice.uarch ? st.choice.uarch : "",
		       st.choice.nearest, st.choice.nearest);
	else
		p_warn("this libpfm has no event table for this CPU (%s family 0x%x model 0x%x) and bpmc knows no close one; name events with TABLE:: or use --pmu",
		       st.cpu.vendor, st.cpu.family, st.cpu.model);
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
static bool nearest_knows(const char *name)
{
	char qualified[EVENT_NAME_LEN + 64];
	struct event probe;

	if (!is_bare(name) || st.core[0] || !st.choice.nearest)
		return false;
	snprintf(qualified, sizeof(qualified), "%s::%s", st.choice.nearest,
		 name);
	return pfm_encode(qualified, &probe) == PFM_SUCCESS;
}

static void unknown_event(const char *name, int ret, char *err, size_t len)
{
	int n = snprintf(err, len, "unknown event '%s': %s", name,
			 pfm_strerror(ret));

	if (n < 0 || (size_t)n >= len)
		return;
	if (nearest_knows(name)) {
		events__warn_no_table();
		snprintf(
			err + n, len - n,
			" (this CPU has no libpfm table; with --pmu %s it is %s::%s)",
			st.choice.nearest, st.choice.nearest, name);
		return;
	}
	events__suggest_event(name, err + n, len - n);
}

int events__encode(const char *name, struct event *ev, char *err, size_t errlen)
{
	char qualified[EVENT_NAME_LEN + 64];
	int ret;

	memset(ev, 0, sizeof(*ev));
	if (strlen(name) >= sizeof(ev->name)) {
		snprintf(err, errlen, "event name '%.40s...' is too long",
			 name);
		return -ENAMETOOLONG;
	}
	strcpy(ev->name, name);
	if (sysfs_pmu__is_syntax(name)) {
		ret = sysfs_pmu__encode(NULL, name, &ev->attr, ev->fstr,
					sizeof(ev->fstr), err, errlen);
		if (ret == -ENOENT)
			events__suggest_event(name, err + strlen(err),
					      errlen - strlen(err));
		if (ret)
			return ret;
		goto done;
	}
	ret = pfm_encode(name, ev);
	if (ret == PFM_ERR_NOTFOUND && is_bare(name) && st.core[0]) {
		/* libpfm only searches detected tables for bare names; ours
		 * is derived from CPUID (or forced), so retry through it. */
		snprintf(qualified, sizeof(qualified), "%s::%s", st.core, name);
		if (pfm_encode(qualified, ev) == PFM_SUCCESS)
			ret = PFM_SUCCESS;
	}
	if (ret != PFM_SUCCESS) {
		unknown_event(name, ret, err, errlen);
		return -ENOENT;
	}
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

int events__parse_list(const char *spec, struct event_list *list, char *err,
		       size_t errlen)
{
	char name[EVENT_NAME_LEN];
	const char *p = spec;
	int ret, group = -1;
	size_t n;

	list->nr = 0;
	if (!*spec) {
		snprintf(err, errlen, "empty event list");
		return -EINVAL;
	}
	for (;;) {
		const char *start = p;
		bool closes = false;

		if (*p == '{') {
			if (group >= 0) {
				snprintf(
					err, errlen,
					"nested '{' in '%s': groups do not nest",
					spec);
				return -EINVAL;
			}
			group = list->nr;
			p++;
		}
		p = next_name(p, name, sizeof(name));
		if (!p) {
			snprintf(err, errlen,
				 "event name '%.40s...' is too long", start);
			return -ENAMETOOLONG;
		}
		n = strlen(name);
		if (n && name[n - 1] == '}') {
			name[--n] = '\0';
			closes = true;
		}
		if (!*name) {
			snprintf(err, errlen, "empty event name in '%s'", spec);
			return -EINVAL;
		}
		if (strpbrk(name, "{}") || (closes && group < 0)) {
			snprintf(err, errlen, "unbalanced braces in '%s'",
				 spec);
			return -EINVAL;
		}
		if (list->nr == BPMC_MAX_EVENTS) {
			snprintf(err, errlen,
				 "too many events in '%s': at most %d", spec,
				 BPMC_MAX_EVENTS);
			return -E2BIG;
		}
		for (int i = 0; i < list->nr; i++) {
			if (!strcmp(list->ev[i].name, name)) {
				snprintf(err, errlen,
					 "event '%s' is listed twice", name);
				return -EINVAL;
			}
		}
		ret = events__encode(name, &list->ev[list->nr], err, errlen);
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
		snprintf(err, errlen, "unclosed '{' in '%s'", spec);
		return -EINVAL;
	}
	return 0;
}

bool event__is_hardware(const struct event *ev)
{
	return ev->attr.type == PERF_TYPE_HARDWARE ||
	       ev->attr.type == PERF_TYPE_HW_CACHE ||
	       ev->attr.type == PERF_TYPE_RAW;
}

bool events__host_has_pmu(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.disabled = 1,
	};
	int fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1,
			 PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}
