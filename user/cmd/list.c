// SPDX-License-Identifier: GPL-2.0
/* bpmc list: the PMUs and their events, as plain text or JSON. */
#include <ctype.h>
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/opts.h"
#include "common/json.h"
#include "common/util.h"
#include "names/events.h"
#include "names/pfm.h"
#include "names/sysfs_pmu.h"

enum { OPT_PMU = OPT_LONG_ONLY, OPT_ALL, OPT_JSON, OPT_NAMES };

static const struct cmd_option list_options[] = {
	{ "pmu", OPT_PMU, required_argument, "TABLE",
	  "force libpfm's core PMU table" },
	{ "all", OPT_ALL, no_argument, NULL,
	  "include every libpfm table, not only this CPU's" },
	{ "json", OPT_JSON, no_argument, NULL, "machine-readable output" },
	/* For the shell completion: every name a line, and each NAME:UMASK. */
	{ "names", OPT_NAMES, no_argument, NULL, NULL },
	{},
};

static const struct cmd_spec list_spec = {
	.name = "list",
	.operands = "[PATTERN]",
	.summary =
		"List the PMUs and their events: libpfm's tables for this CPU and the\n"
		"kernel's sysfs PMUs. PATTERN is a case-insensitive substring, or a\n"
		"glob (* ? []) over the whole name or the part after TABLE::.",
	.options = list_options,
	.examples =
		"bpmc list                                   # this CPU's tables and sysfs PMUs\n"
		"bpmc list --pmu amd64_fam19h_zen4 'RETIRED_*'\n"
		"bpmc list --all --json cache | jq '.events[].name'\n"
		"bpmc list msr/                              # the kernel's aliases of one PMU",
};

struct lister {
	const char *pattern;
	const char *pmu;
	bool all, json, names_only;
	struct events *names;
	struct json j;
};

/* A glob may be written for the whole name or for the part after ::. */
static bool name_matches(const struct lister *l, const char *name)
{
	const char *bare = strstr(name, "::");

	if (!l->pattern)
		return true;
	if (!strpbrk(l->pattern, "*?["))
		return strcasestr(name, l->pattern) != NULL;
	return !fnmatch(l->pattern, name, FNM_CASEFOLD) ||
	       (bare && !fnmatch(l->pattern, bare + 2, FNM_CASEFOLD));
}

/* Which libpfm tables to show, and how to call their status. */
static const char *table_status(const struct lister *l,
				const pfm_pmu_info_t *info)
{
	const char *core = events__core_table(l->names);

	if (core && !strcmp(info->name, core))
		return info->is_present ? "present" : "selected";
	if (info->is_present)
		return "present";
	return l->all ? "inactive" : NULL;
}

/* The event's fully qualified name matches, or one of its umasks' does. */
static bool event_matches(const struct lister *l, const char *pmu,
			  const pfm_event_info_t *ev)
{
	pfm_event_attr_info_t a;
	char full[512];

	snprintf(full, sizeof(full), "%s::%s", pmu, ev->name);
	if (name_matches(l, full))
		return true;
	for (int i = 0; i < ev->nattrs; i++) {
		if (!libpfm__umask_get(ev->idx, i, &a))
			continue;
		snprintf(full, sizeof(full), "%s::%s:%s", pmu, ev->name,
			 a.name);
		if (name_matches(l, full))
			return true;
	}
	return false;
}

/*
 * --names: the name, each NAME:UMASK, and perf's generic aliases as
 * they are mostly written, in lower case (CPU-CLOCK: cpu-clock).
 */
static void print_event_names(const char *full, const char *pmu,
			      const pfm_event_info_t *ev)
{
	pfm_event_attr_info_t a;

	printf("%s\n", full);
	if (!strcmp(pmu, "perf") && strncmp(ev->name, "PERF_COUNT_", 11)) {
		for (const char *c = ev->name; *c; c++)
			putchar(tolower((unsigned char)*c));
		putchar('\n');
	}
	for (int i = 0; i < ev->nattrs; i++) {
		if (libpfm__umask_get(ev->idx, i, &a))
			printf("%s:%s\n", full, a.name);
	}
}

static void print_event(struct lister *l, const char *pmu,
			const pfm_event_info_t *ev)
{
	pfm_event_attr_info_t a;
	char full[512];

	snprintf(full, sizeof(full), "%s::%s", pmu, ev->name);
	if (l->names_only) {
		print_event_names(full, pmu, ev);
		return;
	}
	if (l->json) {
		json_object_start(&l->j);
		json_kv_string(&l->j, "name", full);
		json_kv_string(&l->j, "pmu", pmu);
		json_kv_string(&l->j, "description", ev->desc);
		if (ev->equiv)
			json_kv_string(&l->j, "equivalent", ev->equiv);
		json_key(&l->j, "umasks");
		json_array_start(&l->j);
	} else {
		printf("%s\n    %s\n", full, ev->desc ? ev->desc : "");
	}
	for (int i = 0; i < ev->nattrs; i++) {
		if (!libpfm__umask_get(ev->idx, i, &a))
			continue;
		if (!l->json) {
			printf("    :%-28s %s\n", a.name, a.desc ? a.desc : "");
			continue;
		}
		json_object_start(&l->j);
		json_kv_string(&l->j, "name", a.name);
		json_kv_string(&l->j, "description", a.desc);
		json_object_end(&l->j);
	}
	if (l->json) {
		json_array_end(&l->j);
		json_object_end(&l->j);
	}
}

