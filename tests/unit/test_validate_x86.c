// SPDX-License-Identifier: GPL-2.0
/*
 * libpfm's own golden table of x86 encodings (validate_x86.c of libpfm
 * 4.13.0, kept as tests/data/libpfm_validate_x86.tsv) through bpmc's
 * encoder, events__encode(): every entry as TABLE::NAME, and as the bare
 * NAME with TABLE forced, as --pmu TABLE does. Any disagreement fails,
 * naming the entry and its line in validate_x86.c.
 *
 * libpfm's test asks for the raw PERFEVTSEL value (PFM_OS_NONE, levels
 * PFM_PLM0 | PFM_PLM3); bpmc asks for a perf_event_attr
 * (PFM_OS_PERF_EVENT_EXT), as perf does. The same encoding lands in other
 * fields there (libpfm's pfm_intel_x86_get_perf_encoding() and
 * pfm_amd64_get_perf_encoding()), and that is what is compared:
 *
 *	codes[0] bit 16 (USR)	-> exclude_user = !USR
 *	codes[0] bit 17 (OS)	-> exclude_kernel = !OS
 *	codes[0] bits 20, 22	-> dropped (INT, EN: the kernel sets them)
 *	  (AMD) bits 40, 41	-> dropped (guest and host only: exclude_host,
 *				   exclude_guest, which bpmc sets as perf does)
 *	the other bits		-> config, type PERF_TYPE_RAW
 *	codes[1], count 2	-> config1 (offcore response, frontend,
 *				   load latency: the extra MSR)
 *
 * exclude_hv is not compared: libpfm's x86 codes carry no such level.
 * NetBurst pairs ESCR and CCCR, config = ESCR << 32 | CCCR, with perf's
 * own event code in ESCR bits 25-30 (libpfm's table keeps it to itself:
 * those bits are not compared), and the levels in ESCR bits 0-3
 * (T1_USR, T1_OS, T0_USR, T0_OS), which the kernel sets from exclude_*
 * (libpfm leaves them at its default there): T0_USR and T0_OS are
 * compared with exclude_user and exclude_kernel, as USR and OS above.
 *
 * Uncore and RAPL tables count through a kernel PMU of their own
 * (names/kernel_pmu.c). Where sysfs lacks it, bpmc refuses the event on
 * purpose: such an entry is counted as refused, and the refusal must name
 * that kernel PMU. Where sysfs has it, success or failure and the event
 * and unit mask (config bits 0-15) are compared; the rest of an uncore
 * encoding (filters, which perf spreads over config1 and config's upper
 * half) is not.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "names/events.h"
#include "names/kernel_pmu.h"
#include "names/pfm.h"
#include "names/sysfs_pmu.h"
#include "test.h"

#define VX_DATA "tests/data/libpfm_validate_x86.tsv"
#define VX_ROWS_MAX 2048
#define VX_CODES_MAX 8

#define X86_USR (1ull << 16)
#define X86_OS (1ull << 17)
#define X86_INT (1ull << 20)
#define X86_EN (1ull << 22)
#define AMD_GUEST (1ull << 40)
#define AMD_HOST (1ull << 41)
#define NETBURST_T0_USR (1ull << 2)
#define NETBURST_T0_OS (1ull << 3)
/* In config: perf's event code and the four level bits of the ESCR. */
#define NETBURST_NOT_COMPARED (0x3full << (25 + 32) | 0xfull << 32)

/* One entry of validate_x86.c. */
struct vx_entry {
	int line;
	char name[EVENT_NAME_LEN];
	char table[64]; /* as written before "::" */
	const char *bare; /* into name, after "::" */
	bool ok; /* libpfm expects PFM_SUCCESS */
	int count;
	uint64_t codes[VX_CODES_MAX];
};

/*
 * AGREE_FIELDS: encoded, as libpfm's codes say; AGREE_ERROR: refused, as
 * libpfm expects; REFUSED: refused on purpose (its kernel PMU is absent).
 */
enum verdict { AGREE_FIELDS, AGREE_ERROR, REFUSED, DISAGREE };

/* What the entry's table is, in libpfm and in sysfs. */
struct vx_table {
	char name[64]; /* libpfm's own spelling */
	bool uncore;
	bool amd, netburst;
	char kpmu[64]; /* its kernel PMU, or "" */
	bool kpmu_absent; /* no type for it in sysfs */
};

