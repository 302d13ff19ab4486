// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "names/events.h"
#include "rows/rare.h"
#include "rows/self.h"

static uint64_t tv_ns(const struct timeval *tv)
{
	return tv->tv_sec * 1000000000ull + tv->tv_usec * 1000ull;
}

void self__init(struct self *s, const struct prog_stats *start,
		const struct event_support *events, size_t nr_events)
{
	s->prog = *start;
	getrusage(RUSAGE_SELF, &s->usage);
	s->events = events;
	s->nr_events = nr_events;
}

/*
 * Whether each event asked for is counted, every interval, so that a
 * query over any span of a fleet's files sees which hosts lack one: a
 * gauge, like peak_rss_bytes, named after the event it concerns.
 */
static int write_supported(const struct self *s, struct row r,
			   struct sink *sink)
{
	char name[32 + EVENT_NAME_LEN];
	int err = 0;

	r.no_count = true;
	r.samples = r.count = 0;
	for (size_t i = 0; i < s->nr_events && !err; i++) {
		snprintf(name, sizeof(name), "event_supported:%s",
			 s->events[i].event);
		r.event = name;
		r.value = s->events[i].supported ? "1" : "0";
		err = sink->ops->write_row(sink, &r);
	}
	return err;
}

/* bpmc's own row: the one process of ours, no running_pct. */
static struct row self_row(void)
{
	return (struct row){
		.scope = "self",
		.pid = getpid(),
		.tid = -1,
		.comm = "bpmc",
		.running_pct = -1,
	};
}

int self__write_rows(struct self *s, const struct prog_stats *prog,
		     uint64_t samples_lost, uint64_t samples_missed,
		     struct sink *sink)
{
	struct rusage usage;
	struct row r = self_row();
	char rss[24];
	struct {
		const char *event;
		uint64_t count, samples;
	} m[6];
	int err = 0;

	getrusage(RUSAGE_SELF, &usage);
	m[0].event = "bpf_run_time_ns";
	m[0].count = prog->run_time_ns - s->prog.run_time_ns;
	m[0].samples = prog->runs - s->prog.runs;
	m[1].event = "cpu_user_ns";
	m[1].count = tv_ns(&usage.ru_utime) - tv_ns(&s->usage.ru_utime);
	m[2].event = "cpu_system_ns";
	m[2].count = tv_ns(&usage.ru_stime) - tv_ns(&s->usage.ru_stime);
	m[3].event = "peak_rss_bytes";
	m[3].count = usage.ru_maxrss * 1024ull;
	m[4].event = "samples_lost";
	m[4].count = samples_lost;
	m[5].event = "samples_missed";
	m[5].count = samples_missed;
	for (int i = 0; i < 6 && !err; i++) {
		r.event = m[i].event;
		r.count = m[i].count;
		r.samples = i ? 0 : m[i].samples;
		/* A gauge, not a delta: in value, so that summing count
		 * over a file stays right. */
		r.no_count = i == 3;
		r.value = NULL;
		if (r.no_count) {
			snprintf(rss, sizeof(rss), "%llu",
				 (unsigned long long)m[i].count);
			r.value = rss;
		}
		err = sink->ops->write_row(sink, &r);
	}
	if (!err)
		err = write_supported(s, r, sink);
	s->prog = *prog;
	s->usage = usage;
	return err;
}

int self__write_sampling_err(const struct event_list *events,
			     const struct drain_sums *sums, struct sink *sink)
{
	char name[32 + EVENT_NAME_LEN], value[32];
	struct row r = self_row();
	double err;

	r.no_count = true;
	r.event = name;
	r.value = value;
	int ret = 0;

	for (int e = 0; e < events->nr && !ret; e++) {
		if (!sums->system[e])
			continue;
		snprintf(name, sizeof(name), "sampling_rel_err:%s",
			 events->ev[e].name);
		err = rare_rel_err((double)sums->samples[e]);
		if (isinf(err))
			snprintf(value, sizeof(value), "inf");
		else
			snprintf(value, sizeof(value), "%.4g", err);
		ret = sink->ops->write_row(sink, &r);
	}
	return ret;
}
