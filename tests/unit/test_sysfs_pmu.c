// SPDX-License-Identifier: GPL-2.0
/*
 * The sysfs PMU/terms/[ukh] syntax: against a fake devices directory made
 * under mkdtemp, then against this machine's own msr PMU.
 */
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "names/sysfs_pmu.h"
#include "test.h"
#include "common/util.h"

static char root[64];

struct fake_file {
	const char *path;
	const char *text; /* NULL: a directory */
};

/*
 * "cpu" is shaped like Intel's core PMU; "aaa_uncore" sorts first and
 * carries the odd cases: a format term shadowing an alias of the same
 * name, a config2 field, a broken alias, an unsupported register.
 */
static const struct fake_file fake[] = {
	{ "cpu", NULL },
	{ "cpu/type", "4\n" },
	{ "cpu/format", NULL },
	{ "cpu/format/event", "config:0-7,32-35\n" },
	{ "cpu/format/umask", "config:8-15\n" },
	{ "cpu/format/edge", "config:18\n" },
	{ "cpu/format/inv", "config:23\n" },
	{ "cpu/format/cmask", "config:24-31\n" },
	{ "cpu/format/ldlat", "config1:0-15\n" },
	{ "cpu/events", NULL },
	{ "cpu/events/cycles", "event=0x76\n" },
	{ "cpu/events/l1d", "event=0x51,umask=0x01\n" },
	{ "cpu/events/l1d.scale", "1\n" },
	{ "aaa_uncore", NULL },
	{ "aaa_uncore/type", "12\n" },
	{ "aaa_uncore/cpumask", "0,4\n" },
	{ "aaa_uncore/format", NULL },
	{ "aaa_uncore/format/event", "config:0-7\n" },
	{ "aaa_uncore/format/mask", "config2:56-63\n" },
	{ "aaa_uncore/format/wide", "config3:0-7\n" },
	{ "aaa_uncore/format/junk", "config:7-3\n" },
	{ "aaa_uncore/events", NULL },
	{ "aaa_uncore/events/zeta", "event=0x2,mask=0x80\n" },
	{ "aaa_uncore/events/alpha", "event=0x1\n" },
	{ "aaa_uncore/events/alpha.unit", "MiB\n" },
	{ "aaa_uncore/events/beta.per-pkg", "1\n" },
	{ "aaa_uncore/events/gamma.snapshot", "1\n" },
	{ "aaa_uncore/events/mask", "event=0xee\n" },
	{ "aaa_uncore/events/bad", "event=zz\n" },
	{ "aaa_uncore/events/.hidden", "event=0x3\n" },
	/* No events/: listed as nothing, still encodes. */
	{ "noevents", NULL },
	{ "noevents/type", "20\n" },
	{ "noevents/cpumask", "\n" },
	/* No type: not a PMU. */
	{ "notype", NULL },
	{ "notype/events", NULL },
	{ "notype/events/x", "event=0x1\n" },
	{ ".hidden", NULL },
	{ ".hidden/type", "30\n" },
	{ ".hidden/events", NULL },
	{ ".hidden/events/x", "event=0x1\n" },
};

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path);
}

static void fake_cleanup(void)
{
	if (root[0])
		nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	root[0] = '\0';
}

/* Builds the fake devices directory once; NULL (and a FAIL) on error. */
static const char *fake_root(void)
{
	char path[256];
	FILE *f;

	if (root[0])
		return root;
	snprintf(root, sizeof(root), "/tmp/bpmc-sysfs-pmu-XXXXXX");
	if (!mkdtemp(root)) {
		TEST__FAIL("fake_root", "mkdtemp: %s", strerror(errno));
		root[0] = '\0';
		return NULL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(fake); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, fake[i].path);
		if (!fake[i].text) {
			if (mkdir(path, 0755))
				goto fail;
			continue;
		}
		f = fopen(path, "w");
		if (!f)
			goto fail;
		fputs(fake[i].text, f);
		fclose(f);
	}
	return root;