static struct vx_entry rows[VX_ROWS_MAX];
static int nrows = -1;

static bool split_tabs(char *line, char **field, int n)
{
	for (int i = 0; i < n; i++) {
		field[i] = line;
		line = strchr(line, i == n - 1 ? '\n' : '\t');
		if (!line && i < n - 1)
			return false;
		if (line)
			*line++ = '\0';
	}
	return true;
}

static bool parse_row(char *line, struct vx_entry *e)
{
	char *f[6], *sep, *p;
	int n = 0;

	if (!split_tabs(line, f, 6) || strlen(f[1]) >= sizeof(e->name))
		return false;
	memset(e, 0, sizeof(*e));
	e->line = atoi(f[0]);
	strcpy(e->name, f[1]);
	sep = strstr(e->name, "::");
	if (!sep || sep - e->name >= (long)sizeof(e->table))
		return false;
	memcpy(e->table, e->name, sep - e->name);
	e->table[sep - e->name] = '\0';
	e->bare = sep + 2;
	e->ok = !strcmp(f[2], "PFM_SUCCESS");
	e->count = atoi(f[3]);
	for (p = f[4]; strcmp(f[4], "-") && *p && n < VX_CODES_MAX; n++) {
		e->codes[n] = strtoull(p, &p, 16);
		p += *p == ',';
	}
	return e->line > 0;
}

/* The rows of the data file, read once; -1 when it cannot be read. */
static int rows_read(void)
{
	char line[1024];
	FILE *f;

	if (nrows >= 0)
		return nrows;
	f = fopen(VX_DATA, "r");
	if (!ASSERT_TRUE(f != NULL,
			 "open " VX_DATA " (run from the repository root)"))
		return -1;
	nrows = 0;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[strspn(line, " \t\n")] == '\0')
			continue;
		if (!ASSERT_LT(nrows, VX_ROWS_MAX, "rows fit"))
			break;
		if (!ASSERT_TRUE(parse_row(line, &rows[nrows]), "row parses"))
			printf("    bad row: %s", line);
		else
			nrows++;
	}
	fclose(f);
	return nrows;
}

/* libpfm matches table names whatever their case (SNBEP_UNC_PCU::). */
static bool table_get(const char *table, struct vx_table *t)
{
	char path[512];
	pfm_pmu_info_t info;
	struct stat st;
	pfm_pmu_t pmu;

	memset(t, 0, sizeof(*t));
	pfm_for_all_pmus(pmu) {
		if (libpfm__pmu_get(pmu, &info) &&
		    !strcasecmp(info.name, table))
			break;
	}
	if (pmu >= PFM_PMU_MAX)
		return false;
	snprintf(t->name, sizeof(t->name), "%s", info.name);
	t->uncore = info.type == PFM_PMU_TYPE_UNCORE;
	t->amd = !strncmp(t->name, "amd64_", 6);
	t->netburst = !strncmp(t->name, "netburst", 8);
	if (t->uncore &&
	    kernel_pmu__for_table(t->name, t->kpmu, sizeof(t->kpmu))) {
		snprintf(path, sizeof(path), "%s/%s/type", sysfs_pmu__root(),
			 t->kpmu);
		t->kpmu_absent = stat(path, &st) != 0;
	}
	return true;
}

/* A core table's entry, as perf_event_attr fields (see the top). */
struct perf_view {
	uint64_t config, config1;
	bool exclude_user, exclude_kernel;
};

static void expected_view(const struct vx_entry *e, const struct vx_table *t,
			  struct perf_view *v)
{
	uint64_t c0 = e->codes[0];

	memset(v, 0, sizeof(*v));
	if (t->netburst) {
		v->config = (c0 << 32 | e->codes[1]) & ~NETBURST_NOT_COMPARED;
		v->exclude_user = !(c0 & NETBURST_T0_USR);
		v->exclude_kernel = !(c0 & NETBURST_T0_OS);
		return;
	}
	v->config = c0 & ~(X86_USR | X86_OS | X86_INT | X86_EN);
	if (t->amd)
		v->config &= ~(AMD_GUEST | AMD_HOST);
	if (e->count == 2)
		v->config1 = e->codes[1];
	v->exclude_user = !(c0 & X86_USR);
	v->exclude_kernel = !(c0 & X86_OS);
}

