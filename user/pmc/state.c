// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
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
 * Hardware slots are the core PMU's counters as the kernel schedules
 * them (fds/counters.c); where it cannot tell, libpfm's count for the
 * core PMU. Software slots always exist, so that every call works on a
 * host without a PMU (a VM) with software events. The class is libpfm's
 * core PMU, or its "perf" table where libpfm has none for this CPU (QEMU's
 * arm64 "max" CPU): its generic events are all that name the hardware.
 */
static void host_probe(void)
{
	int pmu = evid__core_pmu(), max = PMC_MAX_SLOTS - PMC_SOFTWARE_SLOTS;
	pfm_pmu_info_t info;
	bool table = pmu > 0 && libpfm__pmu_get(pmu, &info);

	host.nr_cpus = cpus_possible();
	if (host.nr_cpus < 1)
		host.nr_cpus = 1;
	host.cls = PMC_LINUX_CLASS_SOFTWARE;
	host.nr_hardware = counters__hw_counters(max);
	if (!host.nr_hardware && table && counters__host_has_pmu())
		host.nr_hardware = info.num_cntrs + info.num_fixed_cntrs;
	if (host.nr_hardware)
		host.cls =
			PMC_LINUX_CLASS_PFM(table ? pmu : PFM_PMU_PERF_EVENT);
	if (host.nr_hardware > max)
		host.nr_hardware = max;
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
	/*
	 * The rings' fds, watched for the drain thread: an fd is added as it
	 * is opened and deleted before it is closed, so the thread never
	 * waits on a closed fd, nor on a number the program reused.
	 * Created under lock, before the first fd it watches; -1 in a
	 * child of fork until it configures (it shares its parent's).
	 */
	int epoll_fd;
	int kick_fd; /* in epoll_fd: wakes the thread to see drain_gen */
	/* The drain thread, in the process that started it. */
	int32_t drain_pid;
	pthread_t drain;
	unsigned drain_gen; /* a thread started at another gen ends */
	int live; /* counters (slots not free) of every thread */
	int holds; /* ops between drain__hold and drain__release */
	bool finished; /* the library's destructor ran: no new thread */
} reg = { .lock = PTHREAD_MUTEX_INITIALIZER, .epoll_fd = -1, .kick_fd = -1 };

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

/* Closes ring fds, out of the drain thread's set first. */
static void close_watched(int *fd, int n)
{
	int ep = __atomic_load_n(&reg.epoll_fd, __ATOMIC_ACQUIRE);

	for (int i = 0; i < n; i++)
		if (fd[i] >= 0 && ep >= 0)
			epoll_ctl(ep, EPOLL_CTL_DEL, fd[i], NULL);
	close_all(fd, n);
}

