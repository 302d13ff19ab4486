// SPDX-License-Identifier: GPL-2.0
/* /proc/cpuinfo parsing and the CPU -> libpfm table mapping. */
#include <errno.h>
#include <perfmon/pfmlib.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "names/pmu_table.h"
#include "test.h"
#include "common/util.h"

#define AMD "AuthenticAMD"
#define INTEL "GenuineIntel"

/* Two blocks, as on a real machine; only the first one counts. */
static const char zen5_epyc[] =
	"processor\t: 0\n"
	"vendor_id\t: AuthenticAMD\n"
	"cpu family\t: 26\n"
	"model\t\t: 2\n"
	"model name\t: AMD EPYC 9555 64-Core Processor\n"
	"stepping\t: 1\n"
	"microcode\t: 0xb002116\n"
	"cpu MHz\t\t: 3200.000\n"
	"cache size\t: 1024 KB\n"
	"flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge\n"
	"bogomips\t: 6400.00\n"
	"TLB size\t: 192 4K pages\n"
	"power management: ts ttp tm hwpstate cpb eff_freq_ro [13] [14]\n"
	"\n"
	"processor\t: 1\n"
	"vendor_id\t: AuthenticAMD\n"
	"cpu family\t: 26\n"
	"model\t\t: 2\n"
	"model name\t: AMD EPYC 9555 64-Core Processor\n"
	"stepping\t: 1\n"
	"\n";

static const char spr_xeon[] = "processor\t: 0\n"
			       "vendor_id\t: GenuineIntel\n"
			       "cpu family\t: 6\n"
			       "model\t\t: 143\n"
			       "model name\t: Intel(R) Xeon(R) Platinum 8480+\n"
			       "stepping\t: 8\n"
			       "microcode\t: 0x2b000590\n"
			       "\n"
			       "processor\t: 1\n"
			       "vendor_id\t: GenuineIntel\n"
			       "cpu family\t: 6\n"
			       "model\t\t: 143\n"
			       "model name\t: Intel(R) Xeon(R) Platinum 8480+\n"
			       "stepping\t: 8\n"
			       "\n";

struct parse_case {
	const char *name;
	const char *text;
	int err;
	const char *vendor;
	int family, model, stepping;
	const char *model_name;
};

