// SPDX-License-Identifier: GPL-2.0
/* Bounds-checked appends: what fits, what does not, and nothing past. */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/strbuf.h"
#include "test.h"

static void test_fits(void)
{
	char buf[16];
	struct strbuf b;

	strbuf__init(&b, buf, sizeof(buf), 0);
	strbuf__puts(&b, "ab");
	strbuf__putc(&b, ',');
	strbuf__put_u64(&b, 0);
	strbuf__putc(&b, ',');
	strbuf__put_u64(&b, 1234567);
	ASSERT_STREQ(buf, "ab,0,1234567", "content");
	ASSERT_EQ(b.len, 12, "len");
	ASSERT_TRUE(!b.truncated, "not truncated");
}

/* cap bytes hold cap - 1 characters and the NUL; one more is refused
 * whole, and the bytes after the buffer are never touched. */
static void test_boundary(void)
{
	char mem[12];
	struct strbuf b;

	memset(mem, '#', sizeof(mem));
	strbuf__init(&b, mem, 8, 0);
	strbuf__puts(&b, "1234567");
	ASSERT_TRUE(!b.truncated, "exact fit");
	ASSERT_STREQ(mem, "1234567", "exact content");
	strbuf__putc(&b, 'x');
	ASSERT_TRUE(b.truncated, "one more refused");
	ASSERT_STREQ(mem, "1234567", "kept what fitted");
	ASSERT_EQ(mem[8], '#', "nothing past the buffer");

	memset(mem, '#', sizeof(mem));
	strbuf__init(&b, mem, 8, 0);
	strbuf__puts(&b, "12345");
	strbuf__puts(&b, "678"); /* would need 9 bytes: none of it goes */
	ASSERT_TRUE(b.truncated, "too long refused");
	ASSERT_STREQ(mem, "12345", "no partial append");
	strbuf__puts(&b, "6"); /* would fit, but the row is already cut */
	ASSERT_STREQ(mem, "12345", "truncation is sticky");
	ASSERT_EQ(mem[8], '#', "nothing past, twice");
}

static void test_numbers(void)
{
	char buf[32];
	struct strbuf b;

	strbuf__init(&b, buf, sizeof(buf), 0);
	strbuf__put_u64(&b, UINT64_MAX);
	ASSERT_STREQ(buf, "18446744073709551615", "u64 max");
	strbuf__init(&b, buf, 20, 0); /* 20 digits need 21 bytes */
	strbuf__put_u64(&b, UINT64_MAX);
	ASSERT_TRUE(b.truncated && !buf[0], "u64 max refused whole");

	static const struct {
		double v;
		const char *want;
	} tenths[] = {
		{ 0, "0.0" },	    { -5, "0.0" },    { 99.94, "99.9" },
		{ 99.95, "100.0" }, { 100, "100.0" }, { 33.333, "33.3" },
	};
	for (size_t i = 0; i < sizeof(tenths) / sizeof(tenths[0]); i++) {
		strbuf__init(&b, buf, sizeof(buf), 0);
		strbuf__put_tenths(&b, tenths[i].v);
		ASSERT_STREQ(buf, tenths[i].want, "tenths");
	}
}

/* v through strbuf__put_u64 and back, against printf's digits. */
static bool u64_round_trip(uint64_t v)
{
	char buf[32], want[32], mem[24];
	struct strbuf b;
	size_t n;

	snprintf(want, sizeof(want), "%" PRIu64, v);
	n = strlen(want);
	strbuf__init(&b, buf, sizeof(buf), 0);
	strbuf__putc(&b, ',');
	strbuf__put_u64(&b, v);
	if (!ASSERT_STREQ(buf + 1, want, "digits") ||
	    !ASSERT_EQ(b.len, n + 1, "length") ||
	    !ASSERT_EQ(strtoull(buf + 1, NULL, 10), v, "read back"))
		return false;
	/* n digits and the NUL fit n + 1 bytes exactly, not n. */
	memset(mem, '#', sizeof(mem));
	strbuf__init(&b, mem, n + 1, 0);
	strbuf__put_u64(&b, v);
	if (!ASSERT_TRUE(!b.truncated && !strcmp(mem, want), "exact fit"))
		return false;
	memset(mem, '#', sizeof(mem));
	strbuf__init(&b, mem, n, 0);
	strbuf__put_u64(&b, v);
	return ASSERT_TRUE(b.truncated && !mem[0], "one short refused") &&
	       ASSERT_EQ(mem[n], '#', "nothing past");
}

/*
 * Every length of number: the edges of each count of digits (10^k - 1,
 * 10^k, 10^k + 1), of each count of bits (2^k - 1, 2^k), 0, 9, 10 and
 * UINT64_MAX, whose 20 digits are the most.
 */
static void test_u64_edges(void)
{
	static const uint64_t fixed[] = {
		0, 1, 9, 10, 11, 99, 100, 101, UINT64_MAX, UINT64_MAX - 1
	};
	uint64_t p = 1;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (!u64_round_trip(fixed[i]))
			return;
	for (int k = 1; k <= 19; k++) {
		p *= 10;
		if (!u64_round_trip(p - 1) || !u64_round_trip(p) ||
		    !u64_round_trip(p + 1))
			return;
	}
	for (int k = 1; k < 64; k++)
		if (!u64_round_trip((1ull << k) - 1) ||
		    !u64_round_trip(1ull << k))
			return;
}

/* A prefix already in the buffer is kept; one as long as the buffer
 * cannot be, and marks it truncated. */
static void test_prefix(void)
{
	char buf[8] = "abc";
	struct strbuf b;

	strbuf__init(&b, buf, sizeof(buf), 3);
	strbuf__puts(&b, "de");
	ASSERT_STREQ(buf, "abcde", "after prefix");
	strbuf__init(&b, buf, sizeof(buf), 8);
	ASSERT_TRUE(b.truncated, "prefix too long");
	strbuf__init(&b, buf, 0, 0);
	strbuf__putc(&b, 'x');
	ASSERT_TRUE(b.truncated, "empty buffer");
}

static const struct subtest tests[] = {
	{ "fits", test_fits },	     { "boundary", test_boundary },
	{ "numbers", test_numbers }, { "u64_edges", test_u64_edges },
	{ "prefix", test_prefix },   { 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
