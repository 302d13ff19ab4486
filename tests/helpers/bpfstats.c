// SPDX-License-Identifier: GPL-2.0
/*
 * bpfstats hold: turns BPF run-time statistics on through the fd-based
 * bpf_enable_stats() and keeps them on until killed (they switch off by
 * themselves when this process dies; the sysctl is never touched).
 * bpfstats show: prints "id type name run_cnt run_time_ns" per program.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

static int show(void)
{
	struct bpf_prog_info info;
	__u32 id = 0, len;
	int fd;

	while (!bpf_prog_get_next_id(id, &id)) {
		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len))
			printf("%u %u %s %llu %llu\n", id, info.type, info.name,
			       (unsigned long long)info.run_cnt,
			       (unsigned long long)info.run_time_ns);
		close(fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int fd;

	if (argc == 2 && !strcmp(argv[1], "show"))
		return show();
	if (argc != 2 || strcmp(argv[1], "hold")) {
		fprintf(stderr, "usage: bpfstats hold|show\n");
		return 2;
	}
	fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (fd < 0) {
		perror("bpf_enable_stats");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	pause();
	return 0;
}