fail:
	TEST__FAIL("fake_root", "%s: %s", path, strerror(errno));
	fake_cleanup();
	return NULL;
}

static struct perf_event_attr attr;
static char fstr[256];
static struct error error;
static const char *err = error.msg;

/* Encodes name against the fake root. */
static int enc(const char *name)
{
	const char *r = fake_root();

	memset(&attr, 0, sizeof(attr));
	fstr[0] = error.msg[0] = '\0';
	if (!r)
		return -EIO;
	return sysfs_pmu__encode(r, name, &attr, fstr, sizeof(fstr), &error);
}

static void test_split_field(void)
{
	if (!ASSERT_OK(enc("cpu/event=0x1a3/"), "split"))
		printf("  err: %s\n", err);
	/* bits 0-7 take 0xa3, bits 32-35 take the 0x1 above them */
	ASSERT_EQ(attr.config, 0x1000000a3ull, "split config");
	ASSERT_EQ(attr.type, 4, "type from cpu/type");
	ASSERT_EQ(attr.size, sizeof(attr), "size");
	ASSERT_EQ(attr.config1, 0, "config1 untouched");
	ASSERT_EQ(attr.config2, 0, "config2 untouched");
	ASSERT_STREQ(fstr, "cpu/config=0x1000000a3/", "split fstr");

	ASSERT_OK(enc("cpu/event=0xfff/"), "split full");
	ASSERT_EQ(attr.config, 0xf000000ffull, "all 12 bits");
	ASSERT_OK(enc("cpu/event=0x100/"), "high part only");
	ASSERT_EQ(attr.config, 0x100000000ull, "bit 8 of the value to 32");
	ASSERT_OK(enc("cpu/event=0x800/"), "top bit");
	ASSERT_EQ(attr.config, 0x800000000ull, "bit 11 of the value to 35");

	ASSERT_OK(enc("cpu/event=0x1a3,umask=0x45,cmask=0x7f/"), "three");
	ASSERT_EQ(attr.config, 0x17f0045a3ull, "event, umask, cmask");
	ASSERT_STREQ(fstr, "cpu/config=0x17f0045a3/", "three fstr");
	ASSERT_OK(enc("cpu/umask=255,event=10/"), "decimal, any order");
	ASSERT_EQ(attr.config, 0xff0aull, "decimal values");
	ASSERT_OK(enc("cpu/event=0x11,event=0x22/"), "twice");
	ASSERT_EQ(attr.config, 0x22ull, "the later term wins");
	ASSERT_OK(enc("cpu/event=0x0/"), "zero");
	ASSERT_EQ(attr.config, 0, "zero config");
	ASSERT_STREQ(fstr, "cpu/config=0x0/", "zero fstr");
	ASSERT_OK(enc("cpu//"), "no terms, as perf allows");
	ASSERT_EQ(attr.config, 0, "no terms config");
	ASSERT_STREQ(fstr, "cpu/config=0x0/", "no terms fstr");
}

static void test_flags(void)
{
	ASSERT_OK(enc("cpu/event=0x3c,edge,inv/"), "bare flags");
	ASSERT_EQ(attr.config, 0x84003cull, "bits 18 and 23");
	ASSERT_OK(enc("cpu/edge=1/"), "edge=1");
	ASSERT_EQ(attr.config, 1ull << 18, "edge=1 bit");
	ASSERT_OK(enc("cpu/edge=0/"), "edge=0");
	ASSERT_EQ(attr.config, 0, "edge=0 clears");
	ASSERT_OK(enc("cpu/inv,inv=0/"), "flag set then cleared");
	ASSERT_EQ(attr.config, 0, "inv=0 wins");
	ASSERT_OK(enc("cpu/cmask=0xff,edge,inv,umask=0xff,event=0xfff/"),
		  "everything");
	ASSERT_EQ(attr.config, 0xff84ffffull | 0xf00000000ull, "all bits");
}

