// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "common/grow.h"
#include "common/scope.h"
#include "common/strbuf.h"
#include "common/short_name.h"
#include "top/table.h"

/* Each grouping's scope: the words are common/scope.h's. */
static const unsigned scope_bits[TOP_NR_SCOPES] = {
	[TOP_CONTAINER] = SCOPE_CONTAINER, [TOP_POD] = SCOPE_POD,
	[TOP_CGROUP] = SCOPE_CGROUP,	   [TOP_PROCESS] = SCOPE_PROCESS,
	[TOP_THREAD] = SCOPE_THREAD,
};

int top_scope_of(const char *scope)
{
	unsigned bit = scope_of(scope);

	for (int s = 0; bit && s < TOP_NR_SCOPES; s++)
		if (scope_bits[s] == bit)
			return s;
	return -1;
}

const char *top_scope_name(enum top_scope s)
{
	return scope_name(scope_bits[s]);
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

static uint64_t key_hash(const struct row *r, enum top_scope s)
{
	const int64_t ids[4] = { s, (int64_t)r->cgroup_id, r->pid, r->tid };
	const char *text = key_text(r, s);

	return hash_bytes_from(hash_bytes(ids, sizeof(ids)), text,
			       strlen(text));
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
static char *display_name(const struct row *r, enum top_scope s, bool *id_name)
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
		snprintf(raw, sizeof(raw), "%s",
			 r->pod && *r->pod ? r->pod : OUTSIDE_PODS);
	else if (s == TOP_CONTAINER && r->container_name)
		snprintf(raw, sizeof(raw), "%s/%s/%s", or_empty(r->namespace),
			 or_empty(r->pod_name), r->container_name);
	else if (s == TOP_CONTAINER) {
		short_container(or_empty(r->container), 12, raw, sizeof(raw));
		*id_name = r->container && *r->container;
	} else
		snprintf(raw, sizeof(raw), "%s", or_empty(r->cgroup));
	strbuf__init(&b, out, sizeof(out), 0);
	escape_text(&b, raw);
	return strdup(out);
}

static struct top_entry *find_or_add(struct top_table *t, const struct row *r,
				     enum top_scope s)
{
	struct hash_probe p = hash_index__probe(&t->index, key_hash(r, s));
	struct top_entry *e;
	bool id_name = false;
	uint32_t i;

	while ((i = hash_index__next(&t->index, &p)) != HASH_INDEX_END)
		if (same_key(&t->entries[i], r, s))
			return &t->entries[i];
	if (hash_index__make_room(&t->index, &p) ||
	    GROW(t->entries, t->cap, t->nr + 1, 512))
		return NULL;
	e = &t->entries[t->nr];
	*e = (struct top_entry){
		.scope = s,
		.cgroup_id = r->cgroup_id,
		.pid = r->pid,
		.tid = r->tid,
		.name = display_name(r, s, &id_name),
		.id_name = id_name,
		.container = strdup(or_empty(r->container)),
		.pod = strdup(or_empty(r->pod)),
	};
	if (!e->name || !e->container || !e->pod) {
		free(e->name);
		free(e->container);
		free(e->pod);
		return NULL;
	}
	hash_index__add(&t->index, &p, t->nr++);
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

static int by_name(const void *a, const void *b)
{
	return strcmp((*(struct top_entry *const *)a)->name,
		      (*(struct top_entry *const *)b)->name);
}

/* e's name one level longer (top_table__finish). */
static int name_longer(struct top_entry *e)
{
	char id[4400], out[4400 * 4 + 4096];
	struct strbuf b;
	char *name;

	if (e->id_name) {
		/* The whole id, and no more to add. */
		short_container(e->container, 0, id, sizeof(id));
		strbuf__init(&b, out, sizeof(out), 0);
		escape_text(&b, id);
		e->level = 2;
		e->id_name = false;
	} else {
		if (!e->level)
			e->base_len = strlen(e->name);
		short_container(e->container, e->level ? 0 : 12, id,
				sizeof(id));
		strbuf__init(&b, out, sizeof(out), 0);
		strbuf__put(&b, e->name, e->base_len);
		strbuf__putc(&b, ' ');
		escape_text(&b, id);
		e->level++;
	}
	name = strdup(out);
	if (!name)
		return -ENOMEM;
	free(e->name);
	e->name = name;
	return 0;
}

int top_table__finish(struct top_table *t)
{
	struct top_entry **v = malloc((t->nr + 1) * sizeof(*v));
	size_t n = 0, i, j;
	bool longer = true;
	int err = 0;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < t->nr; i++)
		if (t->entries[i].scope == TOP_CONTAINER &&
		    *t->entries[i].container)
			v[n++] = &t->entries[i];
	/* Runs of one name: each of them longer, until none is left. */
	while (longer && !err) {
		longer = false;
		qsort(v, n, sizeof(*v), by_name);
		for (i = 0; i < n && !err; i = j) {
			for (j = i + 1;
			     j < n && !strcmp(v[j]->name, v[i]->name); j++)
				;
			for (size_t k = i; j - i > 1 && k < j && !err; k++) {
				if (v[k]->level >= 2)
					continue;
				err = name_longer(v[k]);
				longer = true;
			}
		}
	}
	free(v);
	return err;
}

void top_table__reset(struct top_table *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		free(t->entries[i].name);
		free(t->entries[i].container);
		free(t->entries[i].pod);
	}
	t->nr = 0;
	hash_index__clear(&t->index);
	memset(t->system, 0, sizeof(t->system));
	memset(t->running_pct, 0, sizeof(t->running_pct));
	t->self_cpu_ns = t->bpf_run_ns = 0;
}

void top_table__free(struct top_table *t)
{
	top_table__reset(t);
	free(t->entries);
	hash_index__free(&t->index);
	*t = (struct top_table){};
}
