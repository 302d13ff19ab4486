// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cmd/record_outputs.h"
#include "common/scope.h"
#include "common/util.h"
#include "sinks/csv_sink.h"
#include "sinks/tee.h"
#include "sinks/textfile.h"

/* The sinks' news: repairs and write trouble are warnings. */
static void on_notice(void *ctx, bool warning, const char *msg)
{
	if (warning)
		p_warn("%s", msg);
	else
		p_info("%s", msg);
}

static bool prom_wanted(const struct collect_env *env)
{
	return env->listen || env->textfile;
}

unsigned record_outputs__row_scopes(const struct collect_env *env)
{
	unsigned s = env->scopes, p = env->prom_scopes;

	if (!prom_wanted(env))
		return s;
	s |= p & (SCOPE_CGROUP | SCOPE_PROCESS | SCOPE_THREAD);
	/* Pod rows come with container rows. */
	if (p & (SCOPE_CONTAINER | SCOPE_POD))
		s |= SCOPE_CONTAINER;
	return s;
}

int record_outputs__open(struct record_outputs *o,
			 const struct collect_env *env, const char *path,
			 const char *host)
{
	struct csv_config cfg = {
		.path = path,
		.host = host,
		.rotate_s = env->rotate_s,
		.rotate_bytes = env->rotate_bytes,
		.keep = env->keep,
		.max_disk = env->max_disk,
		.backlog = env->backlog,
		.start_ns = clock_ns(CLOCK_REALTIME),
	};
	struct error err = {};
	int ret;

	o->listen_fd = o->textfile_lock = -1;
	o->textfile_dir = env->textfile;
	o->rows = &o->csv;
	o->csv.notice = on_notice;
	ret = csv_sink__new(&o->csv, &cfg);
	if (ret)
		return cmd_refuse(&record_spec, "%s",
				  error__why(&o->csv.error, ret));
	if (csv_sink__is_stream(&o->csv) &&
	    (env->rotate_s || env->rotate_bytes || env->keep ||
	     env->max_disk)) {
		cmd_refuse(
			&record_spec,
			"'-o %s' streams: --rotate, --keep and --max-disk need files",
			path);
		goto refused;
	}
	if (env->textfile &&
	    ((ret = textfile__check_dir(env->textfile, &err)) ||
	     (ret = textfile__lock(env->textfile, &o->textfile_lock, &err)))) {
		cmd_refuse(&record_spec, "%s", error__why(&err, ret));
		goto refused;
	}
	if (env->listen &&
	    (ret = prom_http__bind(env->listen, &o->listen_fd, &err))) {
		cmd_refuse(&record_spec, "%s", error__why(&err, ret));
		goto refused;
	}
	return 0;
refused:
	textfile__unlock(env->textfile, &o->textfile_lock);
	o->csv.ops->close(&o->csv);
	return EXIT_USAGE;
}

/* The CSV takes --by's scopes: not those made for Prometheus alone. */
static void csv_drops(const struct collect_env *env, struct tee_output *t)
{
	static const struct {
		unsigned scope;
		const char *name;
	} rows[] = {
		{ SCOPE_CGROUP, "cgroup" }, { SCOPE_PROCESS, "process" },
		{ SCOPE_THREAD, "thread" }, { SCOPE_CONTAINER, "container" },
		{ SCOPE_CONTAINER, "pod" },
	};
	unsigned made = record_outputs__row_scopes(env);

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		if ((made & rows[i].scope) && !(env->scopes & rows[i].scope))
			t->drop[t->nr_drop++] = rows[i].name;
}

int record_outputs__setup(struct record_outputs *o,
			  const struct collect_env *env,
			  const struct event_list *events)
{
	struct prom_config cfg = {
		.events = o->events,
		.nr_events = events->nr,
		.scopes = env->prom_scopes,
		.expire = env->prom_expire,
		.textfile_dir = env->textfile,
	};
	struct tee_output outs[2] = { { .sink = &o->csv },
				      { .sink = &o->prom } };
	int err;

	if (!prom_wanted(env))
		return 0;
	for (int e = 0; e < events->nr && e < PROM_MAX_EVENTS; e++)
		o->events[e] = events->ev[e].name;
	if (env->listen) {
		err = prom_latest__new(&o->latest);
		if (err) {
			p_err("out of memory");
			return err;
		}
		cfg.latest = o->latest;
	}
	o->prom.notice = on_notice;
	err = prom_sink__new(&o->prom, &cfg);
	if (err) {
		p_err("%s", error__why(&o->prom.error, err));
		return err;
	}
	csv_drops(env, &outs[0]);
	err = tee__new(&o->tee, outs, 2);
	if (err) {
		p_err("%s", error__why(&o->tee.error, err));
		return err;
	}
	o->rows = &o->tee;
	return 0;
}

int record_outputs__serve(struct record_outputs *o)
{
	struct error err = {};
	char at[128];
	int fd = o->listen_fd, ret;

	if (fd < 0)
		return 0;
	prom_http__describe(fd, at, sizeof(at));
	o->listen_fd = -1; /* the server's now, whatever happens */
	ret = prom_http__start(&o->http, fd, o->latest, &err);
	if (ret) {
		p_err("%s", error__why(&err, ret));
		return -EIO;
	}
	p_info("serving metrics on http://%s/metrics", at);
	return 0;
}

uint64_t record_outputs__intervals_lost(const struct record_outputs *o)
{
	return csv_sink__intervals_lost(&o->csv);
}

bool record_outputs__close(struct record_outputs *o)
{
	bool ok = true;
	int err;

	/* The CSV first: published whatever the server's stop costs (it
	 * serves o->latest only, never the CSV). */
	if (o->csv.priv && (err = o->csv.ops->close(&o->csv))) {
		p_err("%s", error__why(&o->csv.error, err));
		ok = false;
	}
	/* Then the server: nothing may serve what is freed below. */
	prom_http__stop(o->http);
	o->http = NULL;
	if (o->listen_fd >= 0)
		close(o->listen_fd);
	o->listen_fd = -1;
	if (o->tee.priv)
		o->tee.ops->close(&o->tee);
	if (o->prom.priv && (err = o->prom.ops->close(&o->prom))) {
		p_err("%s", error__why(&o->prom.error, err));
		ok = false;
	}
	prom_latest__free(o->latest);
	o->latest = NULL;
	/* Once bpmc.prom is removed: the next run may write it. */
	textfile__unlock(o->textfile_dir, &o->textfile_lock);
	return ok;
}