/* What bpmc encoded, in the same terms; false when it differs. */
static bool compare_core(const struct vx_entry *e, const struct vx_table *t,
			 const struct perf_event_attr *a, char *why, size_t len)
{
	struct perf_view want;
	uint64_t config = a->config;

	expected_view(e, t, &want);
	if (t->netburst)
		config &= ~NETBURST_NOT_COMPARED;
	if (a->type != PERF_TYPE_RAW)
		snprintf(why, len, "type %u, expected %u (raw)", a->type,
			 PERF_TYPE_RAW);
	else if (config != want.config)
		snprintf(why, len, "config %#" PRIx64 ", expected %#" PRIx64,
			 config, want.config);
	else if (a->config1 != want.config1)
		snprintf(why, len, "config1 %#llx, expected %#" PRIx64,
			 (unsigned long long)a->config1, want.config1);
	else if (a->exclude_user != want.exclude_user ||
		 a->exclude_kernel != want.exclude_kernel)
		snprintf(
			why, len,
			"exclude_user=%d exclude_kernel=%d, expected %d %d (codes[0] %#" PRIx64
			")",
			a->exclude_user, a->exclude_kernel, want.exclude_user,
			want.exclude_kernel, e->codes[0]);
	else
		return true;
	return false;
}

/*
 * Entry e, whose table's kernel PMU sysfs lacks: refused for that, or,
 * where libpfm expects an error anyway, refused for libpfm's own reason
 * (snb_unc_cbo1::UNC_CLOCKTICKS: only cbo0 has it).
 */
static enum verdict judge_absent(const struct vx_entry *e,
				 const struct vx_table *t, int ret,
				 const char *msg, const struct event *ev,
				 char *why, size_t len)
{
	char named[96];

	snprintf(named, sizeof(named), "needs the kernel PMU '%s'", t->kpmu);
	if (ret && strstr(msg, named))
		return REFUSED;
	if (ret && !e->ok && !strstr(msg, "needs the kernel PMU"))
		return AGREE_ERROR;
	if (ret)
		snprintf(why, len,
			 "refused, but not for its kernel PMU '%s': %s",
			 t->kpmu, msg);
	else
		snprintf(
			why, len,
			"encoded (type %u config %#llx) though its kernel PMU '%s' is absent",
			ev->attr.type, (unsigned long long)ev->attr.config,
			t->kpmu);
	return DISAGREE;
}

/*
 * The verdict on one encoding of entry e: ret and msg are what
 * events__encode() (or events__new(), for a forced table) returned, ev
 * what it encoded. why says what disagreed.
 */
static enum verdict judge(const struct vx_entry *e, int ret, const char *msg,
			  const struct event *ev, char *why, size_t len)
{
	struct vx_table t;

	if (!table_get(e->table, &t)) {
		snprintf(why, len, "libpfm 4.13 has no table '%s'", e->table);
		return DISAGREE;
	}
	if (t.kpmu_absent)
		return judge_absent(e, &t, ret, msg, ev, why, len);
	if (!e->ok && ret)
		return AGREE_ERROR;
	if (!e->ok) {
		snprintf(why, len,
			 "encoded (config %#llx), libpfm expects an error",
			 (unsigned long long)ev->attr.config);
		return DISAGREE;
	}
	if (ret) {
		snprintf(why, len, "refused, libpfm expects %#" PRIx64 ": %s",
			 e->codes[0], msg);
		return DISAGREE;
	}
	if (!t.uncore)
		return compare_core(e, &t, &ev->attr, why, len) ? AGREE_FIELDS :
								  DISAGREE;
	/* An uncore table whose kernel PMU this host has. */
	if ((ev->attr.config & 0xffff) == (e->codes[0] & 0xffff))
		return AGREE_FIELDS;
	snprintf(why, len, "event and unit mask %#llx, expected %#" PRIx64,
		 (unsigned long long)ev->attr.config & 0xffff,
		 e->codes[0] & 0xffff);
	return DISAGREE;
}

