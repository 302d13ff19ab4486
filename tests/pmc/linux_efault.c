// SPDX-License-Identifier: GPL-2.0
/*
 * Every pointer argument of every Linux extension, handed (void *)1, a
 * PROT_NONE page and a read-only page: EFAULT, as the NetBSD calls'
 * argp, never a crash (issue 26, item 13: each of these was SIGSEGV).
 * An argument the call only reads works from a read-only page. Each
 * case runs in a child of its own, so that a crash is one failed check;
 * the profile cases make their profile in that child (a child of fork
 * gets no profile of its parent's).
 * Same output convention as netbsd_api.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pmc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int failures;
static char *none, *ro; /* a PROT_NONE page; a read-only page */
static struct pmc_linux_profile_entry entry; /* a real one, in the child */

enum kind { BAD1, NONE, RO, NR_KINDS };
static const char *const kind_name[] = { "(void *)1", "a PROT_NONE page",
					 "a read-only page" };

static void *ptr(enum kind k)
{
	return k == BAD1 ? (void *)1 : k == NONE ? none : ro;
}

static void spin_ms(int ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		for (volatile int i = 0; i < 100000; i++)
			;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 +
			 (b.tv_nsec - a.tv_nsec) / 1000000 <
		 ms);
}

/* In the child: a profile of this process on counter 0, and an entry
 * of it that locates, copied into the ro page. */
static int make_profile(void)
{
	struct pmc_counter_cfg cfg = { PMC_LINUX_EV_TASK_CLOCK, 100000, 0 };
	struct pmc_linux_profile_entry all[64];
	size_t total = 0, i;
	char path[4096];
	uint64_t off;

	if (pmc_control(0, PMC_OP_PROFSTART, &cfg))
		return -1;
	spin_ms(30);
	if (pmc_control(0, PMC_OP_PROFSTOP, NULL) ||
	    pmc_linux_profile_read(0, all, 64, &total))
		return -1;
	for (i = 0; i < total && i < 64; i++)
		if (!pmc_linux_profile_locate(0, &all[i], path, sizeof(path),
					      &off))
			break;
	if (i == total || i == 64)
		return -1;
	entry = all[i];
	if (mprotect(ro, 4096, PROT_READ | PROT_WRITE))
		return -1;
	memcpy(ro, &entry, sizeof(entry));
	return mprotect(ro, 4096, PROT_READ);
}

static int call(const char *fn, const char *arg, enum kind k)
{
	char buf[4096];
	pmc_evid_t id;
	size_t total;
	uint64_t off;
	void *p = ptr(k);

	if (!strcmp(fn, "event_id")) {
		if (!strcmp(arg, "name"))
			return pmc_linux_event_id(k == RO ? ro + 512 : p, &id,
						  buf, sizeof(buf));
		if (!strcmp(arg, "id"))
			return pmc_linux_event_id("task-clock", p, buf,
						  sizeof(buf));
		return pmc_linux_event_id("task-clock", &id, p, 64);
	}
	if (!strcmp(fn, "event_name"))
		return pmc_linux_event_name(PMC_LINUX_EV_TASK_CLOCK, p, 64);
	if (!strcmp(fn, "class_name"))
		return pmc_linux_class_name(PMC_LINUX_CLASS_SOFTWARE, p, 64);
	if (make_profile())
		return -2;
	if (!strcmp(fn, "profile_read"))
		return !strcmp(arg, "out") ?
			       pmc_linux_profile_read(0, p, 100, &total) :
			       pmc_linux_profile_read(0, &entry, 1, p);
	if (!strcmp(arg, "e"))
		return pmc_linux_profile_locate(0, p, buf, sizeof(buf), &off);
	if (!strcmp(arg, "path"))
		return pmc_linux_profile_locate(0, &entry, p, 64, &off);
	return pmc_linux_profile_locate(0, &entry, buf, sizeof(buf), p);
}

/* The call in a child: exit 0 when it did what is wanted. */
static void check(const char *fn, const char *arg, enum kind k, bool reads)
{
	bool want_ok = reads && k == RO;
	int status = 0, ret, err;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		ret = call(fn, arg, k);
		err = errno;
		if (ret == -2)
			_exit(3);
		_exit(want_ok ? ret != 0 : !(ret == -1 && err == EFAULT));
	}
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		printf("ok pmc_linux_%s(%s = %s): %s\n", fn, arg, kind_name[k],
		       want_ok ? "read from it" : "EFAULT");
		return;
	}
	failures++;
	if (WIFSIGNALED(status))
		printf("FAIL pmc_linux_%s(%s = %s): killed by signal %d\n", fn,
		       arg, kind_name[k], WTERMSIG(status));
	else
		printf("FAIL pmc_linux_%s(%s = %s): %s\n", fn, arg,
		       kind_name[k],
		       WEXITSTATUS(status) == 3 ? "no profile to read" :
		       want_ok			? "failed" :
						  "not EFAULT");
}

int main(void)
{
	static const struct {
		const char *fn, *arg;
		bool reads; /* only read: a read-only page is fine */
	} cases[] = {
		{ "event_id", "name", true },
		{ "event_id", "id", false },
		{ "event_id", "why", false },
		{ "event_name", "buf", false },
		{ "class_name", "buf", false },
		{ "profile_read", "out", false },
		{ "profile_read", "total", false },
		{ "profile_locate", "e", true },
		{ "profile_locate", "path", false },
		{ "profile_locate", "file_offset", false },
	};

	none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (none == MAP_FAILED || ro == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	strcpy(ro + 512, "task-clock");
	mprotect(ro, 4096, PROT_READ);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (int k = 0; k < NR_KINDS; k++)
			check(cases[i].fn, cases[i].arg, k, cases[i].reads);
	/* A name that ends on the last byte before a PROT_NONE page is
	 * whole: read a page at a time, never past its NUL. */
	{
		char *two = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		pmc_evid_t id = 0;
		int ret;

		mprotect(two + 4096, 4096, PROT_NONE);
		strcpy(two + 4096 - sizeof("task-clock"), "task-clock");
		ret = pmc_linux_event_id(two + 4096 - sizeof("task-clock"), &id,
					 NULL, 0);
		printf("%s pmc_linux_event_id(a name that ends at a PROT_NONE page): %s\n",
		       !ret && id == PMC_LINUX_EV_TASK_CLOCK ? "ok" : "FAIL",
		       ret ? strerror(errno) : "read");
		failures += ret || id != PMC_LINUX_EV_TASK_CLOCK;
	}
	return failures;
}
