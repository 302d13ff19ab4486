// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/hash_index.h"
#include "pmc/profile.h"

struct mapping {
	uint64_t start, end, pgoff;
	char *path;
};

/* A program's file mappings, as the kernel reported them: one per
 * process and exec. */
struct space {
	int32_t pid;
	uint32_t image; /* 0 at fork, one more per exec */
	struct mapping *map;
	size_t nr, cap;
};

/* Where a sample was: a pc in one program of one process. */
struct pc_key {
	uint64_t pc;
	int32_t pid;
	uint32_t image;
};

struct bucket {
	struct pc_key key;
	uint64_t count;
};

struct profile {
	struct bucket *hist; /* in the order first sampled */
	size_t hist_cap, hist_used;
	struct hash_index hist_index;
	struct space *spaces;
	size_t nr_spaces, cap_spaces;
	uint64_t samples, lost;
};

/* The newest space of pid: the program it runs now. */
static struct space *space_find(struct profile *p, int32_t pid)
{
	struct space *found = NULL;

	for (size_t i = 0; i < p->nr_spaces; i++)
		if (p->spaces[i].pid == pid &&
		    (!found || p->spaces[i].image > found->image))
			found = &p->spaces[i];
	return found;
}

/* A new program for pid: after the newest it had, if any. */
static struct space *space_new(struct profile *p, int32_t pid)
{
	struct space *last = space_find(p, pid), *s;
	uint32_t image = last ? last->image + 1 : 0;

	if (GROW(p->spaces, p->cap_spaces, p->nr_spaces + 1, 8))
		return NULL;
	s = &p->spaces[p->nr_spaces++];
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->image = image;
	return s;
}

static void space_clear(struct space *s)
{
	for (size_t i = 0; i < s->nr; i++)
		free(s->map[i].path);
	s->nr = 0;
}

static int space_add(struct space *s, uint64_t start, uint64_t len,
		     uint64_t pgoff, const char *path)
{
	struct mapping *m;

	if (GROW(s->map, s->cap, s->nr + 1, 16))
		return -ENOMEM;
	m = &s->map[s->nr];
	m->path = strdup(path);
	if (!m->path)
		return -ENOMEM;
	m->start = start;
	m->end = start + len;
	m->pgoff = pgoff;
	s->nr++;
	return 0;
}

/* The mappings present before the counter existed: the kernel reports
 * only those made afterwards. */
static void read_own_maps(struct profile *p, int32_t self)
{
	char line[4096 + 128], path[4096];
	unsigned long long start, end, pgoff;
	struct space *s = space_new(p, self);
	FILE *f = fopen("/proc/self/maps", "re");
	char perms[8];

	if (!f || !s) {
		if (f)
			fclose(f);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]",
			   &start, &end, perms, &pgoff, path) < 4)
			continue;
		if (perms[2] == 'x' && path[0] == '/')
			space_add(s, start, end - start, pgoff, path);
	}
	fclose(f);
}

int profile__new(struct profile **out, int32_t self)
{
	struct profile *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	read_own_maps(p, self);
	*out = p;
	return 0;
}

void profile__free(struct profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr_spaces; i++) {
		space_clear(&p->spaces[i]);
		free(p->spaces[i].map);
	}
	free(p->spaces);
	free(p->hist);
	hash_index__free(&p->hist_index);
	free(p);
}

static void hist_add(struct profile *p, int32_t pid, uint64_t pc)
{
	const struct space *s = space_find(p, pid);
	const struct pc_key k = { .pc = pc,
				  .pid = pid,
				  .image = s ? s->image : 0 };
	struct hash_probe probe =
		hash_index__probe(&p->hist_index, hash_bytes(&k, sizeof(k)));
	uint32_t i;

	while ((i = hash_index__next(&p->hist_index, &probe)) != HASH_INDEX_END)
		if (!memcmp(&p->hist[i].key, &k, sizeof(k)))
			break;
	if (i == HASH_INDEX_END) {
		if (hash_index__make_room(&p->hist_index, &probe) ||
		    GROW(p->hist, p->hist_cap, p->hist_used + 1, 1024)) {
			p->lost++; /* no memory: counted, not hidden */
			return;
		}
		i = p->hist_used++;
		p->hist[i] = (struct bucket){ .key = k };
		hash_index__add(&p->hist_index, &probe, i);
	}
	p->hist[i].count++;
	p->samples++;
}

