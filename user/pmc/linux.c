// SPDX-License-Identifier: GPL-2.0
/* The pmc_linux_* extensions of include/pmc.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "names/pfm.h"
#include "pmc/evid.h"
#include "pmc/state.h"

static int fail(int ret)
{
	errno = ret < 0 ? -ret : ret;
	return -1;
}

int pmc_linux_event_id(const char *name, pmc_evid_t *id, char *why,
		       size_t whylen)
{
	struct error err = { "" };
	pmc_evid_t got;
	int ret;

	if (!id)
		return fail(-EFAULT);
	ret = evid__lookup(name, &got, &err);
	if (why && whylen)
		snprintf(why, whylen, "%s", err.msg);
	if (ret)
		return fail(ret == -ENAMETOOLONG ? -EINVAL : ret);
	*id = got;
	return 0;
}

int pmc_linux_event_name(pmc_evid_t id, char *buf, size_t len)
{
	int ret = evid__name(id, buf, len);

	return ret ? fail(ret) : 0;
}

int pmc_linux_class_name(int cls, char *buf, size_t len)
{
	pfm_pmu_info_t info;

	if (!buf || !len)
		return fail(-EINVAL);
	if (cls == PMC_LINUX_CLASS_SOFTWARE) {
		snprintf(buf, len, "software");
		return 0;
	}
	if ((cls & ~0xffff) != PMC_LINUX_CLASS_SOFTWARE ||
	    !libpfm__pmu_get(cls & 0xffff, &info))
		return fail(-EINVAL);
	snprintf(buf, len, "%s", info.name);
	return 0;
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

int pmc_linux_profile_read(int ctr, struct pmc_linux_profile_entry *out,
			   size_t max, size_t *total)
{
	struct thread_state *ts;
	struct slot *s = profile_slot(ctr, &ts);
	size_t n = 0;
	int ret;

	if (!s)
		return fail(-EINVAL);
	if (!total || (max && !out))
		return fail(-EFAULT);
	pthread_mutex_lock(&ts->lock);
	if (!s->prof) {
		ret = -ENXIO;
	} else {
		thread_state__drain(ts);
		ret = profile__entries(s->prof, out, max, &n);
	}
	pthread_mutex_unlock(&ts->lock);
	if (ret)
		return fail(ret);
	*total = n;
	return 0;
}

int pmc_linux_profile_locate(int ctr, const struct pmc_linux_profile_entry *e,
			     char *path, size_t pathlen, uint64_t *file_offset)
{
	struct thread_state *ts;
	struct slot *s = profile_slot(ctr, &ts);
	int ret;

	if (!s)
		return fail(-EINVAL);
	if (!e || !path || !pathlen || !file_offset)
		return fail(-EFAULT);
	pthread_mutex_lock(&ts->lock);
	ret = s->prof ?
		      profile__locate(s->prof, e, path, pathlen, file_offset) :
		      -ENXIO;
	pthread_mutex_unlock(&ts->lock);
	return ret ? fail(ret) : 0;
}
