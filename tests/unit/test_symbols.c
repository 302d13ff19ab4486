// SPDX-License-Identifier: GPL-2.0
/*
 * ELF symbol look-ups, checked against ground truth: the addresses of this
 * binary's own functions and of libc's, mapped to file offsets through
 * /proc/self/maps the way stat --profile maps a PC.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "symbols/symbols.h"

int symbols_test_global(int n); /* global: its .symtab entry is the test */

__attribute__((noinline)) int symbols_test_global(int n)
{
	volatile int x = 0;

	for (int i = 0; i < n; i++)
		x += i * 3;
	return x;
}

__attribute__((noinline)) static int symbols_test_static(int n)
{
	volatile int x = 1;

	for (int i = 0; i < n; i++)
		x ^= x << 1;
	return x;
}

/* No .size: it runs to the next symbol, symbols_test_after. */
__asm__(".pushsection .text\n"
	".globl symbols_test_nosize\n"
	".type symbols_test_nosize, @function\n"
	"symbols_test_nosize:\n"
	".fill 16, 1, 0x90\n"
	"ret\n"
	".globl symbols_test_after\n"
	".type symbols_test_after, @function\n"
	"symbols_test_after:\n"
	"ret\n"
	".size symbols_test_after, 1\n"
	".popsection\n");
/* No .size, and last in a section of its own: it ends with the section. */
__asm__(".pushsection .bpmc_tail, \"ax\", @progbits\n"
	".globl symbols_test_tail\n"
	".type symbols_test_tail, @function\n"
	"symbols_test_tail:\n"
	".fill 8, 1, 0x90\n"
	".popsection\n");
void symbols_test_nosize(void);
void symbols_test_after(void);
void symbols_test_tail(void);

/* The object mapped at addr and addr's offset in it, as maps says. */
static bool map_of(const void *addr, char *path, size_t len, uint64_t *off)
{
	uintptr_t a = (uintptr_t)addr;
	unsigned long start, end, pgoff;
	char line[4096], *p;
	bool found = false;
	FILE *f;
	int n;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*u %n", &start, &end,
			   &pgoff, &n) != 3 ||
		    a < start || a >= end)
			continue;
		p = line + n;
		p[strcspn(p, "\n")] = '\0';
		snprintf(path, len, "%s", p);
		*off = a - start + pgoff;
		found = true;
	}
	fclose(f);
	return found;
}

/* Resolves addr through its mapping; the name, or NULL. */
static const char *resolve(struct symbols *s, const void *addr,
			   uint64_t *sym_off)
{
	static char name[256];
	struct error err = { "" };
	char path[4096];
	uint64_t off;

	if (!ASSERT_TRUE(map_of(addr, path, sizeof(path), &off), "map"))
		return NULL;
	if (!ASSERT_OK(symbols__resolve(s, path, off, name, sizeof(name),
					sym_off, &err),
		       err.msg))
		return NULL;
	return name;
}

