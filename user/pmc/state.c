// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/util.h"
#include "fds/counters.h"
#include "names/pfm.h"
#include "pmc/evid.h"
#include "pmc/state.h"

int perf_open_self(struct perf_event_attr *attr, int group_fd)
{
	int fd = syscall(SYS_perf_event_open, attr, 0, -1, group_fd,
			 PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* ---- what this host offers ---- */

static struct pmc_host host;
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

/*
 * Hardware slots are what the kernel can count and libpfm says the core
 * PMU has; software slots always exist, so that every call works on a
 * host without a PMU (a VM) with software events.
 */
static void host_probe(void)
{
	int pmu = evid__core_pmu();
	pfm_pmu_info_t info;

	host.nr_cpus = cpus_possible();
	if (host.nr_cpus < 1)
		host.nr_cpus = 1;
	host.cls = PMC_LINUX_CLASS_SOFTWARE;
	if (counters__host_has_pmu() && pmu > 0 && pfm_pmu_get(pmu, &info)) {
		host.nr_hardware = info.num_cntrs + info.num_fixed_cntrs;
		host.cls = PMC_LINUX_CLASS_PFM(pmu);
	}
	if (host.nr_hardware > PMC_MAX_SLOTS - PMC_SOFTWARE_SLOTS)
		host.nr_hardware = PMC_MAX_SLOTS - PMC_SOFTWARE_SLOTS;
	host.nr_slots = host.nr_hardware + PMC_SOFTWARE_SLOTS;
}

const struct pmc_host *pmc_host(void)
{
	pthread_once(&host_once, host_probe);
	return &host;
}

/* ---- every thread's state ---- */

static struct {
	pthread_mutex_t lock; /* before any thread_state's lock */
	struct thread_state *all;
	pthread_key_t key;
	bool key_made;
	/* The drain thread, in the process that started it. */
	int32_t drain_pid;
	pthread_t drain;
	int kick_fd;
} reg = { .lock = PTHREAD_MUTEX_INITIALIZER, .kick_fd = -1 };

static pthread_once_t reg_once = PTHREAD_ONCE_INIT;
static __thread struct thread_state *current;

static void close_all(int *fd, int n)
{
	for (int i = 0; i < n; i++) {
		if (fd[i] >= 0)
			close(fd[i]);
		fd[i] = -1;
	}
}

static void unmap_all(struct ring *r, int n)
{
	for (int i = 0; i < n; i++)
		ring__unmap(&r[i]);
}

static void slot_close(struct slot *s)
{
	int n = host.nr_cpus;

	if (s->own_fd >= 0)
		close(s->own_fd);
	s->own_fd = -1;
	close_all(s->tree_fd, n);
	close_all(s->prof_fd, n);
	unmap_all(s->prof_ring, n);
}

static void state_free(struct thread_state *ts)
{
	for (int i = 0; i < PMC_MAX_SLOTS; i++) {
		slot_close(&ts->slot[i]);
		profile__free(ts->slot[i].prof);
	}
	close_all(ts->ring_fd, host.nr_cpus);
	unmap_all(ts->ring, host.nr_cpus);
	descendants__free(ts->desc);
	pthread_mutex_destroy(&ts->lock);
	free(ts);
}

/* One allocation: the state, then its per-CPU arrays. */
static struct thread_state *state_alloc(void)
{
	size_t n = host.nr_cpus,
	       per_slot = n * (2 * sizeof(int) + sizeof(uint64_t) +
			       sizeof(struct ring));
	size_t size = sizeof(struct thread_state) +
		      n * (sizeof(int) + sizeof(struct ring)) +
		      PMC_MAX_SLOTS * per_slot;
	struct thread_state *ts = calloc(1, size);
	unsigned char *at;

	if (!ts)
		return NULL;
	/* Rings first: they hold pointers, and want their alignment. */
	at = (unsigned char *)(ts + 1);
	ts->ring = (struct ring *)at;
	at += n * sizeof(struct ring);
	for (int i = 0; i < PMC_MAX_SLOTS; i++) {
		ts->slot[i].prof_ring = (struct ring *)at;
		at += n * sizeof(struct ring);
		ts->slot[i].tree_id = (uint64_t *)at;
		at += n * sizeof(uint64_t);
	}
	ts->ring_fd = (int *)at;
	at += n * sizeof(int);
	for (int i = 0; i < PMC_MAX_SLOTS; i++) {
		struct slot *s = &ts->slot[i];

		s->tree_fd = (int *)at;
		at += n * sizeof(int);
		s->prof_fd = (int *)at;
		at += n * sizeof(int);
		s->own_fd = -1;
		for (size_t c = 0; c < n; c++)
			s->tree_fd[c] = s->prof_fd[c] = -1;
	}
	for (size_t c = 0; c < n; c++)
		ts->ring_fd[c] = -1;
	return ts;
}

static void unregister(struct thread_state *ts)
{
	struct thread_state **pp;

	for (pp = &reg.all; *pp; pp = &(*pp)->next)
		if (*pp == ts) {
			*pp = ts->next;
			break;
		}
}

/* A thread that ends takes its counters with it. */
static void thread_exit(void *arg)
{
	struct thread_state *ts = arg;

	pthread_mutex_lock(&reg.lock);
	unregister(ts);
	pthread_mutex_unlock(&reg.lock);
	state_free(ts);
	current = NULL;
}

static int reopen_slot(struct thread_state *ts, struct slot *s);
static void atfork_prepare(void);
static void atfork_parent(void);
static void atfork_child(void);

static void reg_init(void)
{
	reg.key_made = !pthread_key_create(&reg.key, thread_exit);
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

struct thread_state *thread_state__get(void)
{
	struct thread_state *ts = current;

	if (ts)
		return ts;
	pthread_once(&reg_once, reg_init);
	pmc_host();
	ts = state_alloc();
	if (!ts)
		return NULL;
	pthread_mutex_init(&ts->lock, NULL);
	ts->pid = getpid();
	ts->tid = gettid();
	if (descendants__new(&ts->desc, ts->pid, PMC_MAX_SLOTS)) {
		free(ts);
		return NULL;
	}
	pthread_mutex_lock(&reg.lock);
	ts->next = reg.all;
	reg.all = ts;
	pthread_mutex_unlock(&reg.lock);
	if (reg.key_made)
		pthread_setspecific(reg.key, ts);
	current = ts;
	return ts;
}

/* ---- the rings ---- */

/* Every record carries its time last (sample_id_all, PERF_SAMPLE_TIME). */
struct read_record { /* read_format: value, enabled, running, id */
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t value, enabled, running, id;
};

struct task_record { /* PERF_RECORD_FORK and _EXIT */
	struct perf_event_header h;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

static uint64_t record_time(const struct perf_event_header *h)
{
	const uint64_t *last = (const void *)((const char *)h + h->size);

	return h->size >= sizeof(*h) + 8 ? last[-1] : 0;
}

static void on_tree_record(struct thread_state *ts,
			   const struct perf_event_header *h)
{
	if ((h->type == PERF_RECORD_EXIT || h->type == PERF_RECORD_FORK) &&
	    h->size >= sizeof(struct task_record)) {
		const struct task_record *t = (const void *)h;

		if (h->type == PERF_RECORD_FORK)
			descendants__fork(ts->desc, t->pid, t->ppid, t->tid);
		else
			descendants__exit(ts->desc, t->pid, t->ppid, t->tid);
	} else if (h->type == PERF_RECORD_READ &&
		   h->size >= sizeof(struct read_record)) {
		const struct read_record *r = (const void *)h;
		struct tally t = { r->value, r->enabled, r->running };

		for (int i = 0; i < PMC_MAX_SLOTS; i++) {
			bool first = true; /* the slot's first twin */

			for (int c = 0; c < host.nr_cpus; c++) {
				if (ts->slot[i].tree_fd[c] < 0)
					continue;
				if (ts->slot[i].tree_id[c] == r->id) {
					if (!first)
						t.enabled = 0;
					descendants__read(ts->desc, r->pid,
							  r->tid, i, &t);
				}
				first = false;
			}
		}
	} else if (h->type == PERF_RECORD_LOST) {
		const uint64_t *lost = (const void *)(h + 1);

		descendants__lost(ts->desc, lost[1]);
	}
}

/*
 * The rings' records, gathered and put in time order: a child's exit
 * may sit in one CPU's ring and the fork that made its parent in
 * another's. What a record causes is written after it, so a batch in
 * time order never sees an effect before its cause.
 */
struct batch {
	unsigned char *bytes;
	size_t used, cap;
	size_t *at;
	size_t nr, cap_at;
	bool short_of_memory;
};

static void batch_add(void *arg, const struct perf_event_header *h)
{
	struct batch *b = arg;

	if (b->used + h->size > b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 16384;
		unsigned char *grown;

		while (cap < b->used + h->size)
			cap *= 2;
		grown = realloc(b->bytes, cap);
		if (!grown) {
			b->short_of_memory = true;
			return;
		}
		b->bytes = grown;
		b->cap = cap;
	}
	if (GROW(b->at, b->cap_at, b->nr + 1, 256)) {
		b->short_of_memory = true;
		return;
	}
	memcpy(b->bytes + b->used, h, h->size);
	b->at[b->nr++] = b->used;
	b->used += h->size;
}

/* By time, then as written: one ring's records are already in order. */
static int by_time(const void *a, const void *b, void *base)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	uint64_t x = record_time((const void *)((unsigned char *)base + i));
	uint64_t y = record_time((const void *)((unsigned char *)base + j));

	if (x != y)
		return x < y ? -1 : 1;
	return i < j ? -1 : i > j;
}

/*
 * Drains n rings (NULL-mapped ones skipped) and hands their records to
 * fn in time order. false when memory ran short and records were lost.
 */
static bool drain_sorted(struct ring *rings, int n,
			 void (*fn)(void *, const struct perf_event_header *),
			 void *ctx)
{
	struct batch b = { 0 };
	bool ok;

	for (int c = 0; c < n; c++)
		ring__drain(&rings[c], batch_add, &b);
	if (b.nr)
		qsort_r(b.at, b.nr, sizeof(*b.at), by_time, b.bytes);
	for (size_t i = 0; i < b.nr; i++)
		fn(ctx, (const void *)(b.bytes + b.at[i]));
	ok = !b.short_of_memory;
	free(b.bytes);
	free(b.at);
	return ok;
}

static void tree_record(void *ts, const struct perf_event_header *h)
{
	on_tree_record(ts, h);
}

void thread_state__drain(struct thread_state *ts)
{
	if (!drain_sorted(ts->ring, host.nr_cpus, tree_record, ts))
		descendants__lost(ts->desc, 1); /* said, not hidden */
	for (int i = 0; i < PMC_MAX_SLOTS; i++) {
		struct slot *s = &ts->slot[i];

		if (s->prof && !drain_sorted(s->prof_ring, host.nr_cpus,
					     profile__record, s->prof))
			profile__lost(s->prof, 1);
	}
}

/* ---- the drain thread ---- */

#define MAX_POLL 256

static void watch_fd(struct pollfd *fds, int *n, int fd)
{
	if (fd >= 0 && *n < MAX_POLL)
		fds[(*n)++] = (struct pollfd){ .fd = fd, .events = POLLIN };
}

static void *drain_main(void *arg)
{
	struct pollfd fds[MAX_POLL];

	for (;;) {
		struct thread_state *ts;
		int n = 0;

		pthread_mutex_lock(&reg.lock);
		fds[n++] =
			(struct pollfd){ .fd = reg.kick_fd, .events = POLLIN };
		/* Past the array's size, the timeout drains the rest. */
		for (ts = reg.all; ts; ts = ts->next)
			for (int c = 0; c < host.nr_cpus; c++) {
				watch_fd(fds, &n, ts->ring_fd[c]);
				for (int i = 0; i < PMC_MAX_SLOTS; i++)
					watch_fd(fds, &n,
						 ts->slot[i].prof_fd[c]);
			}
		pthread_mutex_unlock(&reg.lock);
		/* The timeout bounds what a ring holds if a watermark wakeup
		 * is missed; the kick says the set of fds changed. */
		poll(fds, n, 250);
		if (fds[0].revents & POLLIN) {
			uint64_t v;

			if (read(reg.kick_fd, &v, sizeof(v)) < 0)
				v = 0;
		}
		pthread_mutex_lock(&reg.lock);
		for (ts = reg.all; ts; ts = ts->next) {
			pthread_mutex_lock(&ts->lock);
			thread_state__drain(ts);
			pthread_mutex_unlock(&ts->lock);
		}
		pthread_mutex_unlock(&reg.lock);
	}
	return arg;
}

/*
 * With reg.lock held, or in the child of a fork. A thread inherits the
 * counters of the thread that creates it: the drain thread must exist
 * before any inherited counter, or it would count in every tree, and
 * every START would have to reach it with an IPI (50 us, measured).
 */
static int drain_start_locked(void)
{
	int32_t pid = getpid();
	sigset_t all, old;
	int ret;

	if (reg.drain_pid == pid)
		return 0;
	if (reg.kick_fd < 0)
		reg.kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (reg.kick_fd < 0)
		return -errno;
	/* The program's signals are for its own threads, not ours. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&reg.drain, NULL, drain_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return ret;
	pthread_detach(reg.drain);
	reg.drain_pid = pid;
	return 0;
}

int drain__watch(void)
{
	int ret;

	pthread_once(&reg_once, reg_init);
	pthread_mutex_lock(&reg.lock);
	ret = drain_start_locked();
	if (!ret)
		drain__kick();
	pthread_mutex_unlock(&reg.lock);
	return ret;
}

void drain__kick(void)
{
	uint64_t one = 1;

	if (reg.kick_fd >= 0 && write(reg.kick_fd, &one, sizeof(one)) < 0)
		one = 0; /* already pending: the thread will look anyway */
}

/* ---- fork: the child gets the configuration, with counts zeroed ---- */

static void atfork_prepare(void)
{
	evid__lock();
	pthread_mutex_lock(&reg.lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&reg.lock);
	evid__unlock();
}

/*
 * Only the forking thread lives on in the child. The fds it inherited
 * are the parent's counters and the rings were not copied (perf maps
 * them VM_DONTCOPY): every state is dropped but the forking thread's,
 * whose configured slots are opened anew.
 */
static void atfork_child(void)
{
	struct thread_state *ts, *next, *mine = current;

	pthread_mutex_init(&reg.lock, NULL);
	evid__reinit();
	for (ts = reg.all; ts; ts = next) {
		next = ts->next;
		/* Not mapped here: forget the rings, don't unmap them. */
		memset(ts->ring, 0, host.nr_cpus * sizeof(*ts->ring));
		for (int i = 0; i < PMC_MAX_SLOTS; i++)
			memset(ts->slot[i].prof_ring, 0,
			       host.nr_cpus * sizeof(struct ring));
		if (ts != mine) {
			pthread_mutex_init(&ts->lock, NULL);
			state_free(ts);
		}
	}
	reg.all = NULL;
	reg.drain_pid = 0;
	if (reg.kick_fd >= 0)
		close(reg.kick_fd);
	reg.kick_fd = -1;
	if (!mine)
		return;
	/*
	 * No drain thread here: most children exec at once, and a thread
	 * costs them its creation and exec its killing (+0.8 % of a 170 ms
	 * command's task-clock, measured). The child's rings are drained by
	 * its own calls, and by a drain thread if it configures again, which
	 * then inherits the reopened counters (pmc_control(3)).
	 */
	pthread_mutex_init(&mine->lock, NULL);
	mine->next = NULL;
	reg.all = mine;
	mine->pid = getpid();
	mine->tid = gettid();
	close_all(mine->ring_fd, host.nr_cpus);
	descendants__free(mine->desc);
	mine->desc = NULL;
	descendants__new(&mine->desc, mine->pid, PMC_MAX_SLOTS);
	for (int i = 0; i < PMC_MAX_SLOTS; i++) {
		struct slot *s = &mine->slot[i];

		profile__free(s->prof);
		s->prof = NULL;
		if (s->state == SLOT_PROFILING)
			s->state = SLOT_FREE;
		if (s->state == SLOT_FREE) {
			slot_close(s);
			continue;
		}
		if (reopen_slot(mine, s))
			s->state = SLOT_FREE;
	}
}

/* ---- opening a slot's counters ---- */

/*
 * The rings and their dummy events, made with the thread's first slot,
 * on the CPUs online then: a CPU that comes online later has none, and
 * what descendants run there is not accumulated (pmc_control(3)).
 */
static int rings_open(struct thread_state *ts)
{
	struct perf_event_attr dummy = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(dummy),
		.config = PERF_COUNT_SW_DUMMY,
		.inherit = 1,
		.task = 1,
		.sample_id_all = 1,
		.sample_type = PERF_SAMPLE_TIME,
		.watermark = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int opened = 0, ret = 0;

	for (int c = 0; c < host.nr_cpus; c++)
		if (ts->ring_fd[c] >= 0)
			return 0;
	/* 4 data pages: an exit costs 40 bytes, plus 48 per slot. */
	dummy.wakeup_watermark = 2 * (unsigned)sysconf(_SC_PAGESIZE);
	for (int c = 0; c < host.nr_cpus; c++) {
		int fd = syscall(SYS_perf_event_open, &dummy, 0, c, -1,
				 PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			if (errno != ENODEV && errno != EINVAL)
				ret = -errno;
			continue; /* not online, or not possible */
		}
		ret = ring__map(&ts->ring[c], fd, 2);
		if (ret) {
			close(fd);
			break;
		}
		ts->ring_fd[c] = fd;
		opened++;
	}
	if (!ret && !opened)
		ret = -ENODEV;
	if (ret) {
		close_all(ts->ring_fd, host.nr_cpus);
		unmap_all(ts->ring, host.nr_cpus);
	}
	return ret == -EPERM ? -ENOMEM : ret; /* over the mlock limit */
}

/*
 * Opens s's counters from s->attr, enabled if s is running: the own fd
 * counts this thread; on each CPU with a ring, a tree fd counts it and
 * everything it creates from now on, and reports each exiting task's
 * own count into that CPU's ring.
 */
static int reopen_slot(struct thread_state *ts, struct slot *s)
{
	struct perf_event_attr tree;
	int ret;

	slot_close(s);
	s->attr.disabled = s->state != SLOT_RUNNING;
	ret = rings_open(ts);
	if (ret)
		return ret;
	ret = perf_open_self(&s->attr, -1);
	if (ret < 0)
		return ret;
	s->own_fd = ret;
	tree = s->attr;
	tree.inherit = 1;
	tree.inherit_stat = 1;
	tree.read_format |= PERF_FORMAT_ID;
	tree.sample_id_all = 1;
	tree.sample_type = PERF_SAMPLE_TIME;
	for (int c = 0; c < host.nr_cpus; c++) {
		int fd;

		if (ts->ring_fd[c] < 0)
			continue;
		fd = syscall(SYS_perf_event_open, &tree, 0, c, -1,
			     PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			ret = -errno;
			goto fail;
		}
		s->tree_fd[c] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ts->ring_fd[c]) ||
		    ioctl(fd, PERF_EVENT_IOC_ID, &s->tree_id[c])) {
			ret = -errno;
			goto fail;
		}
	}
	return 0;
fail:
	slot_close(s);
	return ret;
}

int slot__open(struct thread_state *ts, struct slot *s)
{
	return reopen_slot(ts, s);
}

void slot__close(struct slot *s)
{
	slot_close(s);
}

int slot__read_sum(const int *fd, int n, uint64_t *value, uint64_t *enabled,
		   uint64_t *running)
{
	uint64_t r[4]; /* value, enabled, running[, id] */
	bool any = false;

	*value = *enabled = *running = 0;
	for (int i = 0; i < n; i++) {
		ssize_t got;

		if (fd[i] < 0)
			continue;
		got = read(fd[i], r, sizeof(r));
		if (got == 0)
			return -EBUSY; /* a pinned counter lost its PMU */
		if (got < (ssize_t)(3 * sizeof(r[0])))
			return got < 0 ? -errno : -EIO;
		*value += r[0];
		*enabled += r[1];
		*running += r[2];
		any = true;
	}
	return any ? 0 : -ENXIO;
}
