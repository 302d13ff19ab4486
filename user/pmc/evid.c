// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "names/pfm.h"
#include "pmc/evid.h"

static const struct portable {
	pmc_evid_t id;
	const char *name;
} portable[] = {
	{ PMC_LINUX_EV_CYCLES, "cycles" },
	{ PMC_LINUX_EV_INSTRUCTIONS, "instructions" },
	{ PMC_LINUX_EV_CACHE_REFERENCES, "cache-references" },
	{ PMC_LINUX_EV_CACHE_MISSES, "cache-misses" },
	{ PMC_LINUX_EV_BRANCHES, "branches" },
	{ PMC_LINUX_EV_BRANCH_MISSES, "branch-misses" },
	{ PMC_LINUX_EV_CPU_CLOCK, "cpu-clock" },
	{ PMC_LINUX_EV_TASK_CLOCK, "task-clock" },
	{ PMC_LINUX_EV_PAGE_FAULTS, "page-faults" },
	{ PMC_LINUX_EV_CONTEXT_SWITCHES, "context-switches" },
	{ PMC_LINUX_EV_CPU_MIGRATIONS, "cpu-migrations" },
	{ PMC_LINUX_EV_MINOR_FAULTS, "minor-faults" },
	{ PMC_LINUX_EV_MAJOR_FAULTS, "major-faults" },
};

static struct {
	pthread_mutex_t lock;
	struct events *names;
	struct event *named; /* id PMC_LINUX_EV_NAMED_BASE + i */
	int nr_named, cap_named;
} reg = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* With reg.lock held. */
static int names_handle(struct error *err)
{
	return reg.names ? 0 : events__new(&reg.names, NULL, err);
}

static int encode_locked(const char *name, struct event *ev, struct error *err)
{
	int ret = names_handle(err);

	if (ret)
		return ret;
	ret = events__encode(reg.names, name, ev, err);
	if (ret)
		return ret;
	/* A counting or profiling slot says how it samples, not the name. */
	ev->attr.sample_period = 0;
	ev->attr.freq = 0;
	return 0;
}

int evid__lookup(const char *name, pmc_evid_t *id, struct error *err)
{
	struct event ev;
	int ret = 0;

	if (!name || !*name || strpbrk(name, ",{}"))
		return error__set(
			err, EINVAL,
			"event '%s': one event name, no list or group",
			name ? name : "(null)");
	for (size_t i = 0; i < ARRAY_SIZE(portable); i++)
		if (!strcmp(name, portable[i].name)) {
			*id = portable[i].id;
			return 0;
		}
	pthread_mutex_lock(&reg.lock);
	for (int i = 0; i < reg.nr_named; i++)
		if (!strcmp(reg.named[i].name, name)) {
			*id = PMC_LINUX_EV_NAMED_BASE + i;
			goto out;
		}
	ret = encode_locked(name, &ev, err);
	if (ret)
		goto out;
	if (reg.nr_named == reg.cap_named) {
		int cap = reg.cap_named ? 2 * reg.cap_named : 16;
		struct event *grown = NULL;

		/* Ids are ints: a million names is plenty. */
		if (cap <= 1 << 20)
			grown = realloc(reg.named, cap * sizeof(*grown));
		if (!grown) {
			ret = error__set(err, ENOMEM,
					 "event '%s': out of memory", name);
			goto out;
		}
		reg.named = grown;
		reg.cap_named = cap;
	}
	reg.named[reg.nr_named] = ev;
	*id = PMC_LINUX_EV_NAMED_BASE + reg.nr_named++;
out:
	pthread_mutex_unlock(&reg.lock);
	return ret;
}

static const char *portable_name(pmc_evid_t id)
{
	for (size_t i = 0; i < ARRAY_SIZE(portable); i++)
		if (portable[i].id == id)
			return portable[i].name;
	return NULL;
}

int evid__event(pmc_evid_t id, struct event *ev)
{
	const char *name = portable_name(id);
	int ret = 0;

	pthread_mutex_lock(&reg.lock);
	if (name) {
		if (encode_locked(name, ev, NULL))
			ret = -ENODEV;
	} else if (id >= PMC_LINUX_EV_NAMED_BASE &&
		   id - PMC_LINUX_EV_NAMED_BASE < reg.nr_named) {
		*ev = reg.named[id - PMC_LINUX_EV_NAMED_BASE];
	} else {
		ret = -ENODEV;
	}
	pthread_mutex_unlock(&reg.lock);
	return ret;
}

int evid__name(pmc_evid_t id, char *buf, size_t len)
{
	const char *name = portable_name(id);
	int ret = 0;

	if (!buf || !len)
		return -EINVAL;
	pthread_mutex_lock(&reg.lock);
	if (!name && id >= PMC_LINUX_EV_NAMED_BASE &&
	    id - PMC_LINUX_EV_NAMED_BASE < reg.nr_named)
		name = reg.named[id - PMC_LINUX_EV_NAMED_BASE].name;
	if (name)
		snprintf(buf, len, "%s", name);
	else
		ret = -EINVAL;
	pthread_mutex_unlock(&reg.lock);
	return ret;
}

int evid__core_pmu(void)
{
	const char *table;
	int pmu = -1;

	pthread_mutex_lock(&reg.lock);
	if (!names_handle(NULL)) {
		table = events__core_table(reg.names);
		if (table && *table)
			pmu = libpfm__pmu_by_name(table);
	}
	pthread_mutex_unlock(&reg.lock);
	return pmu;
}

void evid__lock(void)
{
	pthread_mutex_lock(&reg.lock);
}

void evid__unlock(void)
{
	pthread_mutex_unlock(&reg.lock);
}

void evid__reinit(void)
{
	pthread_mutex_init(&reg.lock, NULL);
}

void evid__fini(void)
{
	pthread_mutex_lock(&reg.lock);
	events__free(reg.names);
	free(reg.named);
	reg.names = NULL;
	reg.named = NULL;
	reg.nr_named = reg.cap_named = 0;
	pthread_mutex_unlock(&reg.lock);
}
