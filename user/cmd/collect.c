// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cmd/collect.h"
#include "cmd/record.h"
#include "common/util.h"
#include "identity/cgroups.h"

volatile sig_atomic_t collect_stop, collect_rotate;
static bool hangup_stops; /* set before the handler is */

static void on_signal(int sig)
{
	if (sig == SIGHUP && !hangup_stops)
		collect_rotate = 1;
	else
		collect_stop = 1;
}

void collect_catch_signals(bool hangup)
{
	struct sigaction sa = { .sa_handler = on_signal };

	hangup_stops = hangup;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void collect_say(void *ctx, enum engine_say level, const char *msg)
{
	(void)ctx;
	if (level == ENGINE_WARN)
		p_warn("%s", msg);
	else
		p_info("%s", msg);
}

void collect_say_totals(const struct engine *e, long max_keys)
{
	struct engine_view v;

	engine__view(e, &v);
	if (verbose && v.cgroups)
		p_info("cgroup cache: %zu entries at exit, %zu at most, %" PRIu64
		       " removed cgroups forgotten",
		       cgroups__cached(v.cgroups), cgroups__peak(v.cgroups),
		       cgroups__forgotten(v.cgroups));
	if (v.drops[BPMC_DROP_MAP_FULL])
		p_warn("%" PRIu64
		       " samples were lost in all because the counts map was full (--max-keys %ld)",
		       v.drops[BPMC_DROP_MAP_FULL], max_keys);
}

bool collect_has_capabilities(char *missing, size_t len)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};
	bool admin, bpf, perfmon;

	if (syscall(SYS_capget, &hdr, data))
		return true; /* cannot tell: let the kernel decide */
#define HAS(cap) (data[(cap) / 32].effective & (1u << ((cap) % 32)))
	admin = HAS(CAP_SYS_ADMIN);
	bpf = HAS(CAP_BPF) || admin;
	perfmon = HAS(CAP_PERFMON) || admin;
#undef HAS
	snprintf(missing, len, "%s%s%s", bpf ? "" : "CAP_BPF",
		 !bpf && !perfmon ? " and " : "", perfmon ? "" : "CAP_PERFMON");
	return bpf && perfmon;
}

/* Seconds with at most 3 decimals, up to 100 years: "2", "1.5", "0.25". */
int parse_seconds_ms(const char *s, uint64_t *ms)
{
	uint64_t whole = 0, frac = 0, scale = 1000;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		whole = whole * 10 + (*p - '0');
		if (whole > 100ull * 365 * 86400)
			return -ERANGE;
	}
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return -EINVAL;
		for (; isdigit((unsigned char)*p); p++) {
			if (scale == 1)
				return -EINVAL; /* finer than a millisecond */
			scale /= 10;
			frac += (*p - '0') * scale;
		}
	}
	if (*p)
		return -EINVAL;
	*ms = whole * 1000 + frac;
	return *ms ? 0 : -EINVAL;
}

/* False with errno set (ENOTDIR for a file) when path is no directory. */
static bool is_directory(const char *path)
{
	struct stat st;

	if (!*path || stat(path, &st))
		return false;
	errno = S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
	return !errno;
}

int collect_parse_option(struct collect_env *env, int key, const char *arg,
			 struct error *err)
{
	size_t len;

	switch (key) {
	case 'e':
		env->events = arg;
		return 0;
	case OPT_KUBE_PODS_DIR:
	case OPT_KUBE_CONTAINERS_DIR:
		/* Given, it must be there: a typo would only show as names
		 * that never come. */
		if (!is_directory(arg))
			return error__set(err, ENOTDIR,
					  "no directory '--%s %s': %s",
					  key == OPT_KUBE_PODS_DIR ?
						  "kube-pods-dir" :
						  "kube-containers-dir",
					  arg, strerror(*arg ? errno : ENOENT));
		if (key == OPT_KUBE_PODS_DIR)
			env->kube_pods_dir = arg;
		else
			env->kube_containers_dir = arg;
		return 0;
	case 'd':
		if (parse_seconds_ms(arg, &env->duration_ms))
			return error__set(
				err, EINVAL,
				"invalid duration '-d %s': want a positive number of seconds, to the ms (1.5)",
				arg);
		return 0;
	case 'G':
		len = strlen(env->filter_list);
		if (!*arg)
			return error__set(err, EINVAL,
					  "invalid '-G ': an empty path");
		if (snprintf(env->filter_list + len,
			     sizeof(env->filter_list) - len, "%s%s",
			     len ? "," : "",
			     arg) >= (int)(sizeof(env->filter_list) - len))
			return error__set(
				err, EINVAL,
				"invalid '-G %s': want cgroup paths, in all at most %zu bytes",
				arg, sizeof(env->filter_list) - 1);
		env->filters = env->filter_list;
		return 0;
	case 'v':
		verbose = true;
		return 0;
	case OPT_MODE:
		if (strcmp(arg, "sampling") && strcmp(arg, "exact"))
			return error__set(
				err, EINVAL,
				"invalid '--mode %s': want sampling or exact",
				arg);
		env->exact = !strcmp(arg, "exact");
		env->mode_given = true;
		return 0;
	case OPT_MAX_KEYS:
		if (parse_long(arg, 1, 1 << 24, &env->max_keys))
			return error__set(
				err, EINVAL,
				"invalid '--max-keys %s': want 1 to 16777216",
				arg);
		return 0;
	case OPT_PMU:
		env->pmu = arg;
		return 0;
	case OPT_BEST_EFFORT:
		env->best_effort = true;
		return 0;
	default:
		return 1; /* not one of ours */
	}
}

void collect_engine_opts(const struct collect_env *env, unsigned row_scopes,
			 const char *host, struct engine_opts *o)
{
	*o = (struct engine_opts){
		.events = env->events,
		.pmu = env->pmu,
		.interval_ms = env->interval_ms,
		.duration_ms = env->duration_ms,
		.period = env->period,
		.freq = env->freq,
		.max_keys = env->max_keys,
		.scopes = env->scopes,
		.tolerance_pct = env->tolerance_pct,
		.row_scopes = row_scopes,
		.exact = env->exact,
		.mode_given = env->mode_given,
		.filters = env->filters,
		.rollup_depth = env->rollup_depth,
		.cgroup_v1 = env->cgroup_v1,
		.self_stats = env->self_stats,
		.best_effort = env->best_effort,
		.kube_pods_dir = env->kube_pods_dir,
		.kube_containers_dir = env->kube_containers_dir,
		.host = host,
		.verbose = verbose,
	};
	if (getenv("BPMC_TEST_FLUSH_GAP_US"))
		o->flush_gap_us = atol(getenv("BPMC_TEST_FLUSH_GAP_US"));
}
