// SPDX-License-Identifier: GPL-2.0
/*
 * pmc/descendants.c: NetBSD's fold-on-exit from the kernel's exit
 * records. The records here are laid out as a kernel run gives them (a
 * fork before what it causes, a task's EXIT before its READs); that the
 * kernel does so is what tests/pmc/netbsd_api.c checks against rusage.
 */
#include <errno.h>

#include "pmc/descendants.h"
#include "test.h"

#define SELF 100

static struct tally ns(uint64_t v)
{
	return (struct tally){ v, v, v };
}

static uint64_t sum(struct descendants *d, int slot)
{
	struct tally t = { 0 };

	descendants__sum(d, slot, &t);
	return t.value;
}

/* A process's whole life: fork, exit of its main thread, its READ. */
static void lives(struct descendants *d, int pid, int ppid, uint64_t v)
{
	struct tally t = ns(v);

	descendants__fork(d, pid, ppid, pid);
	descendants__exit(d, pid, ppid, pid);
	descendants__read(d, pid, pid, 0, &t);
}

static void test_child(void)
{
	struct descendants *d;
	struct tally t = ns(7);

	if (!ASSERT_OK(descendants__new(&d, SELF, 2), "new"))
		return;
	ASSERT_EQ(sum(d, 0), 0, "nothing before an exit");
	descendants__fork(d, 200, SELF, 200);
	descendants__read(d, 200, 201, 0, &t); /* a thread of it exits */
	ASSERT_EQ(sum(d, 0), 0, "a live child's thread is not counted");
	descendants__exit(d, 200, SELF, 200);
	t = ns(50);
	descendants__read(d, 200, 200, 0, &t);
	ASSERT_EQ(sum(d, 0), 57, "child and its thread, once it exited");
	ASSERT_EQ(sum(d, 1), 0, "the other slot");
	t = ns(3); /* a READ of it after it was settled */
	descendants__read(d, 200, 202, 0, &t);
	ASSERT_EQ(sum(d, 0), 60, "a late thread's READ still counts");
	descendants__free(d);
}

static void test_grandchild(void)
{
	struct descendants *d;
	struct tally t = ns(5);

	if (!ASSERT_OK(descendants__new(&d, SELF, 1), "new"))
		return;
	descendants__fork(d, 200, SELF, 200);
	lives(d, 300, 200, 40); /* exits while 200 lives */
	ASSERT_EQ(sum(d, 0), 0, "waits for its parent");
	descendants__exit(d, 200, SELF, 200);
	descendants__read(d, 200, 200, 0, &t);
	ASSERT_EQ(sum(d, 0), 45, "folded through its parent");
	descendants__free(d);
}

static void test_orphan(void)
{
	struct descendants *d;

	if (!ASSERT_OK(descendants__new(&d, SELF, 1), "new"))
		return;
	descendants__fork(d, 200, SELF, 200);
	descendants__fork(d, 300, 200, 300);
	lives(d, 200, SELF, 1);
	/* 200 exited first: 300's parent at exit is init. */
	descendants__exit(d, 300, 1, 300);
	{
		struct tally t = ns(1000);

		descendants__read(d, 300, 300, 0, &t);
	}
	ASSERT_EQ(sum(d, 0), 1, "the orphan is not counted");
	ASSERT_EQ(descendants__orphans(d), 1, "and is counted as one");
	descendants__free(d);
}

static void test_own_threads_and_reset(void)
{
	struct descendants *d;
	struct tally t = ns(9);

	if (!ASSERT_OK(descendants__new(&d, SELF, 1), "new"))
		return;
	descendants__fork(d, SELF, SELF, 101);
	descendants__exit(d, SELF, 1, 101);
	descendants__read(d, SELF, 101, 0, &t);
	ASSERT_EQ(sum(d, 0), 0, "our own threads are no subprocesses");
	lives(d, 200, SELF, 10);
	ASSERT_EQ(sum(d, 0), 10, "child");
	descendants__reset(d, 0);
	ASSERT_EQ(sum(d, 0), 0, "a reconfigured slot starts from zero");
	descendants__free(d);
}

static void test_pid_reuse_and_lost(void)
{
	struct descendants *d;
	struct tally t = { 0 };

	if (!ASSERT_OK(descendants__new(&d, SELF, 1), "new"))
		return;
	lives(d, 200, SELF, 10);
	lives(d, 200, SELF, 20); /* the same pid, a new child */
	ASSERT_EQ(sum(d, 0), 30, "two children of one pid");
	descendants__lost(d, 2);
	ASSERT_EQ(descendants__sum(d, 0, &t), -EOVERFLOW,
		  "lost records say so");
	descendants__free(d);
}

static void test_many(void)
{
	struct descendants *d;
	uint64_t want = 0;

	if (!ASSERT_OK(descendants__new(&d, SELF, 1), "new"))
		return;
	/* More than the table keeps: settled entries are let go. */
	for (int i = 0; i < 200000; i++) {
		lives(d, 1000 + i % 30000, SELF, 1 + i % 7);
		want += 1 + i % 7;
	}
	ASSERT_EQ(sum(d, 0), want, "200000 children");
	descendants__free(d);
}

static const struct subtest tests[] = {
	{ "child", test_child },
	{ "grandchild", test_grandchild },
	{ "orphan", test_orphan },
	{ "own_threads_and_reset", test_own_threads_and_reset },
	{ "pid_reuse_and_lost", test_pid_reuse_and_lost },
	{ "many", test_many },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
