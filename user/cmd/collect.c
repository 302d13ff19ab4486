// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cmd/collect.h"
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