static void test_config1(void)
{
	ASSERT_OK(enc("cpu/event=0xcd,umask=0x1,ldlat=3/"), "ldlat");
	ASSERT_EQ(attr.config, 0x1cdull, "ldlat config");
	ASSERT_EQ(attr.config1, 3, "ldlat in config1");
	ASSERT_EQ(attr.config2, 0, "ldlat config2");
	ASSERT_STREQ(fstr, "cpu/config=0x1cd,config1=0x3/", "ldlat fstr");
	ASSERT_OK(enc("cpu/ldlat=0xffff/"), "ldlat max");
	ASSERT_EQ(attr.config1, 0xffff, "ldlat max value");
	ASSERT_STREQ(fstr, "cpu/config=0x0,config1=0xffff/", "ldlat max fstr");
	ASSERT_OK(enc("cpu/ldlat=0/"), "ldlat zero");
	ASSERT_STREQ(fstr, "cpu/config=0x0/", "zero config1 left out");

	ASSERT_OK(enc("aaa_uncore/event=0x5,mask=0xa5/"), "config2 field");
	ASSERT_EQ(attr.type, 12, "uncore type");
	ASSERT_EQ(attr.config, 0x5, "uncore config");
	ASSERT_EQ(attr.config1, 0, "uncore config1");
	ASSERT_EQ(attr.config2, 0xa500000000000000ull, "bits 56-63");
	ASSERT_STREQ(fstr, "aaa_uncore/config=0x5,config2=0xa500000000000000/",
		     "config2 fstr");
}

static void test_raw_config(void)
{
	ASSERT_OK(enc("cpu/config=0x1234/"), "raw");
	ASSERT_EQ(attr.config, 0x1234ull, "raw config");
	ASSERT_STREQ(fstr, "cpu/config=0x1234/", "raw fstr");
	ASSERT_OK(enc("cpu/config=0xABCDEF,config1=5,"
		      "config2=0xffffffffffffffff/"),
		  "all three");
	ASSERT_EQ(attr.config, 0xabcdefull, "config");
	ASSERT_EQ(attr.config1, 5, "config1");
	ASSERT_EQ(attr.config2, UINT64_MAX, "config2");
	ASSERT_STREQ(fstr,
		     "cpu/config=0xabcdef,config1=0x5,"
		     "config2=0xffffffffffffffff/",
		     "lower-case hex fstr");
	/* As perf: the registers first, then format terms over them. */
	ASSERT_OK(enc("cpu/config=0xff00,event=0x11/"), "config then event");
	ASSERT_EQ(attr.config, 0xff11ull, "event over config");
	ASSERT_OK(enc("cpu/event=0x11,config=0xff00/"), "event then config");
	ASSERT_EQ(attr.config, 0xff11ull, "event still over config");
	ASSERT_OK(enc("cpu/config=0xffffffffffffffff,event=0/"),
		  "field cleared");
	ASSERT_EQ(attr.config, 0xfffffff0ffffff00ull, "event bits cleared");
	ASSERT_OK(enc("cpu/config1=0xff0000,ldlat=0x12/"), "config1 merge");
	ASSERT_EQ(attr.config1, 0xff0012ull, "ldlat over config1");
}

