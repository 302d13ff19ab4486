// SPDX-License-Identifier: GPL-2.0
/* The engine's handle and its interval loop (engine/engine.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/util.h"
#include "engine/setup.h"
#include "engine/state.h"

int engine__new(struct engine **out, const struct engine_opts *opts,
		const struct engine_ops *ops, struct error *err)
{
	struct engine *e = calloc(1, sizeof(*e));
	int ret;

	*out = NULL;
	if (!e)
		return error__set(err, ENOMEM, "cannot start: %s",
				  strerror(ENOMEM));
	e->opts = *opts;
	e->ops = ops;
	e->check.tolerance_pct = opts->tolerance_pct;
	e->rows.scopes = opts->row_scopes;
	e->rows.rollup_depth = opts->rollup_depth;
	if (perf_max_sample_rate(&e->max_rate))
		e->max_rate = 0;
	ret = setup__identity(e, err);
	if (!ret)
		ret = setup__events(e, err);
	if (ret) {
		engine__free(e);
		return ret;
	}
	*out = e;
	return 0;
}

int engine__setup(struct engine *e, struct error *err)
{
	return setup__collector(e, err);
}

int engine__start(struct engine *e, struct error *err)
{
	int ret = counters__enable(&e->counters);

	e->last_cut_ns = clock_ns(CLOCK_MONOTONIC); /* the counts start here */
	for (int cpu = 0; cpu < e->counters.nr_cpus; cpu++)
		if (counters__has_cpu(&e->counters, cpu))
			e->read_ns[cpu] = e->last_cut_ns;
	if (ret)
		return error__set(err, ret, "cannot enable the counters: %s",
				  strerror(-ret));
	return 0;
}

static void sleep_until(uint64_t mono_ns)
{
	struct timespec ts = {
		.tv_sec = mono_ns / 1000000000ull,
		.tv_nsec = mono_ns % 1000000000ull,
	};

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static bool stop_asked(const struct engine *e)
{
	return e->stop || (e->ops->stop && *e->ops->stop);
}

/* Until the instant, or a signal; the command may wake earlier (a key). */
static void wait_until(struct engine *e, uint64_t mono_ns)
{
	const struct engine_ops *ops = e->ops;

	if (!ops->wait)
		sleep_until(mono_ns);
	else if (ops->wait(ops->ctx, mono_ns))
		e->stop = true;
}

/* Intervals end on start + k * interval, so they never drift. */
int engine__run(struct engine *e, struct sink *sink, struct error *err)
{
	const struct engine_ops *ops = e->ops;
	uint64_t interval = e->opts.interval_ms * 1000000ull;
	uint64_t start = clock_ns(CLOCK_MONOTONIC);
	uint64_t next = start + interval, deadline = UINT64_MAX, now;
	int ret;

	e->sink = sink;
	if (e->opts.duration_ms)
		deadline = start + e->opts.duration_ms * 1000000ull;
	for (;;) {
		wait_until(e, next < deadline ? next : deadline);
		now = clock_ns(CLOCK_MONOTONIC);
		if (now < next && now < deadline && !stop_asked(e))
			continue; /* woken by a signal, not a boundary */
		if (ops->interval_begin)
			ops->interval_begin(ops->ctx);
		ret = interval__write(e, err);
		if (!ret && ops->interval_end)
			ops->interval_end(ops->ctx);
		if (ret || stop_asked(e) || now >= deadline)
			return ret;
		while (next <= now)
			next += interval;
	}
}

void engine__end(struct engine *e)
{
	interval__warn_rare(e, true);
}

void engine__stop(struct engine *e)
{
	if (!e)
		return;
	if (e->counters.fd)
		counters__disable(&e->counters);
	collector__destroy(e->collector);
	e->collector = NULL;
	counters__close(&e->counters);
}

void engine__free(struct engine *e)
{
	if (!e)
		return;
	engine__stop(e);
	interval_data__free(&e->data);
	events__free(e->names);
	cgroups__free(e->cgroups);
	kube__free(e->kube);
	free(e);
}

void engine__view(const struct engine *e, struct engine_view *v)
{
	*v = (struct engine_view){
		.asked = &e->asked,
		.events = &e->events,
		.support = e->support,
		.collector = e->collector,
		.check = &e->check,
		.drops = e->drops,
		.cgroups = e->cgroups,
	};
}