static const struct parse_case parse_cases[] = {
	{ "zen5 epyc", zen5_epyc, 0, AMD, 26, 2, 1,
	  "AMD EPYC 9555 64-Core Processor" },
	{ "spr xeon", spr_xeon, 0, INTEL, 6, 143, 8,
	  "Intel(R) Xeon(R) Platinum 8480+" },
	{ "crlf",
	  "processor\t: 0\r\n"
	  "vendor_id\t: GenuineIntel\r\n"
	  "cpu family\t: 6\r\n"
	  "model\t\t: 151\r\n"
	  "model name\t: 12th Gen Intel(R) Core(TM) i7-12700\r\n"
	  "stepping\t: 2\r\n"
	  "\r\n"
	  "processor\t: 1\r\n"
	  "vendor_id\t: GenuineIntel\r\n",
	  0, INTEL, 6, 151, 2, "12th Gen Intel(R) Core(TM) i7-12700" },
	{ "blanks around colon",
	  "vendor_id:AuthenticAMD\n"
	  "cpu family :\t25 \n"
	  "model\t \t:  17\t\n"
	  "model name : AMD EPYC 9654  \n",
	  0, AMD, 25, 17, -1, "AMD EPYC 9654" },
	{ "model name before model",
	  "vendor_id\t: AuthenticAMD\n"
	  "model name\t: AMD Ryzen 9 7950X 16-Core Processor\n"
	  "cpu family\t: 25\n"
	  "model\t\t: 97\n",
	  0, AMD, 25, 97, -1, "AMD Ryzen 9 7950X 16-Core Processor" },
	{ "leading blank lines, no trailing newline",
	  "\n\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85", 0,
	  INTEL, 6, 85, -1, "" },
	{ "stepping unknown",
	  "vendor_id\t: GenuineIntel\n"
	  "cpu family\t: 6\n"
	  "model\t\t: 85\n"
	  "stepping\t: unknown\n",
	  0, INTEL, 6, 85, -1, "" },
	{ "second block ignored",
	  "vendor_id\t: GenuineIntel\n"
	  "cpu family\t: 6\n"
	  "model\t\t: 85\n"
	  "\n"
	  "vendor_id\t: AuthenticAMD\n"
	  "cpu family\t: 25\n"
	  "model\t\t: 1\n"
	  "stepping\t: 1\n",
	  0, INTEL, 6, 85, -1, "" },
	{ .name = "missing model",
	  .err = -EINVAL,
	  .text = "processor\t: 0\n"
		  "vendor_id\t: AuthenticAMD\n"
		  "cpu family\t: 26\n"
		  "model name\t: AMD EPYC\n"
		  "stepping\t: 1\n" },
	{ .name = "model only in second block",
	  .err = -EINVAL,
	  .text = "vendor_id\t: AuthenticAMD\n"
		  "cpu family\t: 26\n"
		  "\n"
		  "model\t\t: 2\n" },
	{ .name = "missing vendor",
	  .err = -EINVAL,
	  .text = "cpu family\t: 6\nmodel\t\t: 85\n" },
	{ .name = "empty vendor",
	  .err = -EINVAL,
	  .text = "vendor_id\t:\ncpu family\t: 6\nmodel\t\t: 85\n" },
	{ .name = "vendor too long",
	  .err = -EINVAL,
	  .text = "vendor_id\t: GenuineIntelGenuineIntel\n"
		  "cpu family\t: 6\nmodel\t\t: 85\n" },
	{ .name = "family not a number",
	  .err = -EINVAL,
	  .text = "vendor_id\t: GenuineIntel\n"
		  "cpu family\t: six\nmodel\t\t: 85\n" },
	{ .name = "model negative",
	  .err = -EINVAL,
	  .text = "vendor_id\t: GenuineIntel\n"
		  "cpu family\t: 6\nmodel\t\t: -1\n" },
	{ .name = "model trailing garbage",
	  .err = -EINVAL,
	  .text = "vendor_id\t: GenuineIntel\n"
		  "cpu family\t: 6\nmodel\t\t: 85x\n" },
	{ .name = "aarch64",
	  .err = -EINVAL,
	  .text = "processor\t: 0\n"
		  "BogoMIPS\t: 50.00\n"
		  "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32\n"
		  "CPU implementer\t: 0x41\n"
		  "CPU architecture: 8\n"
		  "CPU variant\t: 0x3\n"
		  "CPU part\t: 0xd0c\n"
		  "CPU revision\t: 1\n" },
	{ .name = "empty", .err = -EINVAL, .text = "" },
	{ .name = "blank lines only", .err = -EINVAL, .text = "\n\r\n\n" },
};

static void test_parse(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(parse_cases); i++) {
		const struct parse_case *c = &parse_cases[i];
		struct cpu_id id;
		int err;

		memset(&id, 0x5a, sizeof(id));
		err = cpuinfo_parse(c->text, &id);
		if (!ASSERT_EQ(err, c->err, c->name) || err)
			continue;
		ASSERT_STREQ(id.vendor, c->vendor, c->name);
		ASSERT_EQ(id.family, c->family, c->name);
		ASSERT_EQ(id.model, c->model, c->name);
		ASSERT_EQ(id.stepping, c->stepping, c->name);
		ASSERT_STREQ(id.model_name, c->model_name, c->name);
	}
}