static void test_alias(void)
{
	ASSERT_OK(enc("cpu/cycles/"), "alias");
	ASSERT_EQ(attr.config, 0x76ull, "cycles");
	ASSERT_EQ(attr.type, 4, "cycles type");
	ASSERT_STREQ(fstr, "cpu/config=0x76/", "cycles fstr");
	ASSERT_OK(enc("cpu/l1d/"), "two-term alias");
	ASSERT_EQ(attr.config, 0x151ull, "l1d");
	ASSERT_OK(enc("cpu/l1d,cmask=2,edge/"), "alias and terms");
	ASSERT_EQ(attr.config, 0x2040151ull, "l1d with cmask, edge");
	ASSERT_OK(enc("cpu/l1d,umask=0x2/"), "term after alias");
	ASSERT_EQ(attr.config, 0x251ull, "umask overrides the alias");
	ASSERT_OK(enc("cpu/umask=0x2,l1d/"), "term before alias");
	ASSERT_EQ(attr.config, 0x151ull, "the alias overrides umask");
	ASSERT_OK(enc("aaa_uncore/zeta/"), "alias with config2");
	ASSERT_EQ(attr.config, 0x2, "zeta config");
	ASSERT_EQ(attr.config2, 0x8000000000000000ull, "zeta config2");
	/* A format term wins over an alias of the same name, as in perf. */
	ASSERT_OK(enc("aaa_uncore/mask/"), "format before alias");
	ASSERT_EQ(attr.config, 0, "not the alias");
	ASSERT_EQ(attr.config2, 1ull << 56, "mask=1");
	/* Companion files are not aliases. */
	ASSERT_EQ(enc("cpu/l1d.scale/"), -ENOENT, "companion");
	ASSERT_EQ(enc("aaa_uncore/alpha.unit/"), -ENOENT, "unit");
	/* A broken alias says so. */
	ASSERT_EQ(enc("aaa_uncore/bad/"), -EINVAL, "broken alias");
	ASSERT_TRUE(strstr(err, "in alias 'bad'") != NULL, "names the alias");
}

static void check_mods(const char *name, bool xu, bool xk, bool xh,
		       const char *want)
{
	if (!ASSERT_OK(enc(name), name))
		return;
	ASSERT_EQ(attr.exclude_user, xu, name);
	ASSERT_EQ(attr.exclude_kernel, xk, name);
	ASSERT_EQ(attr.exclude_hv, xh, name);
	ASSERT_EQ(attr.exclude_idle, 0, name);
	ASSERT_STREQ(fstr, want, name);
}

static void test_modifiers(void)
{
	check_mods("cpu/cycles/", 0, 0, 0, "cpu/config=0x76/");
	check_mods("cpu/cycles/u", 0, 1, 1, "cpu/config=0x76/u");
	check_mods("cpu/cycles/k", 1, 0, 1, "cpu/config=0x76/k");
	check_mods("cpu/cycles/uk", 0, 0, 1, "cpu/config=0x76/uk");
	check_mods("cpu/cycles/ku", 0, 0, 1, "cpu/config=0x76/uk");
	check_mods("cpu/cycles/h", 1, 1, 0, "cpu/config=0x76/h");
	check_mods("cpu/cycles/hu", 0, 1, 0, "cpu/config=0x76/uh");
	check_mods("cpu/cycles/ukh", 0, 0, 0, "cpu/config=0x76/ukh");
	/* perf takes a letter twice (a group's on a member's own). */
	check_mods("cpu/cycles/uu", 0, 1, 1, "cpu/config=0x76/u");
	check_mods("cpu/event=0x1a3/k", 1, 0, 1, "cpu/config=0x1000000a3/k");
}