static void list_tables(struct lister *l)
{
	pfm_pmu_info_t info;
	const char *status;
	pfm_pmu_t pmu;

	if (!l->json)
		printf("libpfm tables:\n");
	pfm_for_all_pmus(pmu) {
		if (!libpfm__pmu_get(pmu, &info) ||
		    !(status = table_status(l, &info)))
			continue;
		if (!l->json) {
			printf("  %-26s %-9s %2d counters + %d fixed  %4d events  %s\n",
			       info.name, status, info.num_cntrs,
			       info.num_fixed_cntrs, info.nevents,
			       info.desc ? info.desc : "");
			continue;
		}
		json_object_start(&l->j);
		json_kv_string(&l->j, "name", info.name);
		json_kv_string(&l->j, "source", "libpfm");
		json_kv_string(&l->j, "status", status);
		json_kv_uint(&l->j, "counters", info.num_cntrs);
		json_kv_uint(&l->j, "fixed_counters", info.num_fixed_cntrs);
		json_kv_uint(&l->j, "events", info.nevents);
		json_kv_string(&l->j, "description", info.desc);
		json_object_end(&l->j);
	}
}

static int print_sysfs_pmu(const struct sysfs_event *pmu, void *ctx)
{
	struct lister *l = ctx;

	if (!l->json) {
		printf("  %-26s type %d\n", pmu->pmu, pmu->type);
		return 0;
	}
	json_object_start(&l->j);
	json_kv_string(&l->j, "name", pmu->pmu);
	json_kv_string(&l->j, "source", "sysfs");
	json_kv_uint(&l->j, "type", pmu->type);
	json_object_end(&l->j);
	return 0;
}

static void list_table_events(struct lister *l)
{
	pfm_pmu_info_t info;
	pfm_event_info_t ev;
	pfm_pmu_t pmu;

	pfm_for_all_pmus(pmu) {
		if (!libpfm__pmu_get(pmu, &info) || !table_status(l, &info))
			continue;
		for (int i = info.first_event; i != -1;
		     i = pfm_get_event_next(i)) {
			if (libpfm__event_get(i, &ev) &&
			    event_matches(l, info.name, &ev))
				print_event(l, info.name, &ev);
		}
	}
}

static int print_sysfs_event(const struct sysfs_event *ev, void *ctx)
{
	struct lister *l = ctx;
	char full[512];

	snprintf(full, sizeof(full), "%s/%s/", ev->pmu, ev->event);
	if (!name_matches(l, full))
		return 0;
	if (l->names_only) {
		printf("%s\n", full);
		return 0;
	}
	if (!l->json) {
		printf("%s\n    sysfs alias: %s (type %d)\n", full, ev->terms,
		       ev->type);
		return 0;
	}
	json_object_start(&l->j);
	json_kv_string(&l->j, "name", full);
	json_kv_string(&l->j, "pmu", ev->pmu);
	json_kv_string(&l->j, "source", "sysfs");
	json_kv_string(&l->j, "terms", ev->terms);
	json_kv_uint(&l->j, "type", ev->type);
	json_object_end(&l->j);
	return 0;
}

static int parse_option(void *ctx, int key, const char *arg, struct error *err)
{
	struct lister *l = ctx;

	if (key == OPT_PMU)
		l->pmu = arg;
	else if (key == OPT_ALL)
		l->all = true;
	else if (key == OPT_NAMES)
		l->names_only = true;
	else
		l->json = true;
	return 0;
}

int cmd_list(int argc, char **argv)
{
	struct error error = {};
	struct lister l = {};
	const char *warning;
	int first, err;

	err = cmd_parse(&list_spec, argc, argv, parse_option, &l, &first);
	if (err)
		return cmd_exit_status(err);
	if (argc - first > 1)
		return cmd_refuse(
			&list_spec,
			"unexpected argument '%s': one PATTERN at most",
			argv[first + 1]);
	l.pattern = argv[first];
	err = events__new(&l.names, l.pmu, &error);
	if (err) {
		p_err("%s", error__why(&error, err));
		return EXIT_USAGE;
	}
	warning = events__take_warning(l.names, true);
	if (warning)
		p_warn("%s", warning);
	json_init(&l.j, stdout);
	if (l.names_only) {
		list_table_events(&l);
		sysfs_pmu__for_each_event(NULL, print_sysfs_event, &l);
		events__free(l.names);
		return 0;
	}
	if (l.json) {
		json_object_start(&l.j);
		json_key(&l.j, "pmus");
		json_array_start(&l.j);
	}
	list_tables(&l);
	if (!l.json)
		printf("kernel PMUs (sysfs, PMU/event/ syntax):\n");
	sysfs_pmu__for_each_pmu(NULL, print_sysfs_pmu, &l);
	if (l.json) {
		json_array_end(&l.j);
		json_key(&l.j, "events");
		json_array_start(&l.j);
	} else {
		printf("\nevents:\n");
	}
	list_table_events(&l);
	sysfs_pmu__for_each_event(NULL, print_sysfs_event, &l);
	if (l.json) {
		json_array_end(&l.j);
		json_object_end(&l.j);
	}
	events__free(l.names);
	return 0;
}
