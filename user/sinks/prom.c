// SPDX-License-Identifier: GPL-2.0
/* The Prometheus sink: rows into counters since start, expiry, output. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "common/metric.h"
#include "common/strbuf.h"
#include "common/util.h"
#include "sinks/prom.h"
#include "sinks/prom_state.h"
#include "sinks/textfile.h"

/*
 * The container (pod) label of the "outside containers" key: the rows
 * stage's container (pod) row with no container, pod or cgroup, the
 * system row less the containers (pods), so that the keys of
 * bpmc_container_* (bpmc_pod_*) add up to the node's. The words report
 * and top show.
 */
#define PROM_OUTSIDE_CONTAINERS "(outside containers)"
#define PROM_OUTSIDE_PODS "(outside pods)"

/* A label set at its longest: a 4000-byte path, every byte escaped. */
#define LABELS_MAX 65536

struct prom_sink {
	struct prom_config cfg;
	struct sink *sink;
	struct prom_state st;
	size_t last_len; /* the last exposition's size */
	bool textfile_failing;
	char labels[LABELS_MAX];
};

static void put_label(struct strbuf *b, const char *name, const char *value)
{
	strbuf__putc(b, ',');
	strbuf__puts(b, name);
	strbuf__put(b, "=\"", 2);
	escape_prom_label(b, value);
	strbuf__putc(b, '"');
}

static void put_label_u64(struct strbuf *b, const char *name, uint64_t v)
{
	strbuf__putc(b, ',');
	strbuf__puts(b, name);
	strbuf__put(b, "=\"", 2);
	strbuf__put_u64(b, v);
	strbuf__putc(b, '"');
}

/*
 * The labels of a row but its event and scope (its family says it), each
 * with its leading comma, in one order: cgroup (its id where the path is
 * unknown), namespace, pod, container (the kubelet's names),
 * container_id ("runtime://id"), pod_uid, pid, tid, comm; empty ones are
 * left out, as Prometheus reads an empty label as none. The outside key
 * has only container="(outside containers)" (pod="(outside pods)").
 */
static int format_labels(struct prom_sink *p, const struct row *r, unsigned bit)
{
	bool outside = (bit == SCOPE_CONTAINER || bit == SCOPE_POD) &&
		       !(r->container && *r->container) &&
		       !(r->pod && *r->pod) && !(r->cgroup && *r->cgroup) &&
		       !r->cgroup_id;
	struct strbuf b;

	strbuf__init(&b, p->labels, sizeof(p->labels), 0);
	if (outside) {
		if (bit == SCOPE_POD)
			put_label(&b, "pod", PROM_OUTSIDE_PODS);
		else
			put_label(&b, "container", PROM_OUTSIDE_CONTAINERS);
		return b.len;
	}
	if (r->cgroup && *r->cgroup)
		put_label(&b, "cgroup", r->cgroup);
	else if (r->cgroup_id)
		put_label_u64(&b, "cgroup_id", r->cgroup_id);
	if (r->namespace && *r->namespace)
		put_label(&b, "namespace", r->namespace);
	if (r->pod_name && *r->pod_name)
		put_label(&b, "pod", r->pod_name);
	if (r->container_name && *r->container_name)
		put_label(&b, "container", r->container_name);
	if (r->container && *r->container)
		put_label(&b, "container_id", r->container);
	if (r->pod && *r->pod)
		put_label(&b, "pod_uid", r->pod);
	if (r->pid >= 0)
		put_label_u64(&b, "pid", r->pid);
	if (r->tid >= 0)
		put_label_u64(&b, "tid", r->tid);
	if (r->comm && *r->comm)
		put_label(&b, "comm", r->comm);
	return b.truncated ? -ENOSPC : (int)b.len;
}