static void test_period_freq(void)
{
	ASSERT_OK(enc("cpu/cycles,period=100000/u"), "period");
	ASSERT_EQ(attr.sample_period, 100000, "sample_period");
	ASSERT_EQ(attr.freq, 0, "not freq");
	ASSERT_EQ(attr.config, 0x76ull, "period config");
	ASSERT_STREQ(fstr, "cpu/config=0x76,period=100000/u", "period fstr");
	ASSERT_OK(enc("cpu/period=0x10,event=1/"), "hex period first");
	ASSERT_EQ(attr.sample_period, 16, "hex period");
	ASSERT_STREQ(fstr, "cpu/config=0x1,period=16/", "hex period fstr");
	ASSERT_OK(enc("cpu/cycles,freq=4000/"), "freq");
	ASSERT_EQ(attr.freq, 1, "freq flag");
	ASSERT_EQ(attr.sample_freq, 4000, "sample_freq");
	ASSERT_STREQ(fstr, "cpu/config=0x76,freq=4000/", "freq fstr");
	ASSERT_OK(enc("cpu/ldlat=3,period=7/k"), "period and config1");
	ASSERT_STREQ(fstr, "cpu/config=0x0,config1=0x3,period=7/k",
		     "period after config1");
	ASSERT_EQ(enc("cpu/cycles,period=1,freq=1/"), -EINVAL,
		  "period and freq");
	ASSERT_EQ(enc("cpu/cycles,period=0/"), -ERANGE, "period=0");
	ASSERT_EQ(enc("cpu/cycles,freq=0/"), -ERANGE, "freq=0");
	ASSERT_EQ(enc("cpu/cycles,period/"), -EINVAL, "bare period");
	/* perf's bare term is 1, config's too. */
	ASSERT_OK(enc("cpu/config/"), "bare config");
	ASSERT_EQ(attr.config, 1, "bare config is 1");
}

/* Encodes name, expecting ret, an untouched attr, and err naming name. */
static void check_err(const char *name, int ret, const char *has)
{
	char quoted[128];

	enc("cpu/cycles/");
	memset(fstr, 'x', 8);
	fstr[8] = '\0';
	attr.config = 0x5a5a;
	ASSERT_EQ(sysfs_pmu__encode(root, name, &attr, fstr, sizeof(fstr),
				    &error),
		  ret, name);
	ASSERT_EQ(attr.config, 0x5a5aull, name);
	ASSERT_STREQ(fstr, "xxxxxxxx", name);
	snprintf(quoted, sizeof(quoted), "'%s'", name);
	if (!ASSERT_TRUE(strstr(err, quoted) != NULL, name) ||
	    !ASSERT_TRUE(!has || strstr(err, has), name) ||
	    !ASSERT_TRUE(err[0] >= 'a' && err[0] <= 'z', name))
		printf("  err for %s: %s\n", name, err);
}

static void test_err_unknown(void)
{
	char want[256];

	if (!fake_root())
		return;
	check_err("nope/event=1/", -ENOENT, "no PMU 'nope' in ");
	snprintf(want, sizeof(want),
		 "unknown event 'nope/event=1/': no PMU 'nope' in %s", root);
	ASSERT_STREQ(err, want, "whole message");
	check_err("notype/x/", -ENOENT, "no PMU 'notype'");
	check_err("../x/", -ENOENT, "no PMU '..'");
	check_err(".hidden/x/", -ENOENT, "no PMU '.hidden'");
	check_err("cpu/bogus/", -ENOENT,
		  "(format terms: cmask, edge, event, inv, ldlat, umask)");
	ASSERT_TRUE(strstr(err, "'bogus'") != NULL, "names the term");
	check_err("cpu/bogus=1/", -ENOENT, "no term 'bogus'");
	check_err("cpu/cycles,bogus/", -ENOENT, "'bogus'");
	check_err("cpu/CYCLES/", -ENOENT, "'CYCLES'");
	check_err("noevents/x/", -ENOENT, "(format terms: none)");
	ASSERT_EQ(sysfs_pmu__encode("/nonexistent-bpmc", "msr/tsc/", &attr,
				    NULL, 0, &error),
		  -ENOENT, "missing root");
}

static void test_err_range(void)
{
	check_err("cpu/event=0x1000/", -ERANGE, "config:0-7,32-35 (12 bits)");
	check_err("cpu/umask=0x100/", -ERANGE, "'umask'");
	check_err("cpu/edge=2/", -ERANGE, "config:18 (1 bit)");
	check_err("cpu/ldlat=0x10000/", -ERANGE, "'ldlat'");
	check_err("cpu/config=0x10000000000000000/", -ERANGE, "64 bits");
	check_err("cpu/event=99999999999999999999/", -ERANGE, "64 bits");
}