/* The handle that forces e's table, kept while the table repeats. */
static int forced_handle(const struct vx_entry *e, struct events **h,
			 struct error *err)
{
	static char table[64];
	static struct error why;
	static int ret;

	if (!*h || strcmp(table, e->table)) {
		if (*h)
			events__free(*h);
		*h = NULL;
		snprintf(table, sizeof(table), "%s", e->table);
		why.msg[0] = '\0';
		ret = events__new(h, table, &why);
	}
	if (ret)
		*err = why;
	return ret;
}

struct tally {
	int fields, error, refused, disagree;
};

static void count(struct tally *t, enum verdict v, const struct vx_entry *e,
		  const char *as, const char *why)
{
	switch (v) {
	case AGREE_FIELDS:
		t->fields++;
		break;
	case AGREE_ERROR:
		t->error++;
		break;
	case REFUSED:
		t->refused++;
		break;
	case DISAGREE:
		t->disagree++;
		TEST__FAIL("validate_x86", "validate_x86.c:%d %s (%s): %s",
			   e->line, e->name, as, why);
		break;
	default:
		break;
	}
}

/* The kernel PMUs refusals named, for the summary: "power,amd_nb,...". */
static void note_kpmu(const struct vx_entry *e, char *list, size_t len, int *n)
{
	struct vx_table t;
	char item[80];

	if (!table_get(e->table, &t) || !t.kpmu_absent)
		return;
	snprintf(item, sizeof(item), ",%s,", t.kpmu);
	if (strstr(list, item))
		return;
	(*n)++;
	if (strlen(list) + strlen(item) < len)
		strcat(list, item + (list[0] != '\0'));
}

static void test_data(void)
{
	struct vx_table t;
	int n = rows_read(), unknown = 0;

	if (n < 0)
		return;
	ASSERT_GE(n, 1000, "validate_x86.c's entries");
	for (int i = 0; i < n; i++) {
		if (table_get(rows[i].table, &t))
			continue;
		unknown++;
		printf("    validate_x86.c:%d: libpfm 4.13 has no table '%s'\n",
		       rows[i].line, rows[i].table);
	}
	ASSERT_EQ(unknown, 0, "every table is libpfm 4.13's");
}

static void test_validate_x86(void)
{
	struct tally full = {}, bare = {};
	struct events *all = NULL, *forced = NULL;
	struct error err = {};
	char why[512], kpmus[4096] = ",", as[128];
	int n = rows_read(), nk = 0;

	if (n <= 0 || !ASSERT_OK(events__new(&all, NULL, &err), "handle"))
		return;
	for (int i = 0; i < n; i++) {
		const struct vx_entry *e = &rows[i];
		struct event ev;
		int ret;

		err.msg[0] = '\0';
		ret = events__encode(all, e->name, &ev, &err);
		count(&full, judge(e, ret, err.msg, &ev, why, sizeof(why)), e,
		      "as TABLE::NAME", why);

		err.msg[0] = '\0';
		ret = forced_handle(e, &forced, &err);
		if (!ret)
			ret = events__encode(forced, e->bare, &ev, &err);
		snprintf(as, sizeof(as), "bare, --pmu %s", e->table);
		count(&bare, judge(e, ret, err.msg, &ev, why, sizeof(why)), e,
		      as, why);
		note_kpmu(e, kpmus, sizeof(kpmus), &nk);
	}
	if (forced)
		events__free(forced);
	events__free(all);
	printf("  %d of %d entries as TABLE::NAME and %d of %d bare agree with libpfm's validate_x86.c (%d/%d encodings compared, %d/%d errors as libpfm expects), %d and %d disagree (%d and %d refused on purpose: each needs a kernel PMU this host lacks, %d in all: %.48s...)\n",
	       full.fields + full.error, n, bare.fields + bare.error, n,
	       full.fields, bare.fields, full.error, bare.error, full.disagree,
	       bare.disagree, full.refused, bare.refused, nk, kpmus + 1);
	ASSERT_EQ(full.disagree, 0, "as TABLE::NAME");
	ASSERT_EQ(bare.disagree, 0, "bare, table forced");
	ASSERT_EQ(full.fields + full.error + full.refused, n, "all judged");
}