static void test_own_functions(void)
{
	uint64_t off, sym_off = 99;
	char name[64], path[4096];
	struct error err = { "" };
	struct symbols *s;
	int ret;

	if (!ASSERT_OK(symbols__new(&s, &err), "new"))
		return;
	ASSERT_STREQ(resolve(s, (void *)symbols_test_global, &sym_off),
		     "symbols_test_global", "global");
	ASSERT_EQ(sym_off, 0, "global at its start");
	/* Static: in .symtab only. */
	ASSERT_STREQ(resolve(s, (void *)symbols_test_static, &sym_off),
		     "symbols_test_static", "static");
	ASSERT_EQ(sym_off, 0, "static at its start");
	ASSERT_STREQ(resolve(s, (char *)symbols_test_global + 5, &sym_off),
		     "symbols_test_global", "middle");
	ASSERT_EQ(sym_off, 5, "middle offset");
	ASSERT_STREQ(resolve(s, (char *)symbols_test_nosize + 9, &sym_off),
		     "symbols_test_nosize", "size 0");
	ASSERT_EQ(sym_off, 9, "size 0 offset");
	ASSERT_STREQ(resolve(s, (void *)symbols_test_after, &sym_off),
		     "symbols_test_after", "size 0 ends at the next one");
	ASSERT_EQ(sym_off, 0, "next one's offset");
	ASSERT_STREQ(resolve(s, (char *)symbols_test_tail + 7, &sym_off),
		     "symbols_test_tail", "size 0, last byte of its section");
	ASSERT_EQ(sym_off, 7, "last byte's offset");
	ASSERT_TRUE(map_of((char *)symbols_test_tail + 8, path, sizeof(path),
			   &off),
		    "map past the section");
	ret = symbols__resolve(s, path, off, name, sizeof(name), &sym_off,
			       &err);
	ASSERT_TRUE(ret == -ENOENT ||
			    (!ret && strcmp(name, "symbols_test_tail")),
		    "size 0 ends with its section");
	/* Again, from the cache. */
	ASSERT_STREQ(resolve(s, (void *)symbols_test_static, &sym_off),
		     "symbols_test_static", "cached");
	symbols__free(s);
}

static void test_libc(void)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD), *addr;
	struct error err = { "" };
	struct symbols *s;
	uint64_t sym_off = 99;
	const char *name;
	Dl_info di;

	if (!ASSERT_TRUE(libc, "libc loaded") ||
	    !ASSERT_OK(symbols__new(&s, &err), "new"))
		return;
	/* libc's own: dlsym(RTLD_DEFAULT) would find ASan's interceptors. */
	addr = dlsym(libc, "getpid");
	ASSERT_TRUE(addr && dladdr(addr, &di) && di.dli_saddr == addr,
		    "getpid is a symbol's value");
	name = resolve(s, addr, &sym_off);
	/* Any alias will do, so long as libc exports it at that address. */
	if (ASSERT_TRUE(name, "resolved"))
		ASSERT_TRUE(dlsym(libc, name) == addr, "an alias of getpid");
	ASSERT_EQ(sym_off, 0, "getpid at its start");
	addr = dlsym(libc, "qsort");
	name = resolve(s, (char *)addr + 1, &sym_off);
	if (ASSERT_TRUE(name, "qsort resolved"))
		ASSERT_TRUE(dlsym(libc, name) == addr, "an alias of qsort");
	ASSERT_EQ(sym_off, 1, "qsort + 1");
	symbols__free(s);
	dlclose(libc);
}

static void test_no_function(void)
{
	struct error err = { "" };
	char name[64], path[4096];
	struct symbols *s;
	uint64_t off, sym_off;

	if (!ASSERT_OK(symbols__new(&s, &err), "new") ||
	    !ASSERT_TRUE(map_of((void *)symbols_test_global, path, sizeof(path),
				&off),
			 "map"))
		return;
	/* The ELF header: loaded, but in no function. */
	ASSERT_EQ(symbols__resolve(s, path, 0, name, sizeof(name), &sym_off,
				   &err),
		  -ENOENT, "header");
	ASSERT_TRUE(strstr(err.msg, "no function of '") &&
			    strstr(err.msg, path),
		    "the message names the file");
	ASSERT_EQ(symbols__resolve(s, path, UINT64_MAX / 2, name, sizeof(name),
				   &sym_off, &err),
		  -ENOENT, "past the end");
	ASSERT_TRUE(strstr(err.msg, "0x7fffffffffffffff of '") &&
			    strstr(err.msg, "is in no loaded segment"),
		    "the message names the offset");
	/* A short buffer gets the name cut, still terminated. */
	ASSERT_OK(symbols__resolve(s, path, off, name, 4, &sym_off, &err),
		  "short");
	ASSERT_STREQ(name, "sym", "short name");
	symbols__free(s);
}

