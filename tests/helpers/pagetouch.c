// SPDX-License-Identifier: GPL-2.0
/*
 * pagetouch N: faults in N fresh anonymous pages (no huge pages, so one
 * fault per page), then exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc == 2 ? atol(argv[1]) : 0;
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	if (n <= 0) {
		fprintf(stderr, "usage: pagetouch N\n");
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
	return 0;
}
