// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the event-list grammar of names/events.c (groups
 * {a,b}:mods, libpfm modifiers :u:k:c=2:period=, sysfs terms pmu/a=1,b/,
 * perf's grammar: raw rHEX, TYPE:CONFIG, mem:ADDR/LEN:rwx, subsys:event,
 * legacy names with /name='..'/ terms and modifiers), each input parsed as one NUL-terminated list through one naming
 * handle made once. Links names/ and common/ only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "names/events.h"

static struct events *events;

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "fuzz_events: %s at %s:%d\n", #cond, \
				__FILE__, __LINE__);                         \
			abort();                                             \
		}                                                            \
	} while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct error err = {};

	if (events__new(&events, NULL, &err)) {
		fprintf(stderr, "fuzz_events: %s\n", err.msg);
		exit(1);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct event_list *list = malloc(sizeof(*list));
	char *spec = malloc(size + 1);
	struct error err = {};
	int ret;

	if (!list || !spec)
		abort();
	memcpy(spec, data, size);
	spec[size] = '\0';
	ret = events__parse_list(events, spec, list, &err);
	CHECK(memchr(err.msg, '\0', sizeof(err.msg)));
	if (ret) {
		CHECK(ret < 0);
		CHECK(err.msg[0]); /* every refusal names its culprit */
	} else {
		CHECK(list->nr > 0 && list->nr <= BPMC_MAX_EVENTS);
		for (int i = 0; i < list->nr; i++) {
			const struct event *ev = &list->ev[i];
			int l = ev->leader;

			CHECK(ev->name[0]);
			CHECK(memchr(ev->name, '\0', sizeof(ev->name)));
			CHECK(memchr(ev->fstr, '\0', sizeof(ev->fstr)));
			CHECK(strstr(spec, ev->name));
			CHECK(ev->attr.size == sizeof(ev->attr));
			/* A group's leader comes first and leads itself;
			 * its members follow it without a gap. */
			CHECK(l >= 0 && l <= i && list->ev[l].leader == l);
			for (int j = l + 1; j < i; j++)
				CHECK(list->ev[j].leader == l);
		}
	}
	free(spec);
	free(list);
	return 0;
}
