// SPDX-License-Identifier: GPL-2.0
/*
 * perf's grammar pieces on their own: legacy names against the kernel's
 * enums, modifiers, term splitting with quotes, breakpoints. perf's own
 * expectations as a whole run in tests/integration/test_perf_grammar.sh.
 */
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <string.h>

#include "names/perf_grammar.h"
#include "test.h"

static struct perf_event_attr attr;
static struct perf_event_info info;
static struct error error;

static int enc(const char *name, const char *group)
{
	memset(&attr, 0xa5, sizeof(attr));
	error.msg[0] = '\0';
	return perf_name__encode(name, group, &attr, &info, &error);
}

static void check_legacy(const char *name, __u32 type, __u64 config)
{
	__u32 t = ~0u;
	__u64 c = ~0ull;

	if (!ASSERT_TRUE(perf_legacy__lookup(name, &t, &c), name))
		return;
	ASSERT_EQ(t, type, name);
	ASSERT_EQ(c, config, name);
}

static void test_legacy(void)
{
	check_legacy("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	check_legacy("ref-cycles", PERF_TYPE_HARDWARE,
		     PERF_COUNT_HW_REF_CPU_CYCLES);
	check_legacy("cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
	check_legacy("major-faults", PERF_TYPE_SOFTWARE,
		     PERF_COUNT_SW_PAGE_FAULTS_MAJ);
	/* TYPE-OP-RESULT, TYPE-RESULT (op read), TYPE-OP (result access). */
	check_legacy("L1-dcache-load-misses", PERF_TYPE_HW_CACHE, 0x10000);
	check_legacy("LLC-misses", PERF_TYPE_HW_CACHE,
		     PERF_COUNT_HW_CACHE_LL | 1 << 16);
	check_legacy("dTLB-stores", PERF_TYPE_HW_CACHE,
		     PERF_COUNT_HW_CACHE_DTLB | 1 << 8);
	check_legacy("LLC-speculative-read-miss", PERF_TYPE_HW_CACHE,
		     PERF_COUNT_HW_CACHE_LL | 2 << 8 | 1 << 16);
	check_legacy("branch-load-misses", PERF_TYPE_HW_CACHE,
		     PERF_COUNT_HW_CACHE_BPU | 1 << 16);
	check_legacy("l1i-prefetches", PERF_TYPE_HW_CACHE,
		     PERF_COUNT_HW_CACHE_L1I | 2 << 8);

	__u32 t;
	__u64 c;

	/* perf has no store for the i-cache, and no such results. */
	ASSERT_TRUE(!perf_legacy__lookup("L1-icache-stores", &t, &c),
		    "i-cache store");
	ASSERT_TRUE(!perf_legacy__lookup("L1-dcache-load-hits", &t, &c),
		    "hits");
	ASSERT_TRUE(!perf_legacy__lookup("L1-dcache", &t, &c), "cache alone");
	ASSERT_TRUE(!perf_legacy__lookup("Cycles", &t, &c), "case");
}

static void test_modifiers(void)
{
	ASSERT_OK(enc("instructions:kIG", NULL), "kIG");
	ASSERT_EQ(attr.exclude_user, 1, "kIG user");
	ASSERT_EQ(attr.exclude_kernel, 0, "kIG kernel");
	ASSERT_EQ(attr.exclude_hv, 1, "kIG hv");
	ASSERT_EQ(attr.exclude_idle, 1, "kIG idle");
	ASSERT_EQ(attr.exclude_host, 1, "kIG host");
	ASSERT_EQ(attr.exclude_guest, 0, "kIG guest");
	ASSERT_STREQ(info.fstr, "instructions:kGI", "kIG fstr");
	ASSERT_OK(enc("cycles:H", "G"), "H in a G group");
	ASSERT_EQ(attr.exclude_host + attr.exclude_guest, 0, "both count");
	ASSERT_OK(enc("cycles:kp", "p"), "p on pp");
	ASSERT_EQ(attr.precise_ip, 2, "precise adds up");
	ASSERT_OK(enc("cycles", NULL), "no modifier");
	ASSERT_EQ(attr.exclude_user + attr.exclude_kernel + attr.exclude_hv, 0,
		  "perf's default: every level");
	ASSERT_EQ(enc("cycles:pppp", NULL), -EINVAL, "four p");
	ASSERT_TRUE(strstr(error.msg, "modifier 'p'") != NULL, error.msg);
	ASSERT_EQ(enc("cycles:W", NULL), -EINVAL, "W");
	ASSERT_TRUE(strstr(error.msg, "modifier 'W'") != NULL, error.msg);
	ASSERT_EQ(enc("cycles", "S"), -EINVAL, "group S");
	ASSERT_TRUE(strstr(error.msg, "modifier 'S'") != NULL, error.msg);
}

static void test_terms(void)
{
	char buf[] = "name='a,b=c',period=10,edge,config1";
	char *cursor = buf, *value, *term;

	term = perf_terms__next(&cursor, &value);
	ASSERT_STREQ(term, "name", "quoted term");
	ASSERT_STREQ(value, "a,b=c", "quotes kept the comma");
	term = perf_terms__next(&cursor, &value);
	ASSERT_STREQ(value, "10", "period value");
	term = perf_terms__next(&cursor, &value);
	ASSERT_STREQ(term, "edge", "bare");
	ASSERT_TRUE(value == NULL, "bare has no value");
	term = perf_terms__next(&cursor, &value);
	ASSERT_STREQ(term, "config1", "last");
	ASSERT_TRUE(perf_terms__next(&cursor, &value) == NULL, "end");

	ASSERT_OK(enc("r1a/config1,name=x,time,call-graph=no/u", NULL),
		  "raw with terms");
	ASSERT_EQ(attr.type, PERF_TYPE_RAW, "raw type");
	ASSERT_EQ(attr.config, 0x1a, "raw config");
	ASSERT_EQ(attr.config1, 1, "bare config1 is 1");
	ASSERT_STREQ(info.display, "x", "name=");
	ASSERT_EQ(enc("cycles/call-graph=dwarf/", NULL), -EOPNOTSUPP,
		  "call-graph=dwarf");
	ASSERT_TRUE(strstr(error.msg, "call-graph=dwarf") != NULL, error.msg);
	ASSERT_EQ(enc("cycles/umask=1/", NULL), -EINVAL, "format term");
	ASSERT_TRUE(strstr(error.msg, "'umask'") != NULL, error.msg);
	ASSERT_EQ(enc("cpu/event=0x3c/", NULL), -ENOENT, "a PMU's: not ours");
	ASSERT_EQ(enc("RETIRED_INSTRUCTIONS", NULL), -ENOENT, "libpfm's");
	ASSERT_EQ(enc("sched:sched_switch", NULL), -ENOENT, "tracepoint");
}

static void test_breakpoints(void)
{
	ASSERT_OK(enc("mem:0x1000/2:w:u", NULL), "w over 2");
	ASSERT_EQ(attr.type, PERF_TYPE_BREAKPOINT, "type");
	ASSERT_EQ(attr.bp_addr, 0x1000, "addr");
	ASSERT_EQ(attr.bp_len, 2, "len");
	ASSERT_EQ(attr.bp_type, HW_BREAKPOINT_W, "w");
	ASSERT_EQ(attr.exclude_kernel, 1, "u");
	ASSERT_STREQ(info.fstr, "mem:0x1000/2:w:u", "fstr");
	ASSERT_OK(enc("mem:0:x", NULL), "x");
	ASSERT_EQ(attr.bp_len, sizeof(long), "x spans a long");
	ASSERT_EQ(enc("mem:0/3", NULL), -EINVAL, "length 3");
	ASSERT_EQ(enc("mem:zz", NULL), -EINVAL, "bad address");
	ASSERT_TRUE(strstr(error.msg, "'zz'") != NULL, error.msg);
	ASSERT_EQ(enc("mem:0:wx", NULL), -EINVAL, "w and x");
	ASSERT_EQ(enc("mem:0:", NULL), -EINVAL, "empty access");
}

static const struct subtest tests[] = {
	{ "legacy", test_legacy },
	{ "modifiers", test_modifiers },
	{ "terms", test_terms },
	{ "breakpoints", test_breakpoints },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