/* QEMU's -cpu max (implementer 0, part 'Q'), then a Neoverse N1. */
static void test_parse_arm(void)
{
	static const char qemu[] =
		"processor\t: 0\n"
		"BogoMIPS\t: 125.00\n"
		"Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32\n"
		"CPU implementer\t: 0x00\n"
		"CPU architecture: 8\n"
		"CPU variant\t: 0x0\n"
		"CPU part\t: 0x051\n"
		"CPU revision\t: 0\n"
		"\n"
		"processor\t: 1\n"
		"CPU implementer\t: 0x41\n"
		"CPU part\t: 0xd0c\n";
	struct arm_cpu_id id = { 7, 7 };
	struct cpu_id x86;

	ASSERT_EQ(cpuinfo_parse(qemu, &x86), -EINVAL, "not x86");
	ASSERT_EQ(cpuinfo_parse_arm(qemu, &id), 0, "qemu");
	ASSERT_EQ(id.implementer, 0, "qemu implementer");
	ASSERT_EQ(id.part, 0x51, "qemu part");
	ASSERT_EQ(cpuinfo_parse_arm(
			  "CPU implementer\t: 0x41\nCPU part\t: 0xd0c\n", &id),
		  0, "n1");
	ASSERT_EQ(id.implementer, 0x41, "n1 implementer");
	ASSERT_EQ(id.part, 0xd0c, "n1 part");
	id.part = 9;
	ASSERT_EQ(cpuinfo_parse_arm(zen5_epyc, &id), -EINVAL, "x86");
	ASSERT_EQ(cpuinfo_parse_arm("CPU implementer\t: 0x41\nCPU part\t: x\n",
				    &id),
		  -EINVAL, "a part that is no number");
	ASSERT_EQ(id.part, 9, "untouched on error");
}

static void test_parse_untouched_on_error(void)
{
	struct cpu_id id, before;

	memset(&id, 0x5a, sizeof(id));
	before = id;
	ASSERT_EQ(cpuinfo_parse("vendor_id : AuthenticAMD\n", &id), -EINVAL,
		  "parse");
	ASSERT_TRUE(!memcmp(&id, &before, sizeof(id)), "untouched");
	ASSERT_EQ(cpuinfo_parse(NULL, &id), -EINVAL, "null text");
}

static void test_parse_long_name(void)
{
	char text[512], name[200];
	struct cpu_id id;

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	snprintf(text, sizeof(text),
		 "vendor_id\t: AuthenticAMD\ncpu family\t: 26\n"
		 "model name\t: %s\nmodel\t\t: 2\n",
		 name);
	if (!ASSERT_OK(cpuinfo_parse(text, &id), "parse"))
		return;
	ASSERT_EQ(strlen(id.model_name), sizeof(id.model_name) - 1, "cut");
	ASSERT_TRUE(!strncmp(id.model_name, name, sizeof(id.model_name) - 1),
		    "prefix kept");
	/* The lines after the long one are still read. */
	ASSERT_EQ(id.model, 2, "model after it");
}

struct map_case {
	const char *name;
	const char *vendor;
	int family, model, stepping;
	const char *table, *nearest, *uarch;
};

#define ZEN1 "amd64_fam17h_zen1"
#define ZEN2 "amd64_fam17h_zen2"
#define ZEN3 "amd64_fam19h_zen3"
#define ZEN4 "amd64_fam19h_zen4"

