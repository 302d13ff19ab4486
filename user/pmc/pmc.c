// SPDX-License-Identifier: GPL-2.0
/*
 * pmc_control(2) and pmc_get_info(2), op by op, as NetBSD's manual
 * states them; pmc_control(3) says where Linux differs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "names/events.h"
#include "pmc/evid.h"
#include "pmc/state.h"
#include "pmc/uaccess.h"

/* 64 data pages: 2.7 s of samples at 10,000/s before the drain thread
 * must have woken. */
#define PROFILE_RING_ORDER 6

/* ---- helpers ---- */

static int fail(int ret)
{
	errno = ret < 0 ? -ret : ret;
	return -1;
}

/*
 * A software counter takes a hardware event only to be multiplexed: it
 * is then one more of the kernel's virtual counters, not the PMU's.
 */
static bool slot_takes(int ctr, const struct event *ev, uint32_t flags)
{
	return ctr < pmc_host()->nr_hardware || !event__is_hardware(ev) ||
	       (flags & PMC_LINUX_FLAG_MULTIPLEX);
}

/* perf_event_open's refusals, in the manual's terms. */
static int open_errno(int ret)
{
	switch (-ret) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
	case EINVAL:
		return -ENODEV; /* this host cannot count the event */
	default:
		return ret;
	}
}

struct reading {
	uint64_t value, enabled, running;
};

/* 0; -EBUSY when the kernel put a pinned counter in error state (it
 * reads as end of file): the PMU had to give its counter away. */
static int read_counter(int fd, struct reading *r)
{
	ssize_t n = read(fd, r, sizeof(*r));

	if (n == (ssize_t)sizeof(*r))
		return 0;
	return n == 0 ? -EBUSY : -errno;
}

static int ioctl_all(const int *fd, int n, unsigned long req)
{
	for (int i = 0; i < n; i++)
		if (fd[i] >= 0 && ioctl(fd[i], req, 0))
			return -errno;
	return 0;
}

static int set_enabled(struct slot *s, bool on)
{
	unsigned long req = on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;
	int ret = ioctl_all(&s->own_fd, 1, req);

	if (!ret)
		ret = ioctl_all(&s->whole_fd, 1, req);

	return ret ? ret : ioctl_all(s->tree_fd, pmc_host()->nr_cpus, req);
}

/* ---- pmc_control ---- */

static int configure(struct thread_state *ts, int ctr,
		     const struct pmc_counter_cfg *cfg)
{
	struct slot *s = &ts->slot[ctr];
	struct event ev;
	int ret;

	if (s->state == SLOT_RUNNING || s->state == SLOT_PROFILING)
		return -EBUSY;
	if (evid__event(cfg->event_id, &ev) ||
	    !slot_takes(ctr, &ev, cfg->flags))
		return -ENODEV;
	slot__close(s);
	profile__free(s->prof);
	s->prof = NULL;
	s->cfg = *cfg;
	s->attr = ev.attr;
	s->attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			      PERF_FORMAT_TOTAL_TIME_RUNNING;
	s->attr.pinned = !(cfg->flags & PMC_LINUX_FLAG_MULTIPLEX);
	s->state = SLOT_CONFIGURED;
	ret = slot__open(ts, s);
	if (ret) {
		slot__close(s);
		s->state = SLOT_FREE;
		return open_errno(ret);
	}
	descendants__reset(ts->desc, ctr);
	return 0;
}

static int start(struct slot *s)
{
	struct reading r;
	int ret;

	if (s->state == SLOT_FREE)
		return -ENXIO;
	if (s->state == SLOT_RUNNING)
		return -EINPROGRESS;
	if (s->state == SLOT_PROFILING)
		return -EBUSY;
	ret = set_enabled(s, true);
	/* A pinned counter the PMU cannot take fails as it is enabled. */
	if (!ret && s->attr.pinned)
		ret = read_counter(s->own_fd, &r);
	if (!ret && s->attr.pinned)
		ret = s->whole_fd >= 0 ?
			      read_counter(s->whole_fd, &r) :
			      slot__read_sum(s->tree_fd, pmc_host()->nr_cpus,
					     &r.value, &r.enabled, &r.running);
	if (ret) {
		set_enabled(s, false);
		return ret;
	}
	s->state = SLOT_RUNNING;
	return 0;
}

static int stop(struct slot *s)
{
	int ret;

	if (s->state == SLOT_FREE)
		return -ENXIO;
	if (s->state == SLOT_PROFILING)
		return -EBUSY;
	if (s->state == SLOT_CONFIGURED)
		return 0;
	ret = set_enabled(s, false);
	if (!ret)
		s->state = SLOT_CONFIGURED;
	return ret;
}

/*
 * The sampling fds, enabled: the thread alone on any CPU, or with its
 * descendants one per CPU (the kernel maps no ring of an inherited
 * counter that follows a task across CPUs).
 */