/* Writes len bytes of buf to path through a rename, as an upgrade does. */
static bool replace(const char *path, const void *buf, size_t len)
{
	char tmp[4096];
	FILE *f;
	bool ok;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	f = fopen(tmp, "w");
	if (!f)
		return false;
	ok = fwrite(buf, 1, len, f) == len;
	ok &= !fclose(f) && !rename(tmp, path);
	return ok;
}

static void test_bad_files(void)
{
	char dir[] = "/tmp/bpmc-symbols.XXXXXX", path[4096], exe[4096];
	struct error err = { "" };
	static char elf[16 << 20];
	uint64_t off, sym_off;
	struct symbols *s;
	size_t elf_len;
	char name[64];
	FILE *f;

	if (!ASSERT_TRUE(mkdtemp(dir), "mkdtemp") ||
	    !ASSERT_OK(symbols__new(&s, &err), "new") ||
	    !ASSERT_TRUE(map_of((void *)symbols_test_global, exe, sizeof(exe),
				&off),
			 "map"))
		return;
	snprintf(path, sizeof(path), "%s/missing", dir);
	ASSERT_EQ(symbols__resolve(s, path, 0, name, sizeof(name), &sym_off,
				   &err),
		  -ENOENT, "missing");
	ASSERT_TRUE(strstr(err.msg, path), "missing names the path");
	ASSERT_ERR(symbols__resolve(s, dir, 0, name, sizeof(name), &sym_off,
				    &err),
		   "a directory");
	ASSERT_TRUE(strstr(err.msg, dir), "a directory names the path");

	snprintf(path, sizeof(path), "%s/obj", dir);
	ASSERT_TRUE(replace(path, "not ELF\n", 8), "write text");
	err.msg[0] = '\0';
	ASSERT_EQ(symbols__resolve(s, path, 0, name, sizeof(name), &sym_off,
				   &err),
		  -ENOEXEC, "text");
	ASSERT_TRUE(strstr(err.msg, path), "text names the path");
	ASSERT_TRUE(replace(path, "", 0), "write empty");
	ASSERT_EQ(symbols__resolve(s, path, 0, name, sizeof(name), &sym_off,
				   &err),
		  -ENOEXEC, "empty");

	/* A copy of this binary at path, then text over it, then it again. */
	f = fopen(exe, "r");
	elf_len = f ? fread(elf, 1, sizeof(elf), f) : 0;
	if (f)
		fclose(f);
	ASSERT_TRUE(elf_len > 0 && elf_len < sizeof(elf), "read binary");
	ASSERT_TRUE(replace(path, elf, elf_len), "write binary");
	ASSERT_OK(symbols__resolve(s, path, off, name, sizeof(name), &sym_off,
				   &err),
		  err.msg);
	ASSERT_STREQ(name, "symbols_test_global", "copy");
	ASSERT_TRUE(replace(path, "not ELF\n", 8), "replace with text");
	ASSERT_EQ(symbols__resolve(s, path, off, name, sizeof(name), &sym_off,
				   &err),
		  -ENOEXEC, "replaced with text");
	ASSERT_TRUE(replace(path, elf, elf_len), "replace with binary");
	name[0] = '\0';
	ASSERT_OK(symbols__resolve(s, path, off, name, sizeof(name), &sym_off,
				   &err),
		  err.msg);
	ASSERT_STREQ(name, "symbols_test_global", "replaced with binary");

	symbols__free(s);
	unlink(path);
	rmdir(dir);
}

static const struct subtest tests[] = {
	{ "own_functions", test_own_functions },
	{ "libc", test_libc },
	{ "no_function", test_no_function },
	{ "bad_files", test_bad_files },
	{ 0 },
};

int main(int argc, char **argv)
{
	/* Keep the callees live: their addresses are what is looked up. */
	volatile int n = 3;

	if (symbols_test_global(n) < 0 || symbols_test_static(n) < 0)
		return 2;
	return test_main(argc, argv, tests);
}