static const struct map_case map_cases[] = {
	{ "zen naples", AMD, 0x17, 0x01, 2, ZEN1, NULL, "Zen" },
	{ "zen+ pinnacle ridge", AMD, 0x17, 0x08, 2, ZEN1, NULL, "Zen+" },
	{ "zen+ picasso", AMD, 0x17, 0x18, 1, ZEN1, NULL, "Zen+" },
	{ "zen 2 rome", AMD, 0x17, 0x31, 0, ZEN2, NULL, "Zen 2" },
	{ "zen 2 matisse", AMD, 0x17, 0x71, 0, ZEN2, NULL, "Zen 2" },
	{ "zen 3 milan", AMD, 0x19, 0x01, 1, ZEN3, NULL, "Zen 3" },
	{ "zen 3 vermeer", AMD, 0x19, 0x21, 0, ZEN3, NULL, "Zen 3" },
	{ "zen 3 cezanne", AMD, 0x19, 0x50, 0, ZEN3, NULL, "Zen 3" },
	{ "zen 4 genoa", AMD, 0x19, 0x11, 1, ZEN4, NULL, "Zen 4" },
	{ "zen 4 raphael", AMD, 0x19, 0x61, 2, ZEN4, NULL, "Zen 4" },
	{ "zen 4 phoenix", AMD, 0x19, 0x74, 1, ZEN4, NULL, "Zen 4" },
	{ "zen 4 bergamo", AMD, 0x19, 0xa0, 1, ZEN4, NULL, "Zen 4" },
	{ "zen 3 model 0x30", AMD, 0x19, 0x30, 0, ZEN3, NULL, "Zen 3" },
	{ "zen 4 model 0x80", AMD, 0x19, 0x80, 0, ZEN4, NULL, "Zen 4" },
	{ "zen 4 model 0xb0", AMD, 0x19, 0xb0, 0, ZEN4, NULL, "Zen 4" },
	{ "zen 5 turin", AMD, 0x1a, 0x02, 1, NULL, ZEN4, "Zen 5" },
	{ "zen 5 strix", AMD, 0x1a, 0x44, 0, NULL, ZEN4, "Zen 5" },
	{ "amd future family", AMD, 0x1b, 0x00, 0, NULL, ZEN4, NULL },
	{ "k10 barcelona", AMD, 0x10, 0x02, 3, "amd64_fam10h_barcelona", NULL,
	  "K10" },
	{ "k10 shanghai", AMD, 0x10, 0x04, 2, "amd64_fam10h_shanghai", NULL,
	  "K10" },
	{ "k10 istanbul", AMD, 0x10, 0x08, 0, "amd64_fam10h_istanbul", NULL,
	  "K10" },
	{ "k10 model 7", AMD, 0x10, 0x07, 0, "amd64_fam10h_barcelona", NULL,
	  "K10" },
	{ "k10 thuban", AMD, 0x10, 0x0a, 0, "amd64_fam10h_barcelona", NULL,
	  "K10" },
	{ "bulldozer", AMD, 0x15, 0x02, 0, "amd64_fam15h_interlagos", NULL,
	  "Bulldozer" },
	{ "jaguar", AMD, 0x16, 0x30, 1, "amd64_fam16h", NULL, "Jaguar" },
	{ "k7", AMD, 0x06, 0x08, 1, "amd64_k7", NULL, "K7" },
	{ "k8 rev b", AMD, 0x0f, 0x05, 1, "amd64_k8_revb", NULL, "K8 revb" },
	{ "k8 rev c", AMD, 0x0f, 0x05, 8, "amd64_k8_revc", NULL, "K8 revc" },
	{ "k8 rev b, no stepping", AMD, 0x0f, 0x04, -1, "amd64_k8_revb", NULL,
	  "K8 revb" },
	{ "k8 rev e", AMD, 0x0f, 0x2b, 1, "amd64_k8_reve", NULL, "K8 reve" },
	{ "k8 rev f", AMD, 0x0f, 0x41, 2, "amd64_k8_revf", NULL, "K8 revf" },
	{ "k8 rev f, model 0xc1", AMD, 0x0f, 0xc1, 3, "amd64_k8_revf", NULL,
	  "K8 revf" },
	{ "k8 rev g", AMD, 0x0f, 0x6b, 2, "amd64_k8_revg", NULL, "K8 revg" },
	{ "k8 unlisted model", AMD, 0x0f, 0x9f, 2, "amd64_k8_revb", NULL,
	  "K8 revb" },
	{ "skylake", INTEL, 6, 0x5e, 3, "skl", NULL, "Skylake" },
	{ "skylake-sp", INTEL, 6, 0x55, 4, "skx", NULL, "Skylake-SP" },
	{ "skylake-sp, no stepping", INTEL, 6, 0x55, -1, "skx", NULL,
	  "Skylake-SP" },
	{ "cascade lake", INTEL, 6, 0x55, 7, "clx", NULL, "Cascade Lake" },
	{ "ice lake-sp", INTEL, 6, 0x6a, 6, "icx", NULL, "Ice Lake-SP" },
	{ "tiger lake", INTEL, 6, 0x8c, 1, "icl", NULL, "Tiger Lake" },
	{ "sapphire rapids", INTEL, 6, 0x8f, 8, "spr", NULL,
	  "Sapphire Rapids" },
	{ "alder lake", INTEL, 6, 0x97, 2, NULL, "icl", "Alder Lake" },
	{ "emerald rapids", INTEL, 6, 0xcf, 2, NULL, "spr", "Emerald Rapids" },
	{ "granite rapids", INTEL, 6, 0xad, 1, NULL, "spr", "Granite Rapids" },
	{ "sierra forest", INTEL, 6, 0xaf, 3, NULL, "tmt", "Sierra Forest" },
	{ "conroe-l", INTEL, 6, 0x16, 1, NULL, "core", "Core 2" },
	{ "jasper lake", INTEL, 6, 0x9c, 0, NULL, "tmt", "Tremont" },
	{ "knights corner", INTEL, 0x0b, 0x01, 1, "knc", NULL,
	  "Knights Corner" },
	{ "intel unknown model", INTEL, 6, 0x01, 0, NULL, NULL, NULL },
	{ "netburst", INTEL, 15, 0x02, 9, "netburst", NULL, "NetBurst" },
	{ "prescott", INTEL, 15, 0x04, 1, "netburst_p", NULL, "NetBurst" },
	{ "netburst model 5", INTEL, 15, 0x05, 1, "netburst", NULL,
	  "NetBurst" },
	{ "netburst model 7", INTEL, 15, 0x07, 1, "netburst", NULL,
	  "NetBurst" },
	{ "intel unknown family", INTEL, 19, 0x01, 0, NULL, NULL, NULL },
	{ "hygon", "HygonGenuine", 0x18, 0x00, 1, NULL, NULL, NULL },
	{ "centaur", "CentaurHauls", 6, 0x0f, 0, NULL, NULL, NULL },
	{ "empty vendor", "", 0x19, 0x11, 1, NULL, NULL, NULL },
};

