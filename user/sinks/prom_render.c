// SPDX-License-Identifier: GPL-2.0
/* The exposition of one interval: every family, HELP and TYPE first. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "common/strbuf.h"
#include "sinks/prom_state.h"

/*
 * Each family's header in the text format and, for a counter, in
 * OpenMetrics, where the family is named without "_total" (which stays
 * on its samples): the snapshot swaps one for the other on demand.
 */
struct family {
	const char *text, *om;
};

#define COUNTER(name, help)                                                   \
	{                                                                     \
		"# HELP " name "_total " help "\n# TYPE " name                \
		"_total counter\n",                                           \
			"# HELP " name " " help "\n# TYPE " name " counter\n" \
	}
/* A counter in seconds: OpenMetrics says its unit (# UNIT). */
#define COUNTER_SECONDS(name, help)                              \
	{                                                        \
		"# HELP " name "_total " help "\n# TYPE " name   \
		"_total counter\n",                              \
			"# HELP " name " " help "\n# TYPE " name \
			" counter\n# UNIT " name " seconds\n"    \
	}
#define GAUGE(name, help)                                                 \
	{                                                                 \
		"# HELP " name " " help "\n# TYPE " name " gauge\n", NULL \
	}

/*
 * A scope's two families: its events' counts, and the time its clock
 * events (cpu-clock, task-clock: nanoseconds in the rows) counted, in
 * seconds, the base unit Prometheus' conventions ask for.
 */
struct scope_families {
	unsigned scope; /* SCOPE_* */
	struct family events, seconds;
	const char *events_open, *seconds_open; /* "NAME{event=\"" */
};

#define PERF_EVENTS_HELP(what)                                        \
	"Events counted by perf_event_open since bpmc started, " what \
	", one series per event (unit: events; the clocks are in *_perf_event_seconds_total)."
#define PERF_SECONDS_HELP(what)                                     \
	"Time counted by the clock events (cpu-clock, task-clock) " \
	"since bpmc started, " what ", one series per event (unit: seconds)."
#define SCOPE_FAMILIES(bit, name, what)                                     \
	{                                                                   \
		bit,                                                        \
			COUNTER("bpmc_" name "_perf_events",                \
				PERF_EVENTS_HELP(what)),                    \
			COUNTER_SECONDS("bpmc_" name "_perf_event_seconds", \
					PERF_SECONDS_HELP(what)),           \
			"bpmc_" name "_perf_events_total{event=\"",         \
			"bpmc_" name "_perf_event_seconds_total{event=\"",  \
	}

/* In enum prom_fam's order. */
static const struct scope_families families[PROM_NR_FAMS] = {
	SCOPE_FAMILIES(SCOPE_SYSTEM, "node", "on every CPU of the node"),
	SCOPE_FAMILIES(SCOPE_POD, "pod", "per pod"),
	SCOPE_FAMILIES(SCOPE_CONTAINER, "container", "per container"),
	SCOPE_FAMILIES(SCOPE_CGROUP, "cgroup", "per cgroup"),
	SCOPE_FAMILIES(SCOPE_PROCESS, "process", "per process"),
	SCOPE_FAMILIES(SCOPE_THREAD, "thread", "per thread"),
};
static const struct family running_family = GAUGE(
	"bpmc_event_running_ratio",
	"The event's time running over its time enabled in the last interval, over all CPUs: below 1 when the kernel multiplexed it.");
static const struct family supported_family = GAUGE(
	"bpmc_event_supported",
	"1 when the event asked for is counted on this host, 0 when --best-effort left it out (the CSV's meta rows say why).");
static const struct family self_counters[] = {
	COUNTER_SECONDS(
		"bpmc_bpf_run_seconds",
		"Run time of bpmc's BPF programs (0 unless BPF statistics are on: --self-stats)."),
	COUNTER("bpmc_bpf_runs",
		"Runs of bpmc's BPF programs (0 unless BPF statistics are on: --self-stats)."),
	COUNTER_SECONDS("bpmc_cpu_seconds",
			"CPU time bpmc itself used, by mode (unit: seconds)."),
	COUNTER("bpmc_samples_lost",
		"Overflows or credits lost: a counts map was full (--max-keys), or a key vanished under a race."),
	COUNTER("bpmc_intervals_lost",
		"Intervals the CSV output lost: the disk refused them for longer than --backlog."),
	COUNTER("bpmc_intervals", "Intervals ended since bpmc started."),
	COUNTER("bpmc_scrapes",
		"Scrapes of /metrics served before this exposition was made."),
	COUNTER("bpmc_keys_expired",
		"Keys that left the exposition after --prom-expire intervals without counts."),
};
static const struct family self_gauges[] = {
	GAUGE("bpmc_peak_rss_bytes", "bpmc's peak resident memory."),
	GAUGE("bpmc_series",
	      "Series of the bpmc_*_perf_events_total and bpmc_*_perf_event_seconds_total families in this exposition."),
	GAUGE("bpmc_interval_end_timestamp_seconds",
	      "When the last interval in this exposition ended, wall clock."),
};