/* The family of a scope bit. */
static enum prom_fam fam_of(unsigned bit)
{
	switch (bit) {
	case SCOPE_SYSTEM:
		return PROM_FAM_NODE;
	case SCOPE_POD:
		return PROM_FAM_POD;
	case SCOPE_CONTAINER:
		return PROM_FAM_CONTAINER;
	case SCOPE_CGROUP:
		return PROM_FAM_CGROUP;
	case SCOPE_PROCESS:
		return PROM_FAM_PROCESS;
	default:
		return PROM_FAM_THREAD;
	}
}

/* The self rows: what bpmc cost, as deltas (peak_rss_bytes a gauge). */
static void add_self(struct prom_state *st, const struct row *r)
{
	struct prom_self *s = &st->self;

	if (!strcmp(r->event, "bpf_run_time_ns")) {
		s->bpf_ns += r->count;
		s->bpf_runs += r->samples;
	} else if (!strcmp(r->event, "cpu_user_ns")) {
		s->user_ns += r->count;
	} else if (!strcmp(r->event, "cpu_system_ns")) {
		s->system_ns += r->count;
	} else if (!strcmp(r->event, "samples_lost")) {
		s->samples_lost += r->count;
	} else if (!strcmp(r->event, "peak_rss_bytes") && r->value) {
		parse_u64(r->value, &s->peak_rss);
	}
}

static int event_index(const struct prom_state *st, const char *event)
{
	for (int e = 0; e < st->nr_events; e++)
		if (st->event[e] == event)
			return e;
	for (int e = 0; e < st->nr_events; e++)
		if (!strcmp(st->event[e], event))
			return e;
	return -1;
}

static int prom_begin_interval(struct sink *s, const struct interval_info *info)
{
	struct prom_sink *p = s->priv;

	p->st.intervals++;
	p->st.end_realtime_ns = info->end_realtime_ns;
	p->st.intervals_lost = info->intervals_lost;
	p->st.support = info->events;
	p->st.nr_support = info->nr_events;
	return 0;
}

static int prom_write_row(struct sink *s, const struct row *r)
{
	struct prom_sink *p = s->priv;
	struct prom_state *st = &p->st;
	unsigned bit;
	struct prom_key *k;
	int e, len;

	if (!strcmp(r->scope, "self")) {
		add_self(st, r);
		return 0;
	}
	bit = scope_of(r->scope);
	e = !bit ? -1 : event_index(st, r->event);
	if (e < 0)
		return 0;
	if (bit == SCOPE_SYSTEM && r->running_pct >= 0) {
		st->running[e] = r->running_pct / 100;
		st->has_running[e] = true;
	}
	/* A system row without a count: the event never ran. */
	if (r->no_count || !(p->cfg.scopes & bit) ||
	    (!r->count && bit != SCOPE_SYSTEM))
		return 0;
	len = format_labels(p, r, bit);
	if (len < 0)
		return error__set(
			&s->error, len,
			"the labels of a %s row of cgroup '%.256s' do not fit %d bytes",
			r->scope, r->cgroup ? r->cgroup : "", LABELS_MAX);
	k = prom_keys__get(st, fam_of(bit), p->labels, len);
	if (!k)
		return error__set(&s->error, ENOMEM,
				  "out of memory for the Prometheus series");
	k->count[e] += r->count;
	k->seen |= 1u << e;
	k->last = st->intervals;
	return 0;
}

/* Keys without counts for --prom-expire intervals leave the exposition. */
static void expire(struct prom_sink *p)
{
	struct prom_state *st = &p->st;
	struct prom_key *k, *after;

	if (p->cfg.expire <= 0)
		return;
	for (int f = 0; f < PROM_NR_FAMS; f++) {
		for (k = st->first[f]; k; k = after) {
			after = k->after;
			if (!k->system && st->intervals - k->last >=
						  (uint64_t)p->cfg.expire) {
				prom_keys__remove(st, k);
				st->expired++;
			}
		}
	}
}