void profile__lost(struct profile *p, uint64_t n)
{
	p->lost += n;
}

/* A child starts with its parent's address space. */
static void space_fork(struct profile *p, int32_t pid, int32_t ppid)
{
	struct space *child = space_new(p, pid);
	const struct space *parent;

	if (!child)
		return;
	/* Found after space_new(), which may have moved the array. */
	parent = space_find(p, ppid);
	for (size_t i = 0; parent && i < parent->nr; i++) {
		const struct mapping m = parent->map[i];

		space_add(child, m.start, m.end - m.start, m.pgoff, m.path);
	}
}

void profile__record(void *profile, const struct perf_event_header *h)
{
	struct profile *p = profile;
	const uint32_t *u32 = (const void *)(h + 1);
	const uint64_t *u64 = (const void *)(h + 1);

	switch (h->type) {
	case PERF_RECORD_SAMPLE: /* ip, pid, tid, time */
		if (h->size >= sizeof(*h) + 16)
			hist_add(p, (int32_t)u32[2], u64[0]);
		break;
	case PERF_RECORD_MMAP: { /* pid, tid, addr, len, pgoff, filename */
		struct space *s = space_find(p, (int32_t)u32[0]);

		if (!s)
			s = space_new(p, (int32_t)u32[0]);
		const char *name = (const char *)(h + 1) + 32;

		if (s && h->size > sizeof(*h) + 32 && name[0] == '/')
			space_add(s, u64[1], u64[2], u64[3], name);
		break;
	default:
		break;
	}
	case PERF_RECORD_FORK: /* pid, ppid, tid, ptid: a process if pid == tid */
		if (u32[0] == u32[2] && u32[0] != u32[1])
			space_fork(p, (int32_t)u32[0], (int32_t)u32[1]);
		break;
	case PERF_RECORD_COMM: /* pid, tid, comm: an exec, a new program */
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC)
			space_new(p, (int32_t)u32[0]);
		break;
	case PERF_RECORD_LOST: /* id, lost */
		p->lost += u64[1];
		break;
	}
}

void profile__stats(const struct profile *p,
		    struct pmc_linux_profile_stats *out)
{
	out->samples = p->samples;
	out->lost = p->lost;
	out->entries = p->hist_used;
}

static int by_count(const void *a, const void *b)
{
	const struct pmc_linux_profile_entry *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->image != y->image)
		return x->image < y->image ? -1 : 1;
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

int profile__entries(const struct profile *p,
		     struct pmc_linux_profile_entry *out, size_t max,
		     size_t *total)
{
	struct pmc_linux_profile_entry *all;
	size_t n = 0;

	*total = p->hist_used;
	if (!max)
		return 0;
	all = malloc((p->hist_used ? p->hist_used : 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (size_t i = 0; i < p->hist_used; i++)
		all[n++] = (struct pmc_linux_profile_entry){
			.pc = p->hist[i].key.pc,
			.count = p->hist[i].count,
			.pid = p->hist[i].key.pid,
			.image = p->hist[i].key.image,
		};
	qsort(all, n, sizeof(*all), by_count);
	memcpy(out, all, (n < max ? n : max) * sizeof(*all));
	free(all);
	return 0;
}

int profile__locate(const struct profile *p,
		    const struct pmc_linux_profile_entry *e, char *path,
		    size_t pathlen, uint64_t *file_offset)
{
	const struct space *s = NULL;

	for (size_t i = 0; i < p->nr_spaces; i++)
		if (p->spaces[i].pid == e->pid &&
		    p->spaces[i].image == e->image)
			s = &p->spaces[i];
	/* Newest first: a mapping made later covers an older one. */
	for (size_t i = s ? s->nr : 0; i-- > 0;) {
		const struct mapping *m = &s->map[i];

		if (e->pc >= m->start && e->pc < m->end) {
			snprintf(path, pathlen, "%s", m->path);
			*file_offset = e->pc - m->start + m->pgoff;
			return 0;
		}
	}
	return -ENOENT;
}
