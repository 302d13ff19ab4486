// SPDX-License-Identifier: GPL-2.0
/*
 * bpmc record: the engine (engine/engine.h) with the CSV, and the
 * Prometheus sink beside it, as its outputs; the meta rows, --user's
 * privilege drop, the status line and the end-of-run words are the
 * command's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/collect.h"
#include "cmd/commands.h"
#include "cmd/privilege.h"
#include "cmd/record.h"
#include "cmd/record_meta.h"
#include "cmd/record_outputs.h"
#include "cmd/record_status.h"
#include "common/scope.h"
#include "common/util.h"
#include "engine/engine.h"
#include "sinks/csv_sink.h"

struct record {
	struct collect_env env;
	struct engine *engine;
	struct record_outputs out;
	char host[256];
	char path[4096];
	struct record_meta meta;
	struct record_status status;
};

/* SIGHUP: the file holds whole intervals; it goes now. */
static bool on_wait(void *ctx, uint64_t until_ns)
{
	struct record *r = ctx;
	struct timespec ts = {
		.tv_sec = until_ns / 1000000000ull,
		.tv_nsec = until_ns % 1000000000ull,
	};

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	if (collect_rotate) {
		collect_rotate = 0;
		record_status__clear(&r->status); /* for its notices */
		if (r->out.rows->ops->rotate)
			r->out.rows->ops->rotate(r->out.rows);
	}
	return false;
}

/* A warning never lands in the middle of the status line. */
static void on_interval_begin(void *ctx)
{
	struct record *r = ctx;

	record_status__clear(&r->status);
}

static void on_interval_end(void *ctx)
{
	struct record *r = ctx;
	struct record_progress p = {
		.intervals_lost = record_outputs__intervals_lost(&r->out),
	};
	struct engine_view v;

	engine__view(r->engine, &v);
	csv_sink__progress(&r->out.csv, &p.rows, &p.bytes);
	for (int i = 0; i < BPMC_DROP_NR; i++)
		p.samples_lost += v.drops[i];
	record_status__interval(&r->status, &p);
}

static uint64_t on_intervals_lost(void *ctx)
{
	struct record *r = ctx;

	return record_outputs__intervals_lost(&r->out);
}

/* The status line: on a terminal, unless the CSV streams to it too. */
static bool status_wanted(const struct record *r)
{
	bool to_stdout = !strcmp(r->path, "-");

	return isatty(STDERR_FILENO) && !(to_stdout && isatty(STDOUT_FILENO));
}

/* Once the events are known: the meta rows and the Prometheus sink. */
static int outputs_setup(struct record *r)
{
	struct engine_view v;

	engine__view(r->engine, &v);
	record_meta__build(&r->meta, &r->env, v.asked, v.events, v.support,
			   r->host);
	if (r->out.csv.priv)
		csv_sink__set_meta(&r->out.csv, r->meta.rows, r->meta.nr);
	return record_outputs__setup(&r->out, &r->env, v.events);
}

/* The words at the end of a run; ret: the exit status so far. */
static int run_end(struct record *r, int err, int ret)
{
	struct engine_view v;

	engine__view(r->engine, &v);
	engine__end(r->engine);
	/*
	 * Sampling error is statistical, and under -G the system row is the
	 * host's while the rows are the subtrees': report, never fail.
	 */
	if (!err && r->env.check &&
	    !check__report(v.check, v.events, r->env.scopes) && r->env.exact &&
	    !r->env.filters) {
		p_err("check failed: a discrepancy is above %.4g%%",
		      r->env.tolerance_pct);
		ret = 1;
	}
	return ret;
}

static int record_run(struct record *r)
{
	const struct engine_ops ops = {
		.say = collect_say,
		.wait = on_wait,
		.interval_begin = on_interval_begin,
		.interval_end = on_interval_end,
		.intervals_lost = on_intervals_lost,
		.stop = &collect_stop,
		.ctx = r,
	};
	struct engine_opts opts;
	struct error error = {};
	struct engine_view v;
	char missing[64];
	int err, ret = EXIT_USAGE;

	if (!collect_has_capabilities(missing, sizeof(missing))) {
		p_err("record needs root, or %s (this process lacks them)",
		      missing);
		return EXIT_USAGE;
	}
	gethostname(r->host, sizeof(r->host) - 1);
	snprintf(r->path, sizeof(r->path), "%s",
		 r->env.output ? r->env.output : "bpmc-%h-%Y%m%dT%H%M%SZ.csv");
	/* Before the events: a refusal must come before any other word. */
	if (record_outputs__open(&r->out, &r->env, r->path, r->host))
		return EXIT_USAGE;
	collect_engine_opts(&r->env, record_outputs__row_scopes(&r->env),
			    r->host, &opts);
	err = engine__new(&r->engine, &opts, &ops, &error);
	if (err) {
		p_err("%s", error__why(&error, err));
		record_outputs__close(&r->out);
		return EXIT_USAGE;
	}
	collect_catch_signals(false);
	err = engine__setup(r->engine, &error);
	if (err)
		p_err("%s", error__why(&error, err));
	else
		err = outputs_setup(r);
	if (err)
		goto cleanup;
	ret = 1;
	err = engine__start(r->engine, &error);
	if (err) {
		p_err("%s", error__why(&error, err));
		goto cleanup;
	}
	/* Everything that needs privilege is open: give it up. */
	engine__view(r->engine, &v);
	if (r->env.user && privilege_drop_and_say(&r->env.target, v.collector))
		goto cleanup;
	if (record_outputs__serve(&r->out))
		goto cleanup;
	if (strcmp(r->path, "-"))
		p_info("recording %d event(s) on %d CPU(s) into '%s'",
		       v.events->nr, cpus_possible(), r->path);
	record_status__init(&r->status, status_wanted(r));
	err = engine__run(r->engine, r->out.rows, &error);
	if (err)
		p_err("%s", error__why(&error, err));
	record_status__end(&r->status);
	ret = run_end(r, err, !err || err == -EPIPE ? 0 : 1);
cleanup:
	engine__stop(r->engine);
	if (!record_outputs__close(&r->out))
		ret = 1;
	collect_say_totals(r->engine, r->env.max_keys);
	engine__free(r->engine);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct record r = {
		.env = {
			.interval_ms = 1000,
			.freq = 997,
			.max_keys = 16384,
			.backlog = 60,
			.scopes = SCOPE_CGROUP | SCOPE_PROCESS | SCOPE_CONTAINER,
			.tolerance_pct = 0.1,
			.rollup_depth = -1,
			.prom_scopes = PROM_SCOPES_DEFAULT,
			.prom_expire = 300,
		},
	};
	int err = record_parse_args(argc, argv, &r.env);

	if (err)
		return cmd_exit_status(err);
	return record_run(&r);
}