static void write_textfile(struct prom_sink *p, struct prom_snapshot *snap)
{
	struct error err = {};
	const char *text;
	size_t len;

	text = prom_snapshot__text(snap, &len);
	if (textfile__write(p->cfg.textfile_dir, PROM_TEXTFILE_NAME, text, len,
			    &err)) {
		if (!p->textfile_failing)
			sink__notice(p->sink, true,
				     "%s; retried every interval", err.msg);
		p->textfile_failing = true;
		return;
	}
	if (p->textfile_failing)
		sink__notice(p->sink, true, "writing '%s/%s' again",
			     p->cfg.textfile_dir, PROM_TEXTFILE_NAME);
	p->textfile_failing = false;
}

/* Renders and hands the snapshot over: to the file, then the server. */
static int publish(struct prom_sink *p)
{
	struct prom_snapshot *snap;
	int err;

	if (p->cfg.latest)
		p->st.scrapes = prom_latest__scrapes(p->cfg.latest);
	err = prom_render(&p->st, p->last_len, &snap);
	if (err)
		return error__set(
			&p->sink->error, err,
			"out of memory for the Prometheus exposition");
	prom_snapshot__text(snap, &p->last_len);
	if (p->cfg.textfile_dir)
		write_textfile(p, snap);
	if (p->cfg.latest)
		prom_latest__publish(p->cfg.latest, snap);
	else
		prom_snapshot__put(snap);
	return 0;
}

static int prom_end_interval(struct sink *s)
{
	struct prom_sink *p = s->priv;

	expire(p);
	return publish(p);
}

static int prom_close(struct sink *s)
{
	struct prom_sink *p = s->priv;

	if (!p)
		return 0;
	if (p->cfg.textfile_dir)
		textfile__remove(p->cfg.textfile_dir, PROM_TEXTFILE_NAME);
	prom_keys__free(&p->st);
	for (int e = 0; e < p->st.nr_events; e++)
		free(p->st.event_label[e]);
	free(p);
	s->priv = NULL;
	return 0;
}

size_t prom_sink__series(const struct sink *s)
{
	const struct prom_sink *p = s->priv;

	return p ? p->st.series : 0;
}

static const struct sink_ops prom_sink_ops = {
	.name = "prometheus",
	.begin_interval = prom_begin_interval,
	.write_row = prom_write_row,
	.end_interval = prom_end_interval,
	.close = prom_close,
};

static int escape_events(struct prom_sink *p)
{
	struct strbuf b;

	for (int e = 0; e < p->st.nr_events; e++) {
		p->st.event[e] = p->cfg.events[e];
		strbuf__init(&b, p->labels, sizeof(p->labels), 0);
		escape_prom_label(&b, p->cfg.events[e]);
		p->st.event_label[e] = strdup(p->labels);
		if (b.truncated || !p->st.event_label[e])
			return -ENOMEM;
		p->st.event_label_len[e] = b.len;
		p->st.seconds[e] = !strcmp(event_unit(p->cfg.events[e]), "ns");
	}
	return 0;
}

int prom_sink__new(struct sink *s, const struct prom_config *cfg)
{
	struct prom_sink *p;
	int err;

	if (cfg->nr_events > PROM_MAX_EVENTS)
		return error__set(
			&s->error, E2BIG,
			"the Prometheus sink takes at most %d events, not %d",
			PROM_MAX_EVENTS, cfg->nr_events);
	p = calloc(1, sizeof(*p));
	if (!p)
		return error__set(&s->error, ENOMEM, "out of memory");
	p->cfg = *cfg;
	p->sink = s;
	p->st.nr_events = cfg->nr_events;
	p->st.scopes = cfg->scopes;
	s->ops = &prom_sink_ops;
	s->priv = p;
	err = escape_events(p);
	if (err)
		error__set(&s->error, err, "out of memory");
	else
		err = publish(p);
	if (err) {
		p->cfg.textfile_dir = NULL; /* none of ours is there */
		prom_close(s);
	}
	return err;
}