int drain__add(int fd)
{
	int ep = __atomic_load_n(&reg.epoll_fd, __ATOMIC_ACQUIRE);
	struct epoll_event ev = { .events = EPOLLIN };

	if (ep < 0 || !epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		return 0;
	return errno == EEXIST ? 0 : -errno;
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
	if (s->whole_fd >= 0)
		close(s->whole_fd);
	s->own_fd = s->whole_fd = -1;
	close_all(s->tree_fd, n);
	close_watched(s->prof_fd, n);
	unmap_all(s->prof_ring, n);
}

static void state_free(struct thread_state *ts)
{
	for (int i = 0; i < PMC_MAX_SLOTS; i++) {
		slot_close(&ts->slot[i]);
		profile__free(ts->slot[i].prof);
	}
	close_watched(ts->ring_fd, host.nr_cpus);
	unmap_all(ts->ring, host.nr_cpus);
	descendants__free(ts->desc);
	pthread_mutex_destroy(&ts->lock);
	free(ts);
}

static int busy_slots(const struct thread_state *ts)
{
	int n = 0;

	for (int i = 0; i < PMC_MAX_SLOTS; i++)
		n += ts->slot[i].state != SLOT_FREE;
	return n;
}

void thread_state__idle(struct thread_state *ts)
{
	if (busy_slots(ts))
		return;
	close_watched(ts->ring_fd, host.nr_cpus);
	unmap_all(ts->ring, host.nr_cpus);
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
		s->own_fd = s->whole_fd = -1;
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

static bool drain_stop_locked(pthread_t *thread);

/*
 * A thread that ends takes its counters with it: the state goes when
 * the drain thread, if it is draining it, lets it go too.
 */
static void thread_exit(void *arg)
{
	struct thread_state *ts = arg;
	bool last, join;
	pthread_t drain;

	pthread_mutex_lock(&reg.lock);
	unregister(ts);
	reg.live -= busy_slots(ts);
	join = drain_stop_locked(&drain);
	last = --ts->refs == 0;
	pthread_mutex_unlock(&reg.lock);
	current = NULL;
	if (join)
		pthread_join(drain, NULL);
	if (last)
		state_free(ts);
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
	ts->refs = 1; /* the thread's own */
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

/*
 * Drains every state without the registry's lock: each is taken with a
 * reference under the lock, then drained under its own, so a thread
 * that configures or exits waits for one state's drain, not all.
 */
static void drain_all(struct thread_state ***held, size_t *cap)
{
	struct thread_state *ts;
	size_t n = 0;

	pthread_mutex_lock(&reg.lock);
	for (ts = reg.all; ts; ts = ts->next) {
		if (n == *cap) {
			size_t grown_cap = *cap ? 2 * *cap : 16;
			void *grown =
				realloc(*held, grown_cap * sizeof(**held));

			if (!grown)
				break; /* the rest on the next round */
			*held = grown;
			*cap = grown_cap;
		}
		ts->refs++;
		(*held)[n++] = ts;
	}
	pthread_mutex_unlock(&reg.lock);
	for (size_t i = 0; i < n; i++) {
		ts = (*held)[i];
		pthread_mutex_lock(&ts->lock);
		thread_state__drain(ts);
		pthread_mutex_unlock(&ts->lock);
	}
	pthread_mutex_lock(&reg.lock);
	for (size_t i = 0; i < n; i++)
		if (--(*held)[i]->refs)
			(*held)[i] = NULL; /* still its thread's */
	pthread_mutex_unlock(&reg.lock);
	for (size_t i = 0; i < n; i++)
		if ((*held)[i])
			state_free((*held)[i]); /* its thread ended meanwhile */
}

static void *drain_main(void *arg)
{
	unsigned gen = (unsigned)(uintptr_t)arg;
	struct thread_state **held = NULL;
	struct epoll_event ev[16];
	size_t cap = 0;

	for (;;) {
		bool mine;

		/* The timeout bounds what a ring holds if a watermark wakeup
		 * is missed; the kick says this thread is to end. */
		epoll_wait(reg.epoll_fd, ev, 16, 250);
		pthread_mutex_lock(&reg.lock);
		mine = reg.drain_gen == gen;
		pthread_mutex_unlock(&reg.lock);
		if (!mine)
			break; /* the kick stays set for a newer thread */
		for (int i = 0; i < 16; i++) {
			uint64_t v;

			if (read(reg.kick_fd, &v, sizeof(v)) <= 0)
				break;
		}
		drain_all(&held, &cap);
	}
	free(held);
	return NULL;
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
	struct epoll_event kick = { .events = EPOLLIN };
	sigset_t all, old;
	int ret;

	if (reg.drain_pid == pid || reg.finished)
		return 0;
	if (reg.epoll_fd < 0) {
		int ep = epoll_create1(EPOLL_CLOEXEC);

		if (ep < 0)
			return -errno;
		/* Only a child's states can have fds already: watched now. */
		for (struct thread_state *ts = reg.all; ts; ts = ts->next) {
			pthread_mutex_lock(&ts->lock);
			for (int c = 0; c < host.nr_cpus; c++)
				if (ts->ring_fd[c] >= 0)
					epoll_ctl(ep, EPOLL_CTL_ADD,
						  ts->ring_fd[c], &kick);
			pthread_mutex_unlock(&ts->lock);
		}
		__atomic_store_n(&reg.epoll_fd, ep, __ATOMIC_RELEASE);
	}
	if (reg.kick_fd < 0) {
		reg.kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (reg.kick_fd < 0)
			return -errno;
		if (epoll_ctl(reg.epoll_fd, EPOLL_CTL_ADD, reg.kick_fd,
			      &kick)) {
			ret = -errno;
			close(reg.kick_fd);
			reg.kick_fd = -1;
			return ret;
		}
	}
	/* The program's signals are for its own threads, not ours. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&reg.drain, NULL, drain_main,
			      (void *)(uintptr_t)reg.drain_gen);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return ret;
	reg.drain_pid = pid;
	return 0;
}

static void drain_kick(void)
{
	uint64_t one = 1;

	if (reg.kick_fd >= 0 && write(reg.kick_fd, &one, sizeof(one)) < 0)
		one = 0; /* already pending: the thread will look anyway */
}

/*
 * With reg.lock held: when this process's drain thread runs and no
 * counter nor op in flight needs it, tells it to end. The caller joins
 * *thread, without the lock, when this returns true.
 */
static bool drain_stop_locked(pthread_t *thread)
{
	if (reg.drain_pid != getpid() || reg.live > 0 || reg.holds > 0)
		return false;
	*thread = reg.drain;
	reg.drain_pid = 0;
	reg.drain_gen++;
	drain_kick();
	return true;
}

int drain__hold(void)
{
	int ret;

	pthread_once(&reg_once, reg_init);
	pmc_host();
	pthread_mutex_lock(&reg.lock);
	ret = drain_start_locked();
	if (!ret)
		reg.holds++;
	pthread_mutex_unlock(&reg.lock);
	return ret;
}

void drain__release(bool held, int delta)
{
	pthread_t drain;
	bool join;

	if (!held && !delta)
		return;
	pthread_mutex_lock(&reg.lock);
	reg.holds -= held;
	reg.live += delta;
	join = drain_stop_locked(&drain);
	pthread_mutex_unlock(&reg.lock);
	if (join)
		pthread_join(drain, NULL);
}

/*
 * dlclose(3) or exit: no thread of ours left running the unmapped code,
 * no key whose destructor would call it. The caller's state goes; other
 * threads' states lose their fds and rings but stay, as at exit those
 * threads may still be running and holding them.
 */
__attribute__((destructor)) static void pmc_fini(void)
{
	struct thread_state *ts, *mine = current;
	pthread_t drain;
	bool join;

	pthread_mutex_lock(&reg.lock);
	reg.finished = true;
	reg.live = 0;
	reg.holds = 0;
	join = drain_stop_locked(&drain);
	pthread_mutex_unlock(&reg.lock);
	if (join)
		pthread_join(drain, NULL);
	if (reg.key_made)
		pthread_key_delete(reg.key);
	reg.key_made = false;
	pthread_mutex_lock(&reg.lock);
	if (mine)
		unregister(mine);
	for (ts = reg.all; ts; ts = ts->next) {
		pthread_mutex_lock(&ts->lock);
		for (int i = 0; i < PMC_MAX_SLOTS; i++) {
			slot_close(&ts->slot[i]);
			ts->slot[i].state = SLOT_FREE;
		}
		thread_state__idle(ts);
		pthread_mutex_unlock(&ts->lock);
	}
	pthread_mutex_unlock(&reg.lock);
	if (mine && --mine->refs == 0)
		state_free(mine);
	current = NULL;
	if (reg.epoll_fd >= 0)
		close(reg.epoll_fd);
	if (reg.kick_fd >= 0)
		close(reg.kick_fd);
	reg.epoll_fd = reg.kick_fd = -1;
	evid__fini();
}

/* ---- fork: the child gets the configuration, with counts zeroed ---- */

/* Every state's lock too: the drain thread may be in one of them. */
static void atfork_prepare(void)
{
	evid__lock();
	pthread_mutex_lock(&reg.lock);
	for (struct thread_state *ts = reg.all; ts; ts = ts->next)
		pthread_mutex_lock(&ts->lock);
}

static void atfork_parent(void)
{
	for (struct thread_state *ts = reg.all; ts; ts = ts->next)
		pthread_mutex_unlock(&ts->lock);
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
	/* The parent's epoll set, shared: forgotten before any close, which
	 * would take the parent's fds out of it. */
	if (reg.epoll_fd >= 0)
		close(reg.epoll_fd);
	reg.epoll_fd = -1;
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
	reg.live = reg.holds = 0;
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
	mine->refs = 1;
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
	reg.live = busy_slots(mine);
	thread_state__idle(mine);
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
		ret = drain__add(fd);
		if (ret)
			break;
	}
	if (!ret && !opened)
		ret = -ENODEV;
	if (ret) {
		close_watched(ts->ring_fd, host.nr_cpus);
		unmap_all(ts->ring, host.nr_cpus);
	}
	return ret == -EPERM ? -ENOMEM : ret; /* over the mlock limit */
}

/*
 * Opens s's counters from s->attr, enabled if s is running: the own fd
 * counts this thread; a multiplexed counter's whole fd counts it and
 * everything it creates, on any CPU; on each CPU with a ring, a tree fd counts it and
 * everything it creates from now on, and reports each exiting task's
 * own count into that CPU's ring. PMC_LINUX_FLAG_NO_ACCUMULATE: the
 * whole fd alone, pinned or not, and no tree fds.
 */
static int reopen_slot(struct thread_state *ts, struct slot *s)
{
	bool twins = !(s->cfg.flags & PMC_LINUX_FLAG_NO_ACCUMULATE);
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
	/* No whole fd beside the tree fds where it would never be
	 * multiplexed: a pinned counter, or a breakpoint, which holds its
	 * debug register from creation (x86 has 4 a CPU: with the whole fds,
	 * a user/kernel split of one breakpoint wanted 5 and got ENOSPC).
	 * The tree fds' sum is its count then. Without twins, the whole fd
	 * is the count. */
	if (!twins ||
	    (!s->attr.pinned && s->attr.type != PERF_TYPE_BREAKPOINT)) {
		ret = perf_open_self(&tree, -1);
		if (ret < 0)
			goto fail;
		s->whole_fd = ret;
	}
	if (!twins)
		return 0;
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
