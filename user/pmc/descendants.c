// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pmc/descendants.h"

enum state {
	LIVE, /* records seen, no exit of its main thread yet */
	EXITED, /* its fate hangs on its parent's */
	FOLDED, /* counted here; late READs go straight to the sum */
	ORPHANED, /* its chain reached a process not ours */
};

struct proc {
	int32_t pid;
	enum state state;
	struct proc *parent; /* at exit; NULL: us */
	struct proc *next_hash;
	struct proc *next_all;
	struct tally own[];
};

#define HASH_BITS 10

struct descendants {
	int32_t self;
	int nr_slots;
	uint64_t lost;
	uint64_t orphans;
	size_t nr_procs;
	struct proc *hash[1 << HASH_BITS];
	struct proc *all; /* every entry, newest first */
	struct tally *sum;
};

/* Settled entries are kept as tombstones for the READs that follow an
 * EXIT; past this many, the oldest are let go. */
#define MAX_PROCS 65536

static void settle(struct descendants *d);

static unsigned hash_pid(int32_t pid)
{
	return ((uint32_t)pid * 2654435761u) >> (32 - HASH_BITS);
}

int descendants__new(struct descendants **out, int32_t self, int nr_slots)
{
	struct descendants *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->sum = calloc(nr_slots, sizeof(*d->sum));
	if (!d->sum) {
		free(d);
		return -ENOMEM;
	}
	d->self = self;
	d->nr_slots = nr_slots;
	*out = d;
	return 0;
}

void descendants__free(struct descendants *d)
{
	struct proc *p, *next;

	if (!d)
		return;
	for (p = d->all; p; p = next) {
		next = p->next_all;
		free(p);
	}
	free(d->sum);
	free(d);
}

static struct proc *find(struct descendants *d, int32_t pid)
{
	struct proc *p;

	for (p = d->hash[hash_pid(pid)]; p; p = p->next_hash)
		if (p->pid == pid)
			return p;
	return NULL;
}

static void unhash(struct descendants *d, struct proc *victim)
{
	struct proc **pp = &d->hash[hash_pid(victim->pid)];

	while (*pp && *pp != victim)
		pp = &(*pp)->next_hash;
	if (*pp)
		*pp = victim->next_hash;
}

/*
 * Lets the oldest settled entries go. Only FOLDED and ORPHANED ones:
 * nobody points at them any more (a child that exited before its
 * parent was settled with it).
 */
static void trim(struct descendants *d)
{
	struct proc **pp = &d->all;
	size_t keep = MAX_PROCS / 2, seen = 0;

	/* Whoever pointed at a settled entry is settled too, after this. */
	settle(d);
	while (*pp) {
		struct proc *p = *pp;

		if (++seen > keep &&
		    (p->state == FOLDED || p->state == ORPHANED)) {
			*pp = p->next_all;
			unhash(d, p);
			free(p);
			d->nr_procs--;
			continue;
		}
		pp = &p->next_all;
	}
}

static struct proc *add(struct descendants *d, int32_t pid)
{
	struct proc *p =
		calloc(1, sizeof(*p) + d->nr_slots * sizeof(p->own[0]));
	struct proc *old = find(d, pid);

	if (!p)
		return NULL;
	/* A pid used again: the old entry stays for whoever points at it,
	 * the new one is what the pid means from now on. */
	if (old)
		unhash(d, old);
	p->pid = pid;
	p->next_hash = d->hash[hash_pid(pid)];
	d->hash[hash_pid(pid)] = p;
	p->next_all = d->all;
	d->all = p;
	if (++d->nr_procs > MAX_PROCS)
		trim(d);
	return p;
}

int descendants__fork(struct descendants *d, int32_t pid, int32_t ppid,
		      int32_t tid)
{
	struct proc *p;

	if (pid != tid || pid == d->self)
		return 0; /* a thread */
	p = find(d, pid);
	if (p && p->state == LIVE)
		return 0; /* a READ of it came first */
	return add(d, pid) ? 0 : -ENOMEM;
}

int descendants__exit(struct descendants *d, int32_t pid, int32_t ppid,
		      int32_t tid)
{
	struct proc *p;

	/* A thread's exit ends no process; our own threads are no
	 * subprocesses. */
	if (pid != tid || pid == d->self)
		return 0;
	p = find(d, pid);
	if (!p || p->state != LIVE)
		p = add(d, pid);
	if (!p)
		return -ENOMEM;
	p->state = EXITED;
	if (ppid == d->self) {
		p->parent = NULL;
		return 0;
	}
	p->parent = find(d, ppid);
	/* Its parent at exit is no descendant of ours, or no longer the
	 * process we knew: it was orphaned before it exited. */
	if (!p->parent || p->parent->state != LIVE)
		p->state = ORPHANED, d->orphans++;
	return 0;
}

static void tally_add(struct tally *to, const struct tally *t)
{
	to->value += t->value;
	to->enabled += t->enabled;
	to->running += t->running;
}

int descendants__read(struct descendants *d, int32_t pid, int32_t tid, int slot,
		      const struct tally *t)
{
	struct proc *p;

	if (pid == d->self || slot < 0 || slot >= d->nr_slots)
		return 0;
	p = find(d, pid);
	if (!p)
		p = add(d, pid);
	if (!p)
		return -ENOMEM;
	if (p->state == FOLDED)
		tally_add(&d->sum[slot], t);
	else if (p->state != ORPHANED)
		tally_add(&p->own[slot], t);
	return 0;
}

void descendants__lost(struct descendants *d, uint64_t records)
{
	d->lost += records;
}

/* Where p's chain of parents at exit ends: LIVE (wait), ORPHANED
 * (never), or FOLDED (it reached us through exited processes only). */
static enum state chain_end(const struct proc *p)
{
	for (; p; p = p->parent)
		if (p->state == LIVE || p->state == ORPHANED)
			return p->state;
	return FOLDED;
}

/* Folds every exited entry whose chain is complete into the sums. */
static void settle(struct descendants *d)
{
	struct proc *p;

	/* Two passes: a child's chain runs through its parent, whose
	 * state must not change under it within the pass. */
	for (p = d->all; p; p = p->next_all) {
		if (p->state != EXITED || chain_end(p) != FOLDED)
			continue;
		for (int s = 0; s < d->nr_slots; s++)
			tally_add(&d->sum[s], &p->own[s]);
		memset(p->own, 0, d->nr_slots * sizeof(p->own[0]));
	}
	for (p = d->all; p; p = p->next_all) {
		enum state end;

		if (p->state != EXITED)
			continue;
		end = chain_end(p);
		if (end == ORPHANED)
			d->orphans++;
		if (end != LIVE)
			p->state = end;
	}
}

int descendants__sum(struct descendants *d, int slot, struct tally *out)
{
	if (slot < 0 || slot >= d->nr_slots)
		return -EINVAL;
	settle(d);
	*out = d->sum[slot];
	return d->lost ? -EOVERFLOW : 0;
}

void descendants__reset(struct descendants *d, int slot)
{
	struct proc *p;

	if (slot < 0 || slot >= d->nr_slots)
		return;
	memset(&d->sum[slot], 0, sizeof(d->sum[slot]));
	for (p = d->all; p; p = p->next_all)
		memset(&p->own[slot], 0, sizeof(p->own[slot]));
}

uint64_t descendants__orphans(const struct descendants *d)
{
	return d->orphans;
}