/* The growing exposition, and where its headers differ between formats. */
struct out {
	char *p;
	size_t len, cap;
	struct prom_splice *sp;
	int nr_sp, cap_sp;
	bool oom;
};

/* Room for n more bytes: every put below is preceded by one. */
static bool reserve(struct out *o, size_t n)
{
	size_t cap = o->cap;
	char *p;

	if (o->oom)
		return false;
	if (cap - o->len >= n)
		return true;
	while (cap - o->len < n)
		cap *= 2;
	p = realloc(o->p, cap);
	if (!p) {
		o->oom = true;
		return false;
	}
	o->p = p;
	o->cap = cap;
	return true;
}

static void put(struct out *o, const char *s, size_t n)
{
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

#define PUT_LIT(o, s) put(o, s, sizeof(s) - 1)

/* Decimal without printf: 10,000 series a scrape. */
static void put_u64(struct out *o, uint64_t v)
{
	char tmp[20];
	int n = sizeof(tmp);

	do {
		tmp[--n] = '0' + v % 10;
		v /= 10;
	} while (v);
	put(o, tmp + n, sizeof(tmp) - n);
}

/* v / 10^digits, every digit written: "12.000450000". */
static void put_fixed(struct out *o, uint64_t v, int digits)
{
	uint64_t scale = 1;
	char frac[20];

	for (int i = 0; i < digits; i++)
		scale *= 10;
	put_u64(o, v / scale);
	v %= scale;
	for (int i = digits - 1; i >= 0; i--, v /= 10)
		frac[i] = '0' + v % 10;
	PUT_LIT(o, ".");
	put(o, frac, digits);
}

static void header(struct out *o, const struct family *f)
{
	size_t n = strlen(f->text);

	if (!reserve(o, n))
		return;
	if (f->om) {
		if (o->nr_sp == o->cap_sp) {
			int cap = o->cap_sp ? o->cap_sp * 2 : 16;
			void *p = realloc(o->sp, cap * sizeof(*o->sp));

			if (!p) {
				o->oom = true;
				return;
			}
			o->sp = p;
			o->cap_sp = cap;
		}
		o->sp[o->nr_sp++] = (struct prom_splice){
			.off = o->len,
			.len = n,
			.om = f->om,
		};
	}
	put(o, f->text, n);
}

/* "name value\n", the name with its labels if any. */
static void sample(struct out *o, const char *name, uint64_t v, int digits)
{
	size_t n = strlen(name);

	if (!reserve(o, n + 48))
		return;
	put(o, name, n);
	PUT_LIT(o, " ");
	if (digits)
		put_fixed(o, v, digits);
	else
		put_u64(o, v);
	PUT_LIT(o, "\n");
}

/* One family: the series of fam's keys for the events that count in
 * seconds, or for the others. */
static void render_family(struct out *o, struct prom_state *st, int fam,
			  bool seconds, size_t label_max)
{
	const struct scope_families *f = &families[fam];
	const char *open = seconds ? f->seconds_open : f->events_open;
	size_t open_len = strlen(open);
	int e;

	for (e = 0; e < st->nr_events && st->seconds[e] != seconds; e++)
		;
	if (e == st->nr_events || !(st->scopes & f->scope))
		return; /* no such event, or the scope is not exported */
	header(o, seconds ? &f->seconds : &f->events);
	for (const struct prom_key *k = st->first[fam]; k; k = k->after) {
		const char *labels = prom_key__labels(k, st->nr_events);

		if (!reserve(o, st->nr_events *
					(open_len + k->len + label_max + 48)))
			return;
		for (e = 0; e < st->nr_events; e++) {
			if (!(k->seen & 1u << e) || st->seconds[e] != seconds)
				continue;
			put(o, open, open_len);
			put(o, st->event_label[e], st->event_label_len[e]);
			PUT_LIT(o, "\"");
			put(o, labels, k->len);
			PUT_LIT(o, "} ");
			if (seconds)
				put_fixed(o, k->count[e], 9);
			else
				put_u64(o, k->count[e]);
			PUT_LIT(o, "\n");
			st->series++;
		}
	}
}

static void render_events(struct out *o, struct prom_state *st)
{
	size_t label_max = 0;

	for (int e = 0; e < st->nr_events; e++)
		if (st->event_label_len[e] > label_max)
			label_max = st->event_label_len[e];
	st->series = 0;
	for (int fam = 0; fam < PROM_NR_FAMS; fam++) {
		render_family(o, st, fam, false, label_max);
		render_family(o, st, fam, true, label_max);
	}
}

static void render_running(struct out *o, const struct prom_state *st)
{
	header(o, &running_family);
	for (int e = 0; e < st->nr_events; e++) {
		double r = st->running[e];

		if (!st->has_running[e] ||
		    !reserve(o, st->event_label_len[e] + 64))
			continue;
		PUT_LIT(o, "bpmc_event_running_ratio{event=\"");
		put(o, st->event_label[e], st->event_label_len[e]);
		PUT_LIT(o, "\"} ");
		put_fixed(o, (uint64_t)((r < 0 ? 0 : r) * 1e6 + 0.5), 6);
		PUT_LIT(o, "\n");
	}
}

static void render_supported(struct out *o, const struct prom_state *st)
{
	char label[512];

	if (!st->nr_support)
		return;
	header(o, &supported_family);
	for (size_t e = 0; e < st->nr_support; e++) {
		struct strbuf b;

		strbuf__init(&b, label, sizeof(label), 0);
		escape_prom_label(&b, st->support[e].event);
		if (b.truncated || !reserve(o, b.len + 64))
			continue;
		PUT_LIT(o, "bpmc_event_supported{event=\"");
		put(o, label, b.len);
		if (st->support[e].supported)
			PUT_LIT(o, "\"} 1\n");
		else
			PUT_LIT(o, "\"} 0\n");
	}
}

static void render_self(struct out *o, const struct prom_state *st)
{
	const struct prom_self *s = &st->self;
	const struct family *c = self_counters, *g = self_gauges;

	header(o, c++);
	sample(o, "bpmc_bpf_run_seconds_total", s->bpf_ns, 9);
	header(o, c++);
	sample(o, "bpmc_bpf_runs_total", s->bpf_runs, 0);
	header(o, c++);
	sample(o, "bpmc_cpu_seconds_total{mode=\"user\"}", s->user_ns, 9);
	sample(o, "bpmc_cpu_seconds_total{mode=\"system\"}", s->system_ns, 9);
	header(o, c++);
	sample(o, "bpmc_samples_lost_total", s->samples_lost, 0);
	header(o, c++);
	sample(o, "bpmc_intervals_lost_total", st->intervals_lost, 0);
	header(o, c++);
	sample(o, "bpmc_intervals_total", st->intervals, 0);
	header(o, c++);
	sample(o, "bpmc_scrapes_total", st->scrapes, 0);
	header(o, c++);
	sample(o, "bpmc_keys_expired_total", st->expired, 0);
	header(o, g++);
	sample(o, "bpmc_peak_rss_bytes", s->peak_rss, 0);
	header(o, g++);
	sample(o, "bpmc_series", st->series, 0);
	if (!st->end_realtime_ns)
		return; /* no interval has ended yet */
	header(o, g++);
	sample(o, "bpmc_interval_end_timestamp_seconds",
	       st->end_realtime_ns / 1000000, 3);
}

int prom_render(struct prom_state *st, size_t hint, struct prom_snapshot **s)
{
	struct out o = { .cap = hint + hint / 8 + 16384 };

	o.p = malloc(o.cap);
	if (!o.p)
		return -ENOMEM;
	render_events(&o, st);
	render_running(&o, st);
	render_supported(&o, st);
	render_self(&o, st);
	if (o.oom) {
		free(o.p);
		free(o.sp);
		return -ENOMEM;
	}
	return prom_snapshot__new(s, o.p, o.len, o.sp, o.nr_sp);
}
