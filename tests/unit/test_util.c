// SPDX-License-Identifier: GPL-2.0
/* Number and CPU list parsing. */
#include <errno.h>
#include <limits.h>

#include "test.h"
#include "common/util.h"

static void test_parse_long_ok(void)
{
	long v;

	ASSERT_OK(parse_long("42", 0, 100, &v), "plain");
	ASSERT_EQ(v, 42, "plain value");
	ASSERT_OK(parse_long("0", 0, 100, &v), "zero");
	ASSERT_EQ(v, 0, "zero value");
	/* The bounds are inclusive. */
	ASSERT_OK(parse_long("1", 1, 3600000, &v), "min");
	ASSERT_EQ(v, 1, "min value");
	ASSERT_OK(parse_long("3600000", 1, 3600000, &v), "max");
	ASSERT_EQ(v, 3600000, "max value");
	ASSERT_OK(parse_long("-5", -10, 10, &v), "negative allowed");
	ASSERT_EQ(v, -5, "negative value");
	ASSERT_OK(parse_long("9223372036854775807", LONG_MIN, LONG_MAX, &v),
		  "LONG_MAX");
	ASSERT_EQ(v, LONG_MAX, "LONG_MAX value");
	ASSERT_OK(parse_long("-9223372036854775808", LONG_MIN, LONG_MAX, &v),
		  "LONG_MIN");
	ASSERT_EQ(v, LONG_MIN, "LONG_MIN value");
}

static void test_parse_long_invalid(void)
{
	long v = 7;

	ASSERT_EQ(parse_long("abc", 0, 100, &v), -EINVAL, "garbage");
	ASSERT_EQ(parse_long("12x", 0, 100, &v), -EINVAL, "trailing garbage");
	ASSERT_EQ(parse_long("12 ", 0, 100, &v), -EINVAL, "trailing space");
	ASSERT_EQ(parse_long("1.5", 0, 100, &v), -EINVAL, "fraction");
	ASSERT_EQ(parse_long("", 0, 100, &v), -EINVAL, "empty");
	ASSERT_EQ(parse_long(NULL, 0, 100, &v), -EINVAL, "null");
	ASSERT_EQ(parse_long("-", -10, 10, &v), -EINVAL, "lone minus");
	ASSERT_EQ(v, 7, "untouched on error");
}

static void test_parse_long_range(void)
{
	long v = 7;

	ASSERT_EQ(parse_long("101", 0, 100, &v), -ERANGE, "above max");
	ASSERT_EQ(parse_long("0", 1, 100, &v), -ERANGE, "below min");
	ASSERT_EQ(parse_long("-1", 0, 100, &v), -ERANGE, "negative refused");
	ASSERT_EQ(parse_long("9223372036854775808", LONG_MIN, LONG_MAX, &v),
		  -ERANGE, "overflow");
	ASSERT_EQ(parse_long("-9223372036854775809", LONG_MIN, LONG_MAX, &v),
		  -ERANGE, "underflow");
	ASSERT_EQ(parse_long("99999999999999999999999", 0, 100, &v), -ERANGE,
		  "huge");
	ASSERT_EQ(v, 7, "untouched on error");
}

static void test_parse_u64_ok(void)
{
	uint64_t v;

	ASSERT_OK(parse_u64("0x10", &v), "hex");
	ASSERT_EQ(v, 16, "hex value");
	ASSERT_OK(parse_u64("0XfF", &v), "hex upper");
	ASSERT_EQ(v, 255, "hex upper value");
	ASSERT_OK(parse_u64("10", &v), "decimal");
	ASSERT_EQ(v, 10, "decimal value");
	ASSERT_OK(parse_u64("0", &v), "zero");
	ASSERT_EQ(v, 0, "zero value");
	ASSERT_OK(parse_u64("18446744073709551615", &v), "max");
	ASSERT_EQ(v, UINT64_MAX, "max value");
	ASSERT_OK(parse_u64("0xffffffffffffffff", &v), "max hex");
	ASSERT_EQ(v, UINT64_MAX, "max hex value");
}

static void test_parse_u64_invalid(void)
{
	uint64_t v = 7;

	ASSERT_EQ(parse_u64("-1", &v), -EINVAL, "negative");
	ASSERT_EQ(parse_u64("+1", &v), -EINVAL, "plus");
	ASSERT_EQ(parse_u64("", &v), -EINVAL, "empty");
	ASSERT_EQ(parse_u64(NULL, &v), -EINVAL, "null");
	ASSERT_EQ(parse_u64("abc", &v), -EINVAL, "garbage");
	ASSERT_EQ(parse_u64("12x", &v), -EINVAL, "trailing garbage");
	ASSERT_EQ(parse_u64("0x", &v), -EINVAL, "bare 0x");
	ASSERT_EQ(parse_u64("0xg", &v), -EINVAL, "bad hex digit");
	ASSERT_EQ(v, 7, "untouched on error");
}

static void test_parse_u64_range(void)
{
	uint64_t v = 7;

	ASSERT_EQ(parse_u64("18446744073709551616", &v), -ERANGE, "max + 1");
	ASSERT_EQ(parse_u64("0x10000000000000000", &v), -ERANGE, "hex max + 1");
	ASSERT_EQ(parse_u64("99999999999999999999999", &v), -ERANGE, "huge");
	ASSERT_EQ(v, 7, "untouched on error");
}

#define NR 16

/* The set CPUs of map as a bit mask, for one-line comparisons. */
static unsigned mask_of(const bool *map)
{
	unsigned m = 0;

	for (int i = 0; i < NR; i++)
		m |= (unsigned)map[i] << i;
	return m;
}