static void test_err_number(void)
{
	check_err("cpu/event=zz/", -EINVAL, "bad number 'zz'");
	check_err("cpu/event=/", -EINVAL, "bad number ''");
	check_err("cpu/event=-1/", -EINVAL, "bad number");
	check_err("cpu/event=0x/", -EINVAL, "bad number");
	check_err("cpu/event=1x/", -EINVAL, "bad number");
	check_err("cpu/event=0x1 /", -EINVAL, "bad number");
	check_err("cpu/config=0xg/", -EINVAL, "bad number");
	check_err("cpu/period=1.5/", -EINVAL, "bad number");
}

static void test_err_modifier(void)
{
	check_err("cpu/cycles/x", -EINVAL, "bad modifier 'x'");
	check_err("cpu/cycles/U", -EINVAL, "bad modifier 'U'");
	check_err("cpu/cycles/ug", -EINVAL, "bad modifier 'g'");
	check_err("cpu/cycles/q", -EINVAL, "bad modifier 'q'");
	check_err("cpu/cycles/ ", -EINVAL, "bad modifier");
	check_err("cpu/cycles/u,x", -EINVAL, "bad modifier");
}

static void test_err_syntax(void)
{
	check_err("cpu", -EINVAL, NULL);
	check_err("cpu/cycles", -EINVAL, NULL);
	check_err("/cycles/", -EINVAL, NULL);
	check_err("", -EINVAL, NULL);
	check_err("cp u/cycles/", -EINVAL, NULL);
	check_err("cpu/a/b/", -EINVAL, "'/'");
	check_err("cpu/event=1,/", -EINVAL, "empty term");
	check_err("cpu/,event=1/", -EINVAL, "empty term");
	check_err("cpu/event=1,,umask=1/", -EINVAL, "empty term");
	check_err("cpu/=1/", -EINVAL, "empty term");
	check_err("cpu/ev ent=1/", -EINVAL, "bad term");
	check_err("cpu/../", -EINVAL, "bad term");
	check_err("cpu/.scale/", -EINVAL, "bad term");
	/* Format files that cannot be used. */
	check_err("aaa_uncore/wide=1/", -EOPNOTSUPP, "config3");
	check_err("aaa_uncore/junk=1/", -EINVAL, "bad format");
}

static void test_fstr_short(void)
{
	char small[12];

	if (!fake_root())
		return;
	ASSERT_EQ(sysfs_pmu__encode(root, "cpu/event=0x1a3/", &attr, small,
				    sizeof(small), &error),
		  -ENAMETOOLONG, "fstr too short");
	ASSERT_OK(sysfs_pmu__encode(root, "cpu/event=0x1a3/", &attr, NULL, 0,
				    NULL),
		  "no fstr, no err");
	ASSERT_EQ(attr.config, 0x1000000a3ull, "no fstr config");
	ASSERT_EQ(sysfs_pmu__encode(root, "cpu/bogus/", &attr, NULL, 0, NULL),
		  -ENOENT, "error without err");
}

