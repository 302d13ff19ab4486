/* SPDX-License-Identifier: GPL-2.0 */
/* bpmc record's options, parsed and checked before anything is opened. */
#ifndef BPMC_RECORD_H
#define BPMC_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/opts.h"
#include "cmd/privilege.h"

struct record_env {
	const char *events;
	const char *output;
	const char *pmu;
	long interval_ms;
	uint64_t duration_ms; /* -d, in seconds with up to 3 decimals */
	uint64_t period;
	long freq;
	bool freq_given;
	long max_keys;
	unsigned scopes;
	bool exact; /* exact mode: --mode exact, or the default */
	bool mode_given; /* --mode, or -c/-F: sampling */
	/* -G PATH[,PATH...], repeatable: the lists joined by commas ("\,"
	 * in a name); NULL without -G. */
	const char *filters;
	char filter_list[4096];
	int rollup_depth; /* --rollup[=DEPTH]: -1 none */
	const char *cgroup_v1; /* --cgroup-v1 CONTROLLER */
	bool self_stats; /* --self-stats */
	bool check; /* --check */
	double tolerance_pct; /* --check=PCT */
	/* The service options (docs/service.md); all 0: one file, as ever. */
	uint64_t rotate_s; /* --rotate DURATION: on wall-clock multiples */
	uint64_t rotate_bytes; /* --rotate SIZE */
	long keep; /* --keep N published files of this pattern */
	uint64_t max_disk; /* --max-disk BYTES of them */
	long backlog; /* --backlog N intervals held while writes fail */
	const char *user; /* --user NAME: drop to it after setup */
	bool best_effort; /* --best-effort: drop events this host lacks */
	/* The kubelet's log trees (identity/kube.h); NULL: the defaults. */
	const char *kube_pods_dir; /* --kube-pods-dir */
	const char *kube_containers_dir; /* --kube-containers-dir */
	/* Prometheus (docs/prometheus.md); neither: no Prometheus sink. */
	const char *listen; /* --listen [ADDR]:PORT */
	const char *textfile; /* --textfile DIR */
	unsigned prom_scopes; /* --prom-scopes, PROM_* */
	bool prom_scopes_given;
	long prom_expire; /* --prom-expire N intervals; 0: never */
	bool prom_expire_given;
	struct privilege_target target; /* --user, checked at parse time */
};

extern const struct cmd_spec record_spec;

/*
 * Fills env from argv. 0: go on; otherwise -ECANCELED or -EINVAL, with
 * --help or the refusal printed (cmd_exit_status() gives the status).
 */
int record_parse_args(int argc, char **argv, struct record_env *env);

#endif