static void map(const char *vendor, int family, int model, int stepping,
		struct pmu_choice *out)
{
	struct cpu_id id = { .family = family,
			     .model = model,
			     .stepping = stepping };

	snprintf(id.vendor, sizeof(id.vendor), "%s", vendor);
	memset(out, 0x5a, sizeof(*out));
	pmu_table_for_cpu(&id, out);
}

static void test_map(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(map_cases); i++) {
		const struct map_case *c = &map_cases[i];
		struct pmu_choice pc;

		map(c->vendor, c->family, c->model, c->stepping, &pc);
		ASSERT_STREQ(pc.table, c->table, c->name);
		ASSERT_STREQ(pc.nearest, c->nearest, c->name);
		ASSERT_STREQ(pc.uarch, c->uarch, c->name);
	}
}

/*
 * Whether this libpfm has a core-PMU table called name. libpfm has no
 * lookup by name, so the names are gathered once.
 */
static bool libpfm_has(const char *name)
{
	static const char *names[PFM_PMU_MAX];
	static size_t nr;
	static bool done;
	pfm_pmu_info_t info;
	pfm_pmu_t i;

	if (!done) {
		/* Lists the tables of other CPUs than this one too. */
		setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
		if (!ASSERT_EQ(pfm_initialize(), PFM_SUCCESS, "pfm_initialize"))
			return false;
		for (i = PFM_PMU_NONE; i < PFM_PMU_MAX; i++) {
			memset(&info, 0, sizeof(info));
			info.size = sizeof(info);
			if (pfm_get_pmu_info(i, &info) != PFM_SUCCESS ||
			    info.type != PFM_PMU_TYPE_CORE)
				continue;
			names[nr++] = info.name;
		}
		done = true;
	}
	for (size_t j = 0; j < nr; j++)
		if (!strcmp(names[j], name))
			return true;
	return false;
}

static void test_map_names_in_libpfm(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(map_cases); i++) {
		const struct map_case *c = &map_cases[i];

		if (c->table && !ASSERT_TRUE(libpfm_has(c->table), c->name))
			printf("    no libpfm table %s\n", c->table);
		if (c->nearest && !ASSERT_TRUE(libpfm_has(c->nearest), c->name))
			printf("    no libpfm table %s\n", c->nearest);
	}
}

