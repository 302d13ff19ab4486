// SPDX-License-Identifier: GPL-2.0
/*
 * pagetouch N [FILE CMD [ARG...]]: faults in N fresh anonymous pages (no
 * huge pages, so one fault per page), then exits; or, given FILE, writes
 * its own pid to FILE (a cgroup.procs: it moves itself, as `echo $$ >
 * cgroup.procs` does) and execs CMD, with no context switch of its own
 * in between.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc >= 2 ? atol(argv[1]) : 0;
	long page = sysconf(_SC_PAGESIZE);
	FILE *f;
	char *p;

	if (n <= 0 || argc == 3) {
		fprintf(stderr, "usage: pagetouch N [FILE CMD [ARG...]]\n");
		return 2;
	}
	p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	madvise(p, n * page, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
	if (argc == 2)
		return 0;
	f = fopen(argv[2], "w");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
		perror(argv[2]);
		return 1;
	}
	execvp(argv[3], argv + 3);
	perror(argv[3]);
	return 1;
}
