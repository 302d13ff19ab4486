// SPDX-License-Identifier: GPL-2.0
/* Bounds-checked appends: what fits, what does not, and nothing past. */
#include <stdint.h>

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
	{ "fits", test_fits },
	{ "boundary", test_boundary },
	{ "numbers", test_numbers },
	{ "prefix", test_prefix },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