/* Whatever comes back for this CPU is a libpfm table of its vendor. */
static bool check_cpu(const char *vendor, int family, int model, int stepping)
{
	bool amd = !strcmp(vendor, AMD), ok = true;
	struct pmu_choice pc;
	const char *names[2];
	char what[96];

	map(vendor, family, model, stepping, &pc);
	snprintf(what, sizeof(what), "%s family %#x model %#x stepping %d",
		 vendor, family, model, stepping);
	ok &= ASSERT_TRUE(!(pc.table && pc.nearest), what);
	ok &= ASSERT_TRUE(!pc.table || pc.uarch, what);
	names[0] = pc.table;
	names[1] = pc.nearest;
	for (int n = 0; n < 2; n++) {
		if (!names[n])
			continue;
		ok &= ASSERT_TRUE(libpfm_has(names[n]), what);
		ok &= ASSERT_EQ(!strncmp(names[n], "amd64_", 6), amd, what);
	}
	return ok;
}

/* Steppings either side of the Skylake-SP / Cascade Lake split. */
static bool check_model(const char *vendor, int family, int model)
{
	static const int steppings[] = { -1, 0, 4, 5, 15 };
	bool ok = true;

	for (size_t s = 0; s < ARRAY_SIZE(steppings); s++)
		ok &= check_cpu(vendor, family, model, steppings[s]);
	return ok;
}

/*
 * Reaches every row of the table through the API, so that a typo in a
 * name no test case happens to hit still fails.
 */
static void test_sweep(void)
{
	static const char *const vendors[] = { AMD, INTEL };
	int failures = 0;

	for (size_t v = 0; v < ARRAY_SIZE(vendors); v++) {
		for (int fam = 0; fam <= 0x20; fam++) {
			for (int model = 0; model <= 0xff; model++) {
				failures +=
					!check_model(vendors[v], fam, model);
				/* A few bad CPUs tell it all; stop there. */
				if (failures > 10)
					return;
			}
		}
	}
}

/* One row of tests/data/libpfm_cpu_tables.tsv. */
struct detect_row {
	char vendor[16];
	long family, model_lo, model_hi, stepping_lo, stepping_hi;
	char table[64];
};

#define DETECT_DATA "tests/data/libpfm_cpu_tables.tsv"
#define DETECT_ROWS_MAX 256

static int detect_rows_read(struct detect_row *rows, int max)
{
	FILE *f = fopen(DETECT_DATA, "r");
	char line[256];
	int n = 0;

	if (!ASSERT_TRUE(f != NULL,
			 "open " DETECT_DATA " (run from the repository root)"))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct detect_row *r = &rows[n];
		int got;

		if (line[strspn(line, " \t\n")] == '\0' || line[0] == '#')
			continue;
		if (!ASSERT_LT(n, max, "rows fit"))
			break;
		got = sscanf(line, "%15s %li %li %li %li %li %63s", r->vendor,
			     &r->family, &r->model_lo, &r->model_hi,
			     &r->stepping_lo, &r->stepping_hi, r->table);
		if (!ASSERT_EQ(got, 7, "row has seven fields"))
			printf("    bad row: %s", line);
		else
			n++;
	}
	fclose(f);
	return n;
}

/* The expected table of a CPU: the first row that matches, or NULL. */
static const char *detect_expected(const struct detect_row *rows, int nr,
				   const char *vendor, int family, int model,
				   int stepping)
{
	for (int i = 0; i < nr; i++) {
		const struct detect_row *r = &rows[i];

		if (!strcmp(r->vendor, vendor) && r->family == family &&
		    model >= r->model_lo && model <= r->model_hi &&
		    stepping >= r->stepping_lo && stepping <= r->stepping_hi)
			return r->table;
	}
	return NULL;
}

/*
 * The steppings of one model whose table is not the data's; the first
 * few wrong ones are printed, up to *printed in all.
 */
static int detect_check_model(const struct detect_row *rows, int nr,
			      const char *vendor, int fam, int model,
			      long *with_table, int *printed)
{
	int wrong = 0;

	for (int st = 0; st <= 15; st++) {
		const char *want =
			detect_expected(rows, nr, vendor, fam, model, st);
		struct pmu_choice pc;

		map(vendor, fam, model, st, &pc);
		*with_table += want != NULL;
		if (want ? pc.table && !strcmp(pc.table, want) : !pc.table)
			continue;
		wrong++;
		if ((*printed)++ < 10)
			printf("    %s family %#x model %#x stepping %d: %s, libpfm says %s\n",
			       vendor, fam, model, st,
			       pc.table ? pc.table : "no table",
			       want ? want : "no table");
	}
	return wrong;
}

