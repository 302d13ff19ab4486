// SPDX-License-Identifier: GPL-2.0
/*
 * The pmc_linux_* extensions of include/pmc.h. Every pointer they are
 * handed is read and written through pmc/uaccess.h, as the NetBSD calls'
 * argp is: a bad one is EFAULT, never a crash.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names/pfm.h"
#include "pmc/evid.h"
#include "pmc/state.h"
#include "pmc/uaccess.h"

static int fail(int ret)
{
	errno = ret < 0 ? -ret : ret;
	return -1;
}

int pmc_linux_event_id(const char *name, pmc_evid_t *id, char *why,
		       size_t whylen)
{
	struct error err = { "" };
	char copy[EVENT_NAME_LEN + 1];
	pmc_evid_t got = PMC_INVALID_EVID;
	int ret, out;

	ret = copy_in_string(copy, sizeof(copy), name);
	if (ret == -ENAMETOOLONG)
		ret = error__set(&err, EINVAL,
				 "event name '%.40s...' is too long", copy);
	else if (!ret)
		ret = evid__lookup(copy, &got, &err);
	if (ret == -EFAULT)
		return fail(ret);
	if (why && whylen) {
		out = copy_out_string(why, whylen, err.msg);
		if (out)
			return fail(out);
	}
	if (ret)
		return fail(ret == -ENAMETOOLONG ? -EINVAL : ret);
	out = copy_out(id, &got, sizeof(got));
	return out ? fail(out) : 0;
}

int pmc_linux_event_name(pmc_evid_t id, char *buf, size_t len)
{
	char name[EVENT_NAME_LEN + 1];
	int ret;

	if (!len)
		return fail(-EINVAL);
	ret = evid__name(id, name, sizeof(name));
	if (!ret)
		ret = copy_out_string(buf, len, name);
	return ret ? fail(ret) : 0;
}

int pmc_linux_class_name(int cls, char *buf, size_t len)
{
	pfm_pmu_info_t info;
	int ret;

	if (!len)
		return fail(-EINVAL);
	if (cls == PMC_LINUX_CLASS_SOFTWARE) {
		ret = copy_out_string(buf, len, "software");
		return ret ? fail(ret) : 0;
	}
	if ((cls & ~0xffff) != PMC_LINUX_CLASS_SOFTWARE ||
	    !libpfm__pmu_get(cls & 0xffff, &info))
		return fail(-EINVAL);
	ret = copy_out_string(buf, len, info.name ? info.name : "");
	return ret ? fail(ret) : 0;
}

static struct slot *profile_slot(int ctr, struct thread_state **tsp)
{
	struct thread_state *ts;

	if (ctr < 0 || ctr >= pmc_host()->nr_slots)
		return NULL;
	ts = thread_state__get();
	if (!ts)
		return NULL;
	*tsp = ts;
	return &ts->slot[ctr];
}

/* With ts->lock held: the histogram's first entries, into a copy. */
static int profile_copy(struct slot *s, size_t max,
			struct pmc_linux_profile_entry **copy, size_t *n,
			size_t *total)
{
	int ret = profile__entries(s->prof, NULL, 0, total);

	if (ret)
		return ret;
	*n = max < *total ? max : *total;
	if (!*n)
		return 0;
	*copy = malloc(*n * sizeof(**copy));
	if (!*copy)
		return -ENOMEM;
	return profile__entries(s->prof, *copy, *n, total);
}

int pmc_linux_profile_read(int ctr, struct pmc_linux_profile_entry *out,
			   size_t max, size_t *total)
{
	struct pmc_linux_profile_entry *copy = NULL;
	struct thread_state *ts;
	struct slot *s = profile_slot(ctr, &ts);
	size_t n = 0, all = 0;
	int ret;

	if (!s)
		return fail(-EINVAL);
	pthread_mutex_lock(&ts->lock);
	if (!s->prof) {
		ret = -ENXIO;
	} else {
		thread_state__drain(ts);
		ret = profile_copy(s, max, &copy, &n, &all);
	}
	pthread_mutex_unlock(&ts->lock);
	/* The entries first: a bad out fails before *total is written. */
	if (!ret && max)
		ret = copy_out(out, copy, n * sizeof(*copy));
	if (!ret)
		ret = copy_out(total, &all, sizeof(all));
	free(copy);
	return ret ? fail(ret) : 0;
}

int pmc_linux_profile_locate(int ctr, const struct pmc_linux_profile_entry *e,
			     char *path, size_t pathlen, uint64_t *file_offset)
{
	struct pmc_linux_profile_entry entry;
	char where[PATH_MAX + 1];
	struct thread_state *ts;
	struct slot *s = profile_slot(ctr, &ts);
	uint64_t offset = 0;
	int ret;

	if (!s)
		return fail(-EINVAL);
	if (!pathlen)
		return fail(-EFAULT);
	ret = copy_in(&entry, e, sizeof(entry));
	if (ret)
		return fail(ret);
	pthread_mutex_lock(&ts->lock);
	ret = s->prof ? profile__locate(s->prof, &entry, where, sizeof(where),
					&offset) :
			-ENXIO;
	pthread_mutex_unlock(&ts->lock);
	if (!ret)
		ret = copy_out_string(path, pathlen, where);
	if (!ret)
		ret = copy_out(file_offset, &offset, sizeof(offset));
	return ret ? fail(ret) : 0;
}
