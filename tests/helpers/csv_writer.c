// SPDX-License-Identifier: GPL-2.0
/*
 * csv_writer PATH ROWS LATE: writes ROWS process rows through bpmc's own
 * CSV sink into PATH, all plain, except that row LATE names a cgroup
 * with a comma and a quote: what a CSV sniffer reading the first rows
 * must not be fooled by.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sinks/csv_sink.h"

int main(int argc, char **argv)
{
	long rows = argc == 4 ? atol(argv[2]) : 0,
	     late = rows ? atol(argv[3]) : 0;
	struct sink s = {};
	struct interval_info info = {
		.end_realtime_ns = (uint64_t)time(NULL) * 1000000000ull,
		.length_ns = 1000000000,
		.host = "host1",
	};
	struct row r = {
		.scope = "process",
		.cgroup_id = 42,
		.cgroup = "/plain",
		.tid = -1,
		.comm = "worker",
		.event = "cpu-clock",
		.count = 1000,
		.samples = 1,
		.running_pct = 100,
	};

	if (rows <= 0 || csv_sink__new(&s, &(struct csv_config){
						   .path = argv[1],
						   .host = "host1",
						   .backlog = 1,
					   })) {
		fprintf(stderr, "usage: csv_writer PATH ROWS LATE: %s\n",
			s.error.msg);
		return 2;
	}
	if (s.ops->begin_interval(&s, &info))
		return 1;
	for (long i = 0; i < rows; i++) {
		r.pid = i + 1;
		r.cgroup = i == late ? "/late,\"comma\"" : "/plain";
		if (s.ops->write_row(&s, &r))
			return 1;
	}
	if (s.ops->end_interval(&s) || s.ops->close(&s)) {
		fprintf(stderr, "csv_writer: %s\n", s.error.msg);
		return 1;
	}
	return 0;
}
