// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "cmd/record_status.h"
#include "common/util.h"

void record_status__init(struct record_status *s, bool on)
{
	*s = (struct record_status){
		.on = on,
		.start_ns = clock_ns(CLOCK_MONOTONIC),
	};
}

void record_status__clear(struct record_status *s)
{
	if (!s->drawn)
		return;
	/* Carriage return, then erase to the end of the line (ECMA-48 EL). */
	fputs("\r\033[K", stderr);
	fflush(stderr);
	s->drawn = false;
}

void format_bytes_si(uint64_t bytes, char *out, size_t len)
{
	static const char *const units[] = { "B", "kB", "MB", "GB", "TB" };
	double v = bytes;
	unsigned u = 0;

	while (v >= 1000 && u + 1 < ARRAY_SIZE(units)) {
		v /= 1000;
		u++;
	}
	if (!u)
		snprintf(out, len, "%" PRIu64 " B", bytes);
	else
		snprintf(out, len, "%.*f %s",
			 v < 10	 ? 2 :
			 v < 100 ? 1 :
				   0,
			 v, units[u]);
}

void record_status__interval(struct record_status *s,
			     const struct record_progress *p)
{
	uint64_t secs = (clock_ns(CLOCK_MONOTONIC) - s->start_ns) / 1000000000;
	char size[32];

	s->intervals++;
	if (!s->on)
		return;
	format_bytes_si(p->bytes, size, sizeof(size));
	fprintf(stderr,
		"\r\033[Kbpmc: %02" PRIu64 ":%02" PRIu64 ":%02" PRIu64
		" elapsed, %" PRIu64 " intervals, %" PRIu64
		" rows, %s written, %" PRIu64 " samples and %" PRIu64
		" intervals lost",
		secs / 3600, secs / 60 % 60, secs % 60, s->intervals, p->rows,
		size, p->samples_lost, p->intervals_lost);
	fflush(stderr);
	s->drawn = true;
}

void record_status__end(struct record_status *s)
{
	if (!s->drawn)
		return;
	fputc('\n', stderr);
	fflush(stderr);
	s->drawn = false;
}