/*
 * Every (vendor, family, model, stepping) gets the table libpfm's newest
 * detection code gives it (the data file), or none when that is a table
 * libpfm 4.13 lacks or there is none: never another one.
 */
static void test_libpfm_detection(void)
{
	static const char *const vendors[] = { AMD, INTEL };
	static struct detect_row rows[DETECT_ROWS_MAX];
	int nr = detect_rows_read(rows, DETECT_ROWS_MAX), printed = 0, w;
	long triples = 0, with_table = 0, wrong = 0, wrong_models = 0;

	if (nr <= 0)
		return;
	for (int i = 0; i < nr; i++)
		if (!ASSERT_TRUE(libpfm_has(rows[i].table),
				 "table of the data"))
			printf("    libpfm 4.13 has no table %s\n",
			       rows[i].table);
	for (size_t v = 0; v < ARRAY_SIZE(vendors); v++) {
		for (int fam = 0; fam <= 0x20; fam++) {
			for (int model = 0; model <= 0xff; model++) {
				w = detect_check_model(rows, nr, vendors[v],
						       fam, model, &with_table,
						       &printed);
				wrong += w;
				wrong_models += w > 0;
				triples += 16;
			}
		}
	}
	printf("    %d rows; %ld (vendor, family, model, stepping) triples, %ld with a table; %ld disagree, in %ld models\n",
	       nr, triples, with_table, wrong, wrong_models);
	ASSERT_EQ(wrong, 0, "agrees with libpfm's detection");
	ASSERT_GE(with_table, 1, "the data names tables");
}

static void test_read_env(void)
{
	char path[] = "/tmp/bpmc-cpuinfo-XXXXXX";
	struct cpu_id id;
	int fd, err;

	fd = mkstemp(path);
	if (!ASSERT_TRUE(fd >= 0, "mkstemp"))
		return;
	ASSERT_EQ(write(fd, zen5_epyc, strlen(zen5_epyc)),
		  (ssize_t)strlen(zen5_epyc), "write");
	close(fd);
	setenv("BPMC_CPUINFO", path, 1);
	err = cpuinfo_read(&id);
	unsetenv("BPMC_CPUINFO");
	unlink(path);
	if (!ASSERT_OK(err, "read"))
		return;
	ASSERT_STREQ(id.vendor, AMD, "vendor");
	ASSERT_EQ(id.family, 26, "family");
	ASSERT_EQ(id.model, 2, "model");
	ASSERT_EQ(id.stepping, 1, "stepping");
}

static void test_read_missing(void)
{
	struct cpu_id id;

	setenv("BPMC_CPUINFO", "/nonexistent/bpmc-cpuinfo", 1);
	ASSERT_EQ(cpuinfo_read(&id), -ENOENT, "missing file");
	unsetenv("BPMC_CPUINFO");
}

/* The real file parses; what it says depends on the machine. */
static void test_read_proc(void)
{
	struct cpu_id id;
	int err;

	unsetenv("BPMC_CPUINFO");
	err = cpuinfo_read(&id);
#if defined(__x86_64__) || defined(__i386__)
	if (!ASSERT_OK(err, "read /proc/cpuinfo"))
		return;
	ASSERT_TRUE(id.vendor[0] != '\0', "vendor found");
	ASSERT_TRUE(id.family > 0, "family found");
#else
	/* Other architectures have no vendor_id or cpu family lines. */
	ASSERT_TRUE(err == 0 || err == -EINVAL, "read /proc/cpuinfo");
#endif
}

static const struct subtest tests[] = {
	{ "parse", test_parse },
	{ "parse_arm", test_parse_arm },
	{ "parse_untouched_on_error", test_parse_untouched_on_error },
	{ "parse_long_name", test_parse_long_name },
	{ "map", test_map },
	{ "map_names_in_libpfm", test_map_names_in_libpfm },
	{ "sweep", test_sweep },
	{ "libpfm_detection", test_libpfm_detection },
	{ "read_env", test_read_env },
	{ "read_missing", test_read_missing },
	{ "read_proc", test_read_proc },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
