// SPDX-License-Identifier: GPL-2.0
/*
 * libpfm uncore table -> kernel PMU, by the perf_name each libpfm table
 * carries (lib/pfmlib_intel_*_unc*.c, pfmlib_*rapl.c, pfmlib_amd64_*.c),
 * which libpfm keeps to itself: a few exact names, then the rule its
 * Intel uncore tables follow, PREFIX_unc_UNIT[N] -> uncore_UNIT[_N].
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "names/kernel_pmu.h"
#include "names/pfm.h"
#include "names/sysfs_pmu.h"

static const struct {
	const char *table, *kernel;
} exact_names[] = {
	{ "rapl", "power" },
	{ "amd64_rapl", "power" },
	{ "amd64_fam15h_nb", "amd_nb" },
	{ "nhm_unc", "uncore" },
	{ "wsm_unc", "uncore" },
};

/* libpfm shortens three units the kernel spells out. */
static const struct {
	const char *unit, *kernel;
} unit_names[] = {
	{ "cbo", "cbox" },
	{ "ubo", "ubox" },
	{ "sbo", "sbox" },
};

static bool uncore_unit_name(const char *unit, char *buf, size_t len)
{
	size_t n = strlen(unit), digits = n;
	const char *kernel_unit = NULL;
	char stem[64];
	int w;

	while (digits > 0 && isdigit((unsigned char)unit[digits - 1]))
		digits--;
	if (!digits || digits >= sizeof(stem))
		return false;
	snprintf(stem, sizeof(stem), "%.*s", (int)digits, unit);
	for (size_t i = 0; i < ARRAY_SIZE(unit_names); i++)
		if (!strcmp(stem, unit_names[i].unit))
			kernel_unit = unit_names[i].kernel;
	if (digits < n)
		w = snprintf(buf, len, "uncore_%s_%s",
			     kernel_unit ? kernel_unit : stem, unit + digits);
	else
		w = snprintf(buf, len, "uncore_%s",
			     kernel_unit ? kernel_unit : stem);
	return w > 0 && (size_t)w < len;
}

bool kernel_pmu__for_table(const char *table, char *buf, size_t len)
{
	const char *unit = strstr(table, "_unc_");
	size_t n = strlen(table);

	for (size_t i = 0; i < ARRAY_SIZE(exact_names); i++) {
		if (!strcmp(table, exact_names[i].table)) {
			snprintf(buf, len, "%s", exact_names[i].kernel);
			return true;
		}
	}
	/* amd64_fam19h_zen3_l3 and its kin: the L3 PMU. */
	if (!strncmp(table, "amd64_", 6) && n > 3 &&
	    !strcmp(table + n - 3, "_l3")) {
		snprintf(buf, len, "amd_l3");
		return true;
	}
	return unit && uncore_unit_name(unit + 5, buf, len);
}

/* "table::event" of name, without unit masks or modifiers. */
static void event_only(const char *name, char *buf, size_t len)
{
	const char *sep = strstr(name, "::");
	const char *ev = sep ? sep + 2 : name;

	snprintf(buf, len, "%.*s", (int)(ev - name + strcspn(ev, ":")), name);
}

static const char *sep_of(const char *name)
{
	return strstr(name, "::");
}

/*
 * A bare name libpfm looks up in the tables it detected only: the first
 * uncore table, detected or not, that has it (RAPL_ENERGY_PKG on a host
 * whose libpfm enabled no RAPL table, because the kernel has no power
 * PMU), so that its refusal can say which kernel PMU is missing.
 */
static bool uncore_table_of(const char *event, char *buf, size_t len)
{
	pfm_pmu_info_t info;
	char full[320];
	pfm_pmu_t pmu;

	pfm_for_all_pmus(pmu) {
		if (!libpfm__pmu_get(pmu, &info) ||
		    info.type != PFM_PMU_TYPE_UNCORE)
			continue;
		snprintf(full, sizeof(full), "%s::%s", info.name, event);
		if (pfm_find_event(full) >= 0) {
			snprintf(buf, len, "%s", info.name);
			return true;
		}
	}
	return false;
}

/* The libpfm table of name, as encoded or as libpfm would look it up. */
static bool event_table(const char *name, const char *fstr, char *buf,
			size_t len)
{
	const char *sep = fstr ? strstr(fstr, "::") : NULL;
	char event[256];
	pfm_event_info_t info;
	pfm_pmu_info_t pinfo;
	int idx;

	if (sep) {
		snprintf(buf, len, "%.*s", (int)(sep - fstr), fstr);
		return true;
	}
	event_only(name, event, sizeof(event));
	idx = pfm_find_event(event);
	if (idx < 0 && !sep_of(name))
		return uncore_table_of(event, buf, len);
	/* Unknown to libpfm: a misspelling, for the caller to suggest. */
	if (idx < 0 || !libpfm__event_get(idx, &info) ||
	    !libpfm__pmu_get(info.pmu, &pinfo))
		return false;
	snprintf(buf, len, "%s", pinfo.name);
	return true;
}

bool kernel_pmu__is_uncore_table(const char *table)
{
	pfm_pmu_info_t info;
	int pmu = libpfm__pmu_by_name(table);

	return pmu >= 0 && libpfm__pmu_get(pmu, &info) &&
	       info.type == PFM_PMU_TYPE_UNCORE;
}

static int check_known(const char *root, const char *name, const char *kpmu,
		       const struct perf_event_attr *attr, struct error *err)
{
	char path[512];
	long type;
	int ret;

	snprintf(path, sizeof(path), "%s/%s/type",
		 root ? root : sysfs_pmu__root(), kpmu);
	ret = read_file_long(path, &type);
	if (ret == -ENOENT)
		return error__set(
			err, ENODEV,
			"event '%s' needs the kernel PMU '%s', which this host lacks (%s: %s)",
			name, kpmu, path, strerror(ENOENT));
	if (ret)
		return error__set(
			err, ret,
			"event '%s' needs the kernel PMU '%s': %s: %s", name,
			kpmu, path, strerror(-ret));
	if (attr && attr->type != (__u32)type)
		return error__set(
			err, ENODEV,
			"event '%s' needs the kernel PMU '%s' (type %ld), but libpfm encoded it for type %u",
			name, kpmu, type, attr->type);
	return 0;
}

int kernel_pmu__check(const char *root, const char *name, const char *fstr,
		      const struct perf_event_attr *attr, struct error *err)
{
	char table[64], kpmu[64];

	if (!event_table(name, fstr, table, sizeof(table)) ||
	    !kernel_pmu__is_uncore_table(table))
		return 0;
	if (kernel_pmu__for_table(table, kpmu, sizeof(kpmu)))
		return check_known(root, name, kpmu, attr, err);
	/* No rule for this table: refuse only what would count wrongly. */
	if (attr && attr->type < PERF_TYPE_MAX)
		return error__set(
			err, ENODEV,
			"event '%s' is of libpfm's uncore table '%s', whose kernel PMU libpfm did not find: it would count as a core event",
			name, table);
	return 0;
}
