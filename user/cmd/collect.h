/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the commands that run the engine (record, top) share, so that
 * neither is built on the other: the signals that stop them, how the
 * engine's lines are printed, the capability check, and the options
 * both take (their keys and their one handler).
 */
#ifndef BPMC_CMD_COLLECT_H
#define BPMC_CMD_COLLECT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/opts.h"
#include "cmd/privilege.h"
#include "engine/engine.h"

/*
 * The command line of the commands that collect: record's every option;
 * top takes the collector's part of them (collect_parse_option).
 */
struct collect_env {
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

/* Set by the handlers collect_catch_signals() installs. */
extern volatile sig_atomic_t collect_stop, collect_rotate;

/*
 * SIGINT and SIGTERM stop the run; SIGHUP asks for a rotation, or stops
 * too where hangup_stops (a terminal went); a closed pipe comes back as
 * EPIPE, to end the run cleanly.
 */
void collect_catch_signals(bool hangup_stops);

/* engine_ops.say: a warning or a notice on stderr. */
void collect_say(void *ctx, enum engine_say level, const char *msg);

/* At the end of a run (-v: the cgroup cache's figures; samples the
 * full counts map lost), once the engine is stopped. */
void collect_say_totals(const struct engine *e, long max_keys);

/* True when the effective capabilities cover BPF and perf_event; else
 * missing names what is lacking. */
bool collect_has_capabilities(char *missing, size_t len);

/*
 * The long-only keys of the options record and top share; each
 * command's own long-only keys start at OPT_COLLECT__END.
 */
enum {
	OPT_MODE = OPT_LONG_ONLY,
	OPT_MAX_KEYS,
	OPT_PMU,
	OPT_BEST_EFFORT,
	OPT_KUBE_PODS_DIR,
	OPT_KUBE_CONTAINERS_DIR,
	OPT_COLLECT__END,
};

/* The identity options: the kubelet's log trees that name pods and
 * containers (record and top). */
#define CMD_OPTION_KUBE                                                      \
	{ "kube-pods-dir", OPT_KUBE_PODS_DIR, required_argument, "DIR",      \
	  "the kubelet's pod logs, for namespace and pod names\n"            \
	  "(default /var/log/pods)" },                                       \
	{                                                                    \
		"kube-containers-dir", OPT_KUBE_CONTAINERS_DIR,              \
			required_argument, "DIR",                            \
			"the kubelet's container log links, for container\n" \
			"names (default /var/log/containers)"                \
	}

/*
 * The one handler of the options that record and top share: -e, -d, -G
 * (repeatable), -v, --mode, --max-keys, --pmu, --best-effort,
 * --kube-pods-dir, --kube-containers-dir, into env.
 * 0, or -errno with err set; 1, err untouched, for any other
 * key (the command's own).
 */
int collect_parse_option(struct collect_env *env, int key, const char *arg,
			 struct error *err);

/* The engine's options from the parsed command line: row_scopes are the
 * rows the outputs want, host the rows' host. */
void collect_engine_opts(const struct collect_env *env, unsigned row_scopes,
			 const char *host, struct engine_opts *o);

/* -d's seconds, with at most 3 decimals: "2", "1.5". 0 or -EINVAL. */
int parse_seconds_ms(const char *s, uint64_t *ms);

#endif