static int prof_open(struct slot *s, struct perf_event_attr *attr)
{
	int n = attr->inherit ? pmc_host()->nr_cpus : 1, opened = 0;
	struct reading r;
	int ret;

	for (int c = 0; c < n; c++) {
		int fd = syscall(SYS_perf_event_open, attr, 0,
				 attr->inherit ? c : -1, -1,
				 PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			if (attr->inherit && errno == ENODEV)
				continue; /* an offline CPU */
			return open_errno(-errno);
		}
		s->prof_fd[c] = fd;
		ret = ring__map(&s->prof_ring[c], fd,
				attr->inherit ? PROFILE_RING_ORDER - 1 :
						PROFILE_RING_ORDER);
		if (!ret)
			ret = drain__add(fd);
		if (ret)
			return ret;
		opened++;
	}
	if (!opened)
		return -ENODEV;
	ret = ioctl_all(s->prof_fd, n, PERF_EVENT_IOC_ENABLE);
	if (!ret && attr->pinned)
		ret = slot__read_sum(s->prof_fd, n, &r.value, &r.enabled,
				     &r.running);
	return ret;
}

static int profstart(struct thread_state *ts, int ctr,
		     const struct pmc_counter_cfg *cfg)
{
	struct slot *s = &ts->slot[ctr];
	struct perf_event_attr attr;
	struct event ev;
	int ret;

	if (s->state != SLOT_FREE)
		return -EBUSY;
	if (!cfg->reset_value || cfg->reset_value >> 63)
		return -EINVAL;
	if (evid__event(cfg->event_id, &ev) ||
	    !slot_takes(ctr, &ev, cfg->flags))
		return -ENODEV;
	attr = ev.attr;
	attr.sample_period = cfg->reset_value;
	/* Time last in every record: the rings are merged in time order. */
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr.sample_id_all = 1;
	/* The interrupted user PCs, as NetBSD's profiling ticks. */
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.mmap = 1;
	attr.comm = 1;
	attr.comm_exec = 1;
	attr.task = 1;
	attr.inherit = !!(cfg->flags & PMC_LINUX_FLAG_DESCENDANTS);
	attr.pinned = !(cfg->flags & PMC_LINUX_FLAG_MULTIPLEX);
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.disabled = 1;
	attr.watermark = 1;
	attr.wakeup_watermark =
		(sysconf(_SC_PAGESIZE) << PROFILE_RING_ORDER) / 2;
	profile__free(s->prof);
	s->prof = NULL;
	ret = profile__new(&s->prof, ts->pid);
	if (ret)
		return ret;
	ret = prof_open(s, &attr);
	if (ret) {
		slot__close(s);
		return ret == -EPERM ? -ENOMEM : ret; /* the mlock limit */
	}
	s->cfg = *cfg;
	s->attr = attr;
	s->state = SLOT_PROFILING;
	return 0;
}

static int profstop(struct thread_state *ts, struct slot *s)
{
	if (s->state != SLOT_PROFILING)
		return -ENXIO;
	ioctl_all(s->prof_fd, pmc_host()->nr_cpus, PERF_EVENT_IOC_DISABLE);
	thread_state__drain(ts);
	slot__close(s); /* the histogram stays for reading */
	s->state = SLOT_FREE;
	return 0;
}

static int valid_ctr(int ctr)
{
	return ctr >= 0 && ctr < pmc_host()->nr_slots;
}

int pmc_control(int ctr, int op, void *argp)
{
	bool held = op == PMC_OP_CONFIGURE || op == PMC_OP_PROFSTART;
	struct pmc_counter_cfg cfg;
	struct thread_state *ts;
	int ret, was_busy, delta;

	if (op < PMC_OP_START || op > PMC_OP_PROFSTOP || !valid_ctr(ctr))
		return fail(-EINVAL);
	if (held) {
		ret = copy_in(&cfg, argp, sizeof(cfg));
		if (ret)
			return fail(ret);
		/*
		 * NetBSD's flags are "currently unused": a program written for
		 * it may leave anything there. Only our extensions' bits mean
		 * something, DESCENDANTS only to PROFSTART; the rest is ignored.
		 */
		cfg.flags &= op == PMC_OP_PROFSTART ?
				     PMC_LINUX_FLAG_MULTIPLEX |
					     PMC_LINUX_FLAG_DESCENDANTS :
				     PMC_LINUX_FLAG_MULTIPLEX |
					     PMC_LINUX_FLAG_NO_ACCUMULATE;
		/* The drain thread first: lock order, and see drain__hold(). */
		ret = drain__hold();
		if (ret)
			return fail(ret == -EAGAIN ? -ENOMEM : ret);
	}
	ts = thread_state__get();
	if (!ts) {
		drain__release(held, 0);
		return fail(-ENOMEM);
	}
	pthread_mutex_lock(&ts->lock);
	was_busy = ts->slot[ctr].state != SLOT_FREE;
	switch (op) {
	case PMC_OP_START:
		ret = start(&ts->slot[ctr]);
		break;
	case PMC_OP_STOP:
		ret = stop(&ts->slot[ctr]);
		break;
	case PMC_OP_CONFIGURE:
		ret = configure(ts, ctr, &cfg);
		break;
	case PMC_OP_PROFSTART:
		ret = profstart(ts, ctr, &cfg);
		break;
	default:
		ret = profstop(ts, &ts->slot[ctr]);
		break;
	}
	delta = (ts->slot[ctr].state != SLOT_FREE) - was_busy;
	thread_state__idle(ts);
	pthread_mutex_unlock(&ts->lock);
	drain__release(held, delta);
	return ret ? fail(ret) : 0;
}