static void test_cpulist_ok(void)
{
	bool cpus[NR];

	ASSERT_OK(cpulist_parse("0-3,8", cpus, NR), "range and single");
	ASSERT_EQ(mask_of(cpus), 0x10f, "0-3,8");
	ASSERT_OK(cpulist_parse("0", cpus, NR), "single");
	ASSERT_EQ(mask_of(cpus), 0x1, "0");
	ASSERT_OK(cpulist_parse("0-1\n", cpus, NR), "sysfs newline");
	ASSERT_EQ(mask_of(cpus), 0x3, "0-1\\n");
	ASSERT_OK(cpulist_parse("15", cpus, NR), "last cpu");
	ASSERT_EQ(mask_of(cpus), 0x8000, "15");
	ASSERT_OK(cpulist_parse("0-15", cpus, NR), "all");
	ASSERT_EQ(mask_of(cpus), 0xffff, "0-15");
	ASSERT_OK(cpulist_parse("2-2,4,6-7\n", cpus, NR), "mixed");
	ASSERT_EQ(mask_of(cpus), 0xd4, "2-2,4,6-7");
	ASSERT_OK(cpulist_parse("8,0-1", cpus, NR), "unordered");
	ASSERT_EQ(mask_of(cpus), 0x103, "8,0-1");
}

static void test_cpulist_clears(void)
{
	bool cpus[NR];

	for (int i = 0; i < NR; i++)
		cpus[i] = true;
	ASSERT_OK(cpulist_parse("3", cpus, NR), "parse");
	ASSERT_EQ(mask_of(cpus), 0x8, "old bits cleared");
}

static void test_cpulist_bad(void)
{
	bool cpus[NR];

	ASSERT_EQ(cpulist_parse("3-1", cpus, NR), -ERANGE, "reversed range");
	ASSERT_EQ(cpulist_parse("16", cpus, NR), -ERANGE, "past the end");
	ASSERT_EQ(cpulist_parse("0-16", cpus, NR), -ERANGE, "range past end");
	ASSERT_EQ(cpulist_parse("99999999999999999999", cpus, NR), -ERANGE,
		  "huge");
	ASSERT_EQ(cpulist_parse("-1", cpus, NR), -ERANGE, "negative");
	ASSERT_ERR(cpulist_parse("abc", cpus, NR), "garbage");
	ASSERT_ERR(cpulist_parse("1-", cpus, NR), "open range");
	ASSERT_ERR(cpulist_parse("1-x", cpus, NR), "bad range end");
	ASSERT_ERR(cpulist_parse("1,,2", cpus, NR), "empty item");
	ASSERT_ERR(cpulist_parse("1 2", cpus, NR), "space");
	ASSERT_ERR(cpulist_parse("1;2", cpus, NR), "bad separator");
}

/* Regressions: blanks, signs and octal used to slip through strto*. */
static void test_parse_strict(void)
{
	uint64_t u = 7;
	long v = 7;

	ASSERT_EQ(parse_u64(" -1", &u), -EINVAL, "blank then minus");
	ASSERT_EQ(parse_u64(" 5", &u), -EINVAL, "leading blank");
	ASSERT_EQ(parse_u64("0x", &u), -EINVAL, "bare 0x");
	ASSERT_EQ(parse_long(" 5", 0, 10, &v), -EINVAL, "long leading blank");
	ASSERT_OK(parse_u64("010", &u), "leading zero");
	ASSERT_EQ(u, 10, "leading zero is decimal");
}

static void test_edit_distance(void)
{
	ASSERT_EQ(edit_distance("RETIRED_INSTRUCTION", "RETIRED_INSTRUCTIONS"),
		  1, "one missing");
	ASSERT_EQ(edit_distance("cpu-clok", "CPU-CLOCK"), 1, "case ignored");
	ASSERT_EQ(edit_distance("", "abc"), 3, "from empty");
	ASSERT_EQ(edit_distance("kitten", "sitting"), 3, "classic");
	ASSERT_EQ(edit_distance("same", "same"), 0, "equal");
}

/* Mount options and probe lists: whole words only. */
static void test_comma_list_has(void)
{
	ASSERT_TRUE(comma_list_has("rw,memory", "memory"), "last");
	ASSERT_TRUE(comma_list_has("memory,rw", "memory"), "first");
	ASSERT_TRUE(comma_list_has("memory", "memory"), "alone");
	ASSERT_TRUE(comma_list_has("batch,no_prealloc", "no_prealloc"),
		    "after a comma");
	ASSERT_TRUE(!comma_list_has("rw,memory_recursiveprot", "memory"),
		    "a longer word");
	ASSERT_TRUE(!comma_list_has("nomemory", "memory"), "a suffix");
	ASSERT_TRUE(!comma_list_has("", "memory"), "empty");
	ASSERT_TRUE(!comma_list_has(NULL, "memory"), "no list");
}

static const struct subtest tests[] = {
	{ "edit_distance", test_edit_distance },
	{ "comma_list_has", test_comma_list_has },
	{ "parse_strict", test_parse_strict },
	{ "parse_long_ok", test_parse_long_ok },
	{ "parse_long_invalid", test_parse_long_invalid },
	{ "parse_long_range", test_parse_long_range },
	{ "parse_u64_ok", test_parse_u64_ok },
	{ "parse_u64_invalid", test_parse_u64_invalid },
	{ "parse_u64_range", test_parse_u64_range },
	{ "cpulist_ok", test_cpulist_ok },
	{ "cpulist_clears", test_cpulist_clears },
	{ "cpulist_bad", test_cpulist_bad },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
