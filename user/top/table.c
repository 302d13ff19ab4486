// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "common/strbuf.h"
#include "top/table.h"

static const char *const scope_names[TOP_NR_SCOPES] = {
	[TOP_CONTAINER] = "container", [TOP_POD] = "pod",
	[TOP_CGROUP] = "cgroup",       [TOP_PROCESS] = "process",
	[TOP_THREAD] = "thread",
};

int top_scope_of(const char *scope)
{
	for (int s = 0; s < TOP_NR_SCOPES; s++)
		if (!strcmp(scope, scope_names[s]))
			return s;
	return -1;
}

const char *top_scope_name(enum top_scope s)
{
	return scope_names[s];
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/* The string that tells two keys of one scope apart, beside the ids. */
static const char *key_text(const struct row *r, enum top_scope s)
{
	if (s == TOP_CONTAINER)
		return or_empty(r->container);
	if (s == TOP_POD)
		return or_empty(r->pod);
	return "";
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static uint64_t key_hash(const struct row *r, enum top_scope s)
{
	uint64_t h = mix(s, r->cgroup_id);

	h = mix(mix(h, r->pid), r->tid);
	for (const unsigned char *p = (const void *)key_text(r, s); *p; p++)
		h = mix(h, *p);
	return h;
}

static bool same_key(const struct top_entry *e, const struct row *r,
		     enum top_scope s)
{
	if (e->scope != s || e->cgroup_id != r->cgroup_id || e->pid != r->pid ||
	    e->tid != r->tid)
		return false;
	if (s == TOP_CONTAINER)
		return !strcmp(e->container, or_empty(r->container));
	if (s == TOP_POD)
		return !strcmp(e->pod, or_empty(r->pod));
	return true;
}

/*
 * What the name column says: a process as comm[pid], a pod and a
 * container by Kubernetes' names where the kubelet gave them.
 */
static char *display_name(const struct row *r, enum top_scope s)
{
	char raw[4400], out[4400 * 4];
	struct strbuf b;

	if (s == TOP_PROCESS)
		snprintf(raw, sizeof(raw), "%s[%lld]", or_empty(r->comm),
			 (long long)r->pid);
	else if (s == TOP_THREAD)
		snprintf(raw, sizeof(raw), "%s[%lld/%lld]", or_empty(r->comm),
			 (long long)r->pid, (long long)r->tid);
	else if (s == TOP_POD && r->pod_name)
		snprintf(raw, sizeof(raw), "%s/%s", or_empty(r->namespace),
			 r->pod_name);
	else if (s == TOP_POD)
		snprintf(raw, sizeof(raw), "%s", or_empty(r->pod));
	else if (s == TOP_CONTAINER && r->container_name)
		snprintf(raw, sizeof(raw), "%s/%s/%s", or_empty(r->namespace),
			 or_empty(r->pod_name), r->container_name);
	else if (s == TOP_CONTAINER)
		snprintf(raw, sizeof(raw), "%s", or_empty(r->container));
	else
		snprintf(raw, sizeof(raw), "%s", or_empty(r->cgroup));
	strbuf__init(&b, out, sizeof(out), 0);
	escape_text(&b, raw);
	return strdup(out);
}

static int grow(struct top_table *t)
{
	size_t nr_slots = t->nr_slots ? t->nr_slots * 2 : 1024, i, h;
	size_t *slots = calloc(nr_slots, sizeof(*slots));
	struct top_entry *e;

	if (!slots)
		return -ENOMEM;
	e = realloc(t->entries, nr_slots / 2 * sizeof(*e));
	if (!e) {
		free(slots);
		return -ENOMEM;
	}
	t->entries = e;
	t->cap = nr_slots / 2;
	free(t->slots);
	t->slots = slots;
	t->nr_slots = nr_slots;
	for (i = 0; i < t->nr; i++) {
		struct row r = {
			.cgroup_id = e[i].cgroup_id,
			.pid = e[i].pid,
			.tid = e[i].tid,
			.container = e[i].container,
			.pod = e[i].pod,
		};
		h = key_hash(&r, e[i].scope) & (nr_slots - 1);
		while (slots[h])
			h = (h + 1) & (nr_slots - 1);
		slots[h] = i + 1;
	}
	return 0;
}

static struct top_entry *find_or_add(struct top_table *t, const struct row *r,
				     enum top_scope s)
{
	size_t h, mask;
	struct top_entry *e;

	if (t->nr + 1 > t->cap && grow(t))
		return NULL;
	mask = t->nr_slots - 1;
	for (h = key_hash(r, s) & mask; t->slots[h]; h = (h + 1) & mask)
		if (same_key(&t->entries[t->slots[h] - 1], r, s))
			return &t->entries[t->slots[h] - 1];
	e = &t->entries[t->nr];
	*e = (struct top_entry){
		.scope = s,
		.cgroup_id = r->cgroup_id,
		.pid = r->pid,
		.tid = r->tid,
		.name = display_name(r, s),
		.container = strdup(or_empty(r->container)),
		.pod = strdup(or_empty(r->pod)),
	};
	if (!e->name || !e->container || !e->pod) {
		free(e->name);
		free(e->container);
		free(e->pod);
		return NULL;
	}
	t->slots[h] = ++t->nr;
	return e;
}

int top_table__add(struct top_table *t, const struct row *r, int ev)
{
	int s = top_scope_of(r->scope);
	struct top_entry *e;

	if (ev < 0 || ev >= TOP_MAX_EVENTS || s < 0)
		return 0;
	e = find_or_add(t, r, s);
	if (!e)
		return -ENOMEM;
	e->count[ev] += r->count;
	return 0;
}

void top_table__reset(struct top_table *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		free(t->entries[i].name);
		free(t->entries[i].container);
		free(t->entries[i].pod);
	}
	t->nr = 0;
	if (t->slots)
		memset(t->slots, 0, t->nr_slots * sizeof(*t->slots));
	memset(t->system, 0, sizeof(t->system));
	memset(t->running_pct, 0, sizeof(t->running_pct));
	t->self_cpu_ns = t->bpf_run_ns = 0;
}

void top_table__free(struct top_table *t)
{
	top_table__reset(t);
	free(t->entries);
	free(t->slots);
	*t = (struct top_table){};
}