/* ---- pmc_get_info ---- */

static int counter_info(struct thread_state *ts, int ctr, int op, void *argp)
{
	struct slot *s = &ts->slot[ctr];
	struct pmc_linux_profile_stats ps;
	struct pmc_linux_times times;
	struct reading r;
	struct tally t;
	uint64_t v;
	int ret;

	if (op == PMC_LINUX_INFO_PROFILE_STATS) {
		if (!s->prof)
			return -ENXIO;
		thread_state__drain(ts);
		profile__stats(s->prof, &ps);
		return copy_out(argp, &ps, sizeof(ps));
	}
	if (s->state == SLOT_FREE)
		return -ENXIO;
	switch (op) {
	case PMC_INFO_COUNTER_VALUE:
	case PMC_LINUX_INFO_TIMES:
		if (s->state == SLOT_PROFILING)
			ret = slot__read_sum(s->prof_fd, pmc_host()->nr_cpus,
					     &r.value, &r.enabled, &r.running);
		else
			ret = read_counter(s->own_fd, &r);
		if (ret)
			return ret;
		if (op == PMC_INFO_COUNTER_VALUE)
			return copy_out(argp, &r.value, sizeof(r.value));
		times = (struct pmc_linux_times){ r.enabled, r.running };
		return copy_out(argp, &times, sizeof(times));
	case PMC_LINUX_INFO_INHERITED_VALUE:
	case PMC_LINUX_INFO_INHERITED_TIMES:
		if (s->state == SLOT_PROFILING)
			return -ENXIO;
		if (s->whole_fd >= 0) {
			ret = read_counter(s->whole_fd, &r);
		} else {
			/* Pinned or a breakpoint (reopen_slot): running all
			 * the time it was enabled. */
			ret = slot__read_sum(s->tree_fd, pmc_host()->nr_cpus,
					     &r.value, &r.enabled, &r.running);
			r.enabled = r.running;
		}
		if (ret)
			return ret;
		if (op == PMC_LINUX_INFO_INHERITED_VALUE)
			return copy_out(argp, &r.value, sizeof(r.value));
		times = (struct pmc_linux_times){ r.enabled, r.running };
		return copy_out(argp, &times, sizeof(times));
	default: /* the accumulated value and times */
		if (s->state == SLOT_PROFILING ||
		    (s->cfg.flags & PMC_LINUX_FLAG_NO_ACCUMULATE))
			return -ENXIO;
		thread_state__drain(ts);
		ret = descendants__sum(ts->desc, ctr, &t);
		if (ret)
			return ret;
		if (op == PMC_INFO_ACCUMULATED_COUNTER_VALUE) {
			v = t.value;
			return copy_out(argp, &v, sizeof(v));
		}
		times = (struct pmc_linux_times){ t.enabled, t.running };
		return copy_out(argp, &times, sizeof(times));
	}
}

int pmc_get_info(int ctr, int op, void *argp)
{
	const struct pmc_host *host;
	struct thread_state *ts;
	int ret, v;

	switch (op) {
	case PMC_INFO_NCOUNTERS:
		v = pmc_host()->nr_slots;
		ret = copy_out(argp, &v, sizeof(v));
		return ret ? fail(ret) : 0;
	case PMC_INFO_CPUCTR_TYPE:
		host = pmc_host();
		if (ctr == -1)
			v = host->cls;
		else if (valid_ctr(ctr))
			v = ctr < host->nr_hardware ? PMC_LINUX_TYPE_HARDWARE :
						      PMC_LINUX_TYPE_SOFTWARE;
		else
			return fail(-EINVAL);
		ret = copy_out(argp, &v, sizeof(v));
		return ret ? fail(ret) : 0;
	case PMC_INFO_COUNTER_VALUE:
	case PMC_INFO_ACCUMULATED_COUNTER_VALUE:
	case PMC_LINUX_INFO_TIMES:
	case PMC_LINUX_INFO_ACCUMULATED_TIMES:
	case PMC_LINUX_INFO_INHERITED_VALUE:
	case PMC_LINUX_INFO_INHERITED_TIMES:
	case PMC_LINUX_INFO_PROFILE_STATS:
		break;
	default:
		return fail(-EINVAL);
	}
	if (!valid_ctr(ctr))
		return fail(-EINVAL);
	ts = thread_state__get();
	if (!ts)
		return fail(-ENOMEM);
	pthread_mutex_lock(&ts->lock);
	ret = counter_info(ts, ctr, op, argp);
	pthread_mutex_unlock(&ts->lock);
	return ret ? fail(ret) : 0;
}