/* The first entry that encodes on a core table, or NULL. */
static const struct vx_entry *core_entry(int count)
{
	struct vx_table t;

	for (int i = 0; i < nrows; i++)
		if (rows[i].ok && rows[i].count == count &&
		    table_get(rows[i].table, &t) && !t.uncore && !t.amd &&
		    !t.netburst)
			return &rows[i];
	return NULL;
}

/* The same judge says no to an entry that is off in any field it checks. */
static void test_can_fail(void)
{
	const struct vx_entry *one = core_entry(1), *two = core_entry(2);
	struct events *h = NULL;
	struct error err = {};
	struct vx_entry bad;
	struct event ev, ev2;
	char why[512];

	if (rows_read() <= 0 || !ASSERT_TRUE(one && two, "core entries") ||
	    !ASSERT_OK(events__new(&h, NULL, &err), "handle"))
		return;
	if (!ASSERT_OK(events__encode(h, one->name, &ev, &err), "encodes") ||
	    !ASSERT_OK(events__encode(h, two->name, &ev2, &err), "encodes 2"))
		goto out;
	ASSERT_EQ(judge(one, 0, "", &ev, why, sizeof(why)), AGREE_FIELDS,
		  "as is");
	bad = *one;
	bad.codes[0] ^= 0x1;
	ASSERT_EQ(judge(&bad, 0, "", &ev, why, sizeof(why)), DISAGREE,
		  "event select");
	ASSERT_TRUE(strstr(why, "config") != NULL, "says config");
	bad = *one;
	bad.codes[0] &= ~X86_USR;
	ASSERT_EQ(judge(&bad, 0, "", &ev, why, sizeof(why)), DISAGREE,
		  "user level");
	ASSERT_TRUE(strstr(why, "exclude_user=0") != NULL, "says exclude");
	bad = *one;
	bad.ok = false;
	ASSERT_EQ(judge(&bad, 0, "", &ev, why, sizeof(why)), DISAGREE,
		  "libpfm expects an error");
	ASSERT_EQ(judge(one, -EINVAL, "x", &ev, why, sizeof(why)), DISAGREE,
		  "libpfm expects success");
	bad = *two;
	bad.codes[1] ^= 0x1;
	ASSERT_EQ(judge(&bad, 0, "", &ev2, why, sizeof(why)), DISAGREE,
		  "config1");
	ASSERT_TRUE(strstr(why, "config1") != NULL, "says config1");
out:
	events__free(h);
}

/* An uncore entry whose kernel PMU is absent: refused, and named. */
static void test_can_fail_uncore(void)
{
	struct vx_entry bad = {};
	struct vx_table t;
	struct event ev = {};
	char why[512], msg[256];

	snprintf(bad.name, sizeof(bad.name), "rapl::RAPL_ENERGY_PKG");
	snprintf(bad.table, sizeof(bad.table), "rapl");
	bad.line = 1;
	bad.ok = true;
	bad.count = 1;
	bad.codes[0] = 0x2;
	if (!table_get("rapl", &t) || !t.kpmu_absent) {
		printf("    (this host has the kernel PMU '%s': nothing to refuse)\n",
		       t.kpmu);
		return;
	}
	ASSERT_EQ(judge(&bad, 0, "", &ev, why, sizeof(why)), DISAGREE,
		  "encoded without its PMU");
	ASSERT_EQ(judge(&bad, -ENODEV, "some other reason", &ev, why,
			sizeof(why)),
		  DISAGREE, "refused, PMU not named");
	snprintf(msg, sizeof(msg),
		 "event 'x' needs the kernel PMU '%s', which this host lacks",
		 t.kpmu);
	ASSERT_EQ(judge(&bad, -ENODEV, msg, &ev, why, sizeof(why)), REFUSED,
		  "refused, PMU named");
}

static const struct subtest tests[] = {
	{ "data", test_data },
	{ "validate_x86", test_validate_x86 },
	{ "can_fail", test_can_fail },
	{ "can_fail_uncore", test_can_fail_uncore },
	{ 0 },
};

int main(int argc, char **argv)
{
	struct error e = {};

	if (libpfm__init(&e)) {
		printf("FAIL init: %s\n", e.msg);
		return 1;
	}
	return test_main(argc, argv, tests);
}
