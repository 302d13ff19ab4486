/* SPDX-License-Identifier: GPL-2.0 */
/* rows -> sinks: the last stage. Every output implements sink_ops. */
#ifndef BPMC_SINK_H
#define BPMC_SINK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"

/*
 * One exported row; NULL strings, negative pid/tid and a zero cgroup_id
 * (system rows) are written empty.
 */
struct row {
	const char *scope;
	uint64_t cgroup_id;
	const char *cgroup;
	int64_t pid;
	int64_t tid;
	const char *comm;
	const char *container; /* "containerd://<id>", or empty */
	const char *pod; /* the pod's UID, or empty */
	/* (v6) Kubernetes' names of the pod and container, where the
	 * kubelet's log tree says them (identity/kube.h); else NULL. */
	const char *namespace;
	const char *pod_name;
	const char *container_name;
	const char *event;
	uint64_t count;
	uint64_t samples;
	double running_pct; /* the event's time running / enabled, in %;
			     * < 0: none (self, meta and encoding rows) */
	bool no_count; /* count and samples empty: meta, encoding, gauges */
	const char *value; /* (v4) meta, encoding and gauge rows' text */
};

/*
 * An event asked for with -e, and whether this host counts it: under
 * --best-effort one that cannot be opened is dropped, and every sink
 * says so (the CSV's event_supported self rows and event_unsupported
 * meta rows; a gauge for a metrics sink).
 */
struct event_support {
	const char *event; /* as given to -e */
	bool supported;
	const char *reason; /* why not, in words; NULL when supported */
};

struct interval_info {
	uint64_t end_realtime_ns; /* the interval's end, wall clock */
	uint64_t length_ns; /* its real length */
	const char *host;
	/* Every event asked for, in -e's order, counted or not; the same
	 * array all run long. */
	const struct event_support *events;
	size_t nr_events;
	/* Intervals the file output has lost so far, for the sinks that
	 * report it beside their own rows (Prometheus). */
	uint64_t intervals_lost;
};

struct sink;

/*
 * Every call returns 0 or -errno; on failure the sink fills s->error
 * with one line naming the file or row, which the command prints. News
 * that is no failure (a file published or repaired, writes held back
 * while the disk is full) goes to s->notice, one line at a time.
 */
struct sink_ops {
	const char *name;
	int (*begin_interval)(struct sink *s, const struct interval_info *info);
	int (*write_row)(struct sink *s, const struct row *r);
	int (*end_interval)(struct sink *s);
	/* SIGHUP: the next interval starts a new file (NULL: no files). */
	void (*rotate)(struct sink *s);
	int (*close)(struct sink *s);
};

struct sink {
	const struct sink_ops *ops;
	void *priv;
	struct error error;
	void (*notice)(void *ctx, bool warning, const char *msg);
	void *notice_ctx;
};

/* One line of news (printf's format) to notice, if there is one: the
 * sinks' and the publisher's. */
void notice__vsay(void (*notice)(void *ctx, bool warning, const char *msg),
		  void *ctx, bool warning, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));
/* One line of news (printf's format) to s->notice, if it has one. */
void sink__notice(struct sink *s, bool warning, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