static void test_is_syntax(void)
{
	static const struct {
		const char *name;
		bool want;
	} cases[] = {
		{ "msr/tsc/", true },
		{ "cpu/event=0x3c,umask=0x0/u", true },
		{ "amd_iommu_0/config=1/", true },
		{ "cpu/cycles/ukh", true },
		{ "cpu/cycles/hku", true },
		{ "cpu//", true },
		{ "uncore_imc.0/event=0x4/k", true },
		{ "cpu-atom/cycles/", true },
		{ "cpu/a,b=1,c/", true },
		{ "cycles", false },
		{ "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS", false },
		{ "r0c0", false },
		{ "/x/", false },
		{ "", false },
		{ "cpu/", false },
		{ "cpu/cycles", false },
		{ "cpu/cycles/x", true }, /* refused by name, not as unknown */
		{ "cpu/cycles/u,x", false },
		{ "cpu/cycles/U", true },
		{ "cp u/x/", false },
		{ "cpu:x/y/", false },
		{ "instructions:u", false },
		{ "perf::PERF_COUNT_HW_CPU_CYCLES", false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		ASSERT_EQ(sysfs_pmu__is_syntax(cases[i].name), cases[i].want,
			  cases[i].name);
	ASSERT_EQ(sysfs_pmu__is_syntax(NULL), false, "NULL");
}

struct seen {
	char list[1024];
	int nr;
	int stop_after; /* 0: never */
};

static int collect(const struct sysfs_event *ev, void *ctx)
{
	struct seen *s = ctx;
	size_t n = strlen(s->list);

	snprintf(s->list + n, sizeof(s->list) - n, "%s/%s:%d:%s;", ev->pmu,
		 ev->event, ev->type, ev->terms);
	s->nr++;
	return s->stop_after && s->nr == s->stop_after ? 42 : 0;
}

static void test_for_each_event(void)
{
	struct seen s = { 0 };

	if (!fake_root())
		return;
	ASSERT_OK(sysfs_pmu__for_each_event(root, collect, &s), "walk");
	/* Sorted by PMU then by event; companions, hidden files, PMUs
	 * without a type, and hidden PMUs left out. */
	ASSERT_STREQ(s.list,
		     "aaa_uncore/alpha:12:event=0x1;"
		     "aaa_uncore/bad:12:event=zz;"
		     "aaa_uncore/mask:12:event=0xee;"
		     "aaa_uncore/zeta:12:event=0x2,mask=0x80;"
		     "cpu/cycles:4:event=0x76;"
		     "cpu/l1d:4:event=0x51,umask=0x01;",
		     "every alias");
	ASSERT_EQ(s.nr, 6, "count");

	memset(&s, 0, sizeof(s));
	s.stop_after = 2;
	ASSERT_EQ(sysfs_pmu__for_each_event(root, collect, &s), 42,
		  "stop returns fn's value");
	ASSERT_EQ(s.nr, 2, "stopped after two");
	ASSERT_STREQ(s.list,
		     "aaa_uncore/alpha:12:event=0x1;"
		     "aaa_uncore/bad:12:event=zz;",
		     "stopped list");

	memset(&s, 0, sizeof(s));
	ASSERT_EQ(sysfs_pmu__for_each_event("/nonexistent-bpmc", collect, &s),
		  -ENOENT, "missing root");
	ASSERT_EQ(s.nr, 0, "nothing from a missing root");
}

#define MSR_DIR SYSFS_PMU_ROOT "/msr"

/* This machine's msr PMU type and tsc alias config; false to skip. */
static bool real_msr(const char *test, long *type, uint64_t *tsc)
{
	char terms[128];

	if (access(MSR_DIR, F_OK)) {
		printf("  SKIP %s: no %s on this machine\n", test, MSR_DIR);
		return false;
	}
	if (!ASSERT_OK(read_file_long(MSR_DIR "/type", type), "msr/type"))
		return false;
	if (!ASSERT_OK(read_file_str(MSR_DIR "/events/tsc", terms,
				     sizeof(terms)),
		       "msr/events/tsc"))
		return false;
	if (!ASSERT_TRUE(!strncmp(terms, "event=", 6), "tsc is event=N"))
		return false;
	return ASSERT_OK(parse_u64(terms + 6, tsc), "tsc value");
}

static void test_real_msr_tsc(void)
{
	uint64_t tsc;
	char want[64];
	long type;

	if (!real_msr("real_msr_tsc", &type, &tsc))
		return;
	memset(&attr, 0, sizeof(attr));
	if (!ASSERT_OK(sysfs_pmu__encode(NULL, "msr/tsc/", &attr, fstr,
					 sizeof(fstr), &error),
		       "msr/tsc/"))
		printf("  err: %s\n", err);
	ASSERT_EQ(attr.type, (uint64_t)type, "type from msr/type");
	ASSERT_EQ(attr.config, tsc, "config from msr/events/tsc");
	snprintf(want, sizeof(want), "msr/config=0x%llx/",
		 (unsigned long long)tsc);
	ASSERT_STREQ(fstr, want, "msr/tsc/ fstr");

	memset(&attr, 0, sizeof(attr));
	ASSERT_OK(sysfs_pmu__encode(NULL, "msr/event=0x0/", &attr, fstr,
				    sizeof(fstr), &error),
		  "msr/event=0x0/");
	ASSERT_EQ(attr.type, (uint64_t)type, "event=0x0 type");
	ASSERT_EQ(attr.config, 0, "event=0x0 config");
	ASSERT_STREQ(fstr, "msr/config=0x0/", "event=0x0 fstr");

	ASSERT_EQ(sysfs_pmu__encode(NULL, "msr/nosuch/", &attr, fstr,
				    sizeof(fstr), &error),
		  -ENOENT, "msr/nosuch/");
	ASSERT_TRUE(strstr(err, "format terms: event") != NULL,
		    "lists msr's format terms");
}

static int find_tsc(const struct sysfs_event *ev, void *ctx)
{
	struct sysfs_event *out = ctx;

	if (strcmp(ev->pmu, "msr") || strcmp(ev->event, "tsc"))
		return 0;
	out->type = ev->type;
	out->terms = strdup(ev->terms);
	return 1;
}

static void test_real_for_each(void)
{
	struct sysfs_event found = { .type = -1 };
	uint64_t tsc;
	long type;

	if (!real_msr("real_for_each", &type, &tsc))
		return;
	ASSERT_EQ(sysfs_pmu__for_each_event(NULL, find_tsc, &found), 1,
		  "msr/tsc listed");
	ASSERT_EQ(found.type, type, "listed type");
	if (ASSERT_TRUE(found.terms != NULL, "listed terms"))
		ASSERT_TRUE(!strncmp(found.terms, "event=", 6), "tsc terms");
	free((char *)found.terms);
}

/* Which CPUs a PMU's events open on: its cpumask, else every CPU. */
static void test_cpumask(void)
{
	char buf[64];

	if (!fake_root())
		return;
	ASSERT_OK(sysfs_pmu__cpumask(root, 12, buf, sizeof(buf)), "uncore");
	ASSERT_STREQ(buf, "0,4", "uncore cpus");
	ASSERT_EQ(sysfs_pmu__cpumask(root, 4, buf, sizeof(buf)), -ENOENT,
		  "core PMU without a cpumask file");
	ASSERT_EQ(sysfs_pmu__cpumask(root, 20, buf, sizeof(buf)), -ENOENT,
		  "empty cpumask");
	ASSERT_EQ(sysfs_pmu__cpumask(root, 99, buf, sizeof(buf)), -ENOENT,
		  "no PMU of that type");
	ASSERT_EQ(sysfs_pmu__cpumask(root, 30, buf, sizeof(buf)), -ENOENT,
		  "hidden PMUs are not PMUs");
}

static const struct subtest tests[] = {
	{ "cpumask", test_cpumask },
	{ "split_field", test_split_field },
	{ "flags", test_flags },
	{ "config1", test_config1 },
	{ "raw_config", test_raw_config },
	{ "alias", test_alias },
	{ "modifiers", test_modifiers },
	{ "period_freq", test_period_freq },
	{ "err_unknown", test_err_unknown },
	{ "err_range", test_err_range },
	{ "err_number", test_err_number },
	{ "err_modifier", test_err_modifier },
	{ "err_syntax", test_err_syntax },
	{ "fstr_short", test_fstr_short },
	{ "is_syntax", test_is_syntax },
	{ "for_each_event", test_for_each_event },
	{ "real_msr_tsc", test_real_msr_tsc },
	{ "real_for_each", test_real_for_each },
	{ 0 },
};

int main(int argc, char **argv)
{
	int ret = test_main(argc, argv, tests);

	fake_cleanup();
	return ret;
}
