// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
/* The kernel's header first: libpfm's copy then steps aside. */
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "events.h"
#include "util.h"

static bool pfm_ready;

int events__init(const char *pmu_table)
{
	int ret;

	if (pfm_ready)
		return 0;
	/* Without this, libpfm 4.13 hides every table it did not detect,
	 * even when the name carries an explicit TABLE:: prefix. */
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	ret = pfm_initialize();
	if (ret != PFM_SUCCESS) {
		p_err("cannot initialise libpfm: %s", pfm_strerror(ret));
		return -EINVAL;
	}
	pfm_ready = true;
	(void)pmu_table;
	return 0;
}

int events__encode(const char *name, struct event *ev, char *err, size_t errlen)
{
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL;
	int ret;

	memset(ev, 0, sizeof(*ev));
	if (strlen(name) >= sizeof(ev->name)) {
		snprintf(err, errlen, "event name '%.40s...' is too long",
			 name);
		return -ENAMETOOLONG;
	}
	strcpy(ev->name, name);
	memset(&arg, 0, sizeof(arg));
	arg.attr = &ev->attr;
	arg.size = sizeof(arg);
	arg.fstr = &fstr;
	ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3,
					PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS) {
		snprintf(err, errlen, "unknown event '%s': %s", name,
			 pfm_strerror(ret));
		free(fstr);
		return -ENOENT;
	}
	ev->attr.size = sizeof(ev->attr);
	ev->own_period = ev->attr.sample_period != 0;
	snprintf(ev->fstr, sizeof(ev->fstr), "%s", fstr ? fstr : name);
	free(fstr);
	return 0;
}

/*
 * Copies the next name of a list and returns its delimiter (',' or NUL).
 * Commas inside a PMU/.../ body do not split.
 */
static const char *next_name(const char *p, char *out, size_t len)
{
	int slashes = 0;
	size_t n = 0;

	for (; *p && (*p != ',' || slashes % 2); p++) {
		if (*p == '/')
			slashes++;
		if (n + 1 >= len)
			return NULL;
		out[n++] = *p;
	}
	out[n] = '\0';
	return p;
}

int events__parse_list(const char *spec, struct event_list *list, char *err,
		       size_t errlen)
{
	char name[EVENT_NAME_LEN];
	const char *p = spec;
	int ret;

	list->nr = 0;
	if (!*spec) {
		snprintf(err, errlen, "empty event list");
		return -EINVAL;
	}
	for (;;) {
		const char *start = p;

		p = next_name(p, name, sizeof(name));
		if (!p) {
			snprintf(err, errlen,
				 "event name '%.40s...' is too long", start);
			return -ENAMETOOLONG;
		}
		if (!*name) {
			snprintf(err, errlen, "empty event name in '%s'", spec);
			return -EINVAL;
		}
		if (list->nr == BPMC_MAX_EVENTS) {
			snprintf(err, errlen,
				 "too many events in '%s': at most %d", spec,
				 BPMC_MAX_EVENTS);
			return -E2BIG;
		}
		for (int i = 0; i < list->nr; i++) {
			if (!strcmp(list->ev[i].name, name)) {
				snprintf(err, errlen,
					 "event '%s' is listed twice", name);
				return -EINVAL;
			}
		}
		ret = events__encode(name, &list->ev[list->nr], err, errlen);
		if (ret)
			return ret;
		list->nr++;
		if (!*p++)
			break;
	}
	return 0;
}

bool event__is_hardware(const struct event *ev)
{
	return ev->attr.type == PERF_TYPE_HARDWARE ||
	       ev->attr.type == PERF_TYPE_HW_CACHE ||
	       ev->attr.type == PERF_TYPE_RAW;
}

bool events__host_has_pmu(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.disabled = 1,
	};
	int fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1,
			 PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}
