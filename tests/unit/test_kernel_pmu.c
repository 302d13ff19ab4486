// SPDX-License-Identifier: GPL-2.0
/*
 * libpfm uncore tables -> the kernel PMU each needs, and the refusal of
 * an event whose kernel PMU is missing, against a sysfs devices tree
 * made under mkdtemp (one with a power PMU, one without).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The kernel's header first: libpfm's copy then steps aside. */
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>

#include "common/util.h"
#include "names/kernel_pmu.h"
#include "names/pfm.h"
#include "test.h"

static struct error error;
static const char *err = error.msg;

/* The perf_name of each, from libpfm's own tables (lib/pfmlib_*.c). */
static const struct {
	const char *table, *kernel;
} names[] = {
	{ "rapl", "power" },
	{ "amd64_rapl", "power" },
	{ "amd64_fam15h_nb", "amd_nb" },
	{ "amd64_fam19h_zen3_l3", "amd_l3" },
	{ "nhm_unc", "uncore" },
	{ "wsm_unc", "uncore" },
	{ "snb_unc_cbo0", "uncore_cbox_0" },
	{ "ivb_unc_cbo3", "uncore_cbox_3" },
	{ "snbep_unc_cbo0", "uncore_cbox_0" },
	{ "snbep_unc_imc2", "uncore_imc_2" },
	{ "snbep_unc_qpi1", "uncore_qpi_1" },
	{ "snbep_unc_r3qpi0", "uncore_r3qpi_0" },
	{ "snbep_unc_ubo", "uncore_ubox" },
	{ "snbep_unc_pcu", "uncore_pcu" },
	{ "ivbep_unc_r3qpi2", "uncore_r3qpi_2" },
	{ "bdx_unc_sbo3", "uncore_sbox_3" },
	{ "skx_unc_cha27", "uncore_cha_27" },
	{ "skx_unc_m3upi2", "uncore_m3upi_2" },
	{ "knl_unc_imc0", "uncore_imc_0" },
	{ "knl_unc_edc_eclk7", "uncore_edc_eclk_7" },
	{ "knl_unc_m2pcie", "uncore_m2pcie" },
};

static void test_names(void)
{
	char buf[64];

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		buf[0] = '\0';
		if (ASSERT_TRUE(kernel_pmu__for_table(names[i].table, buf,
						      sizeof(buf)),
				names[i].table))
			ASSERT_STREQ(buf, names[i].kernel, names[i].table);
	}
	ASSERT_TRUE(!kernel_pmu__for_table("amd64_fam19h_zen4", buf,
					   sizeof(buf)),
		    "a core table needs none");
	ASSERT_TRUE(!kernel_pmu__for_table("snbep_unc_", buf, sizeof(buf)),
		    "no unit");
	ASSERT_TRUE(!kernel_pmu__for_table("snbep_unc_cbo0", buf, 8),
		    "buffer too small");
}

/* Every uncore table of this libpfm has a rule: none is let through. */
static void test_every_uncore_table(void)
{
	pfm_pmu_info_t info;
	char buf[64];
	int n = 0, named = 0;
	pfm_pmu_t pmu;

	if (!ASSERT_OK(libpfm__init(&error), "libpfm__init"))
		return;
	pfm_for_all_pmus(pmu) {
		if (!libpfm__pmu_get(pmu, &info) ||
		    info.type != PFM_PMU_TYPE_UNCORE)
			continue;
		n++;
		if (ASSERT_TRUE(kernel_pmu__for_table(info.name, buf,
						      sizeof(buf)),
				info.name))
			named++;
	}
	printf("    %d of libpfm's %d uncore tables name their kernel PMU\n",
	       named, n);
	ASSERT_GE(n, 1, "libpfm has uncore tables");
}

static char root[64];

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) ? -errno : 0;
}

/* root/power/type = 4242 (a dynamic PMU type: higher than any built-in). */
static bool make_root(void)
{
	char path[128];

	snprintf(root, sizeof(root), "/tmp/bpmc-kernel-pmu-XXXXXX");
	if (!mkdtemp(root)) {
		TEST__FAIL("root", "mkdtemp: %s", strerror(errno));
		root[0] = '\0';
		return false;
	}
	snprintf(path, sizeof(path), "%s/power", root);
	if (mkdir(path, 0755)) {
		TEST__FAIL("root", "%s: %s", path, strerror(errno));
		return false;
	}
	snprintf(path, sizeof(path), "%s/power/type", root);
	return ASSERT_OK(write_text(path, "4242\n"), "power/type");
}

static void remove_root(void)
{
	char path[128];

	if (!root[0])
		return;
	snprintf(path, sizeof(path), "%s/power/type", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/power", root);
	rmdir(path);
	rmdir(root);
	root[0] = '\0';
}

static int check(const char *where, const char *name, const char *fstr,
		 int type)
{
	struct perf_event_attr attr = { .type = type };

	error.msg[0] = '\0';
	return kernel_pmu__check(where, name, fstr, type >= 0 ? &attr : NULL,
				 &error);
}

static void test_check(void)
{
	char power_type[128];

	if (!ASSERT_OK(libpfm__init(&error), "libpfm__init") || !make_root())
		goto out;
	snprintf(power_type, sizeof(power_type), "%s/power/type", root);

	/* The power PMU is there: the event goes on, with its type. */
	ASSERT_OK(check(root, "rapl::RAPL_ENERGY_PKG",
			"rapl::RAPL_ENERGY_PKG:excl=0", 4242),
		  "present, its type");
	ASSERT_OK(check(root, "rapl::RAPL_ENERGY_PKG", NULL, -1),
		  "present, not encoded: libpfm's reason stands");
	/* libpfm took it for a raw core event: refused, saying so. */
	ASSERT_EQ(check(root, "rapl::RAPL_ENERGY_PKG",
			"rapl::RAPL_ENERGY_PKG:excl=0", PERF_TYPE_RAW),
		  -ENODEV, "present, raw type");
	ASSERT_TRUE(strstr(err, "type 4242") && strstr(err, "type 4"), err);

	/* Without power/type the PMU is gone, as on a host without RAPL. */
	unlink(power_type);
	ASSERT_EQ(check(root, "rapl::RAPL_ENERGY_PKG",
			"rapl::RAPL_ENERGY_PKG:excl=0", PERF_TYPE_RAW),
		  -ENODEV, "absent, encoded raw");
	ASSERT_TRUE(strstr(err, "'rapl::RAPL_ENERGY_PKG'") &&
			    strstr(err, "kernel PMU 'power'") &&
			    strstr(err, strerror(ENOENT)) && !strchr(err, '\n'),
		    err);
	ASSERT_EQ(check(root, "amd64_rapl::RAPL_ENERGY_PKG:u", NULL, -1),
		  -ENODEV, "absent, libpfm refused, with a modifier");
	ASSERT_EQ(check(root, "RAPL_ENERGY_PKG", NULL, -1), -ENODEV,
		  "absent, bare name");
	ASSERT_TRUE(strstr(err, "kernel PMU 'power'") != NULL, err);
	ASSERT_EQ(check(root, "snbep_unc_cbo0::UNC_C_CLOCKTICKS", NULL, -1),
		  -ENODEV, "absent uncore box");
	ASSERT_TRUE(strstr(err, "kernel PMU 'uncore_cbox_0'") != NULL, err);

	/* Not this module's business: misspelt names and core tables. */
	ASSERT_OK(check(root, "snbep_unc_cbo0::UNC_C_CLOCKTIKS", NULL, -1),
		  "misspelt: left to the caller");
	ASSERT_OK(check(root, "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS",
			"amd64_fam19h_zen3::RETIRED_INSTRUCTIONS:u=1",
			PERF_TYPE_RAW),
		  "core table");
	ASSERT_OK(check(root, "cpu-clock", "perf::PERF_COUNT_SW_CPU_CLOCK",
			PERF_TYPE_SOFTWARE),
		  "perf's generic table");
out:
	remove_root();
}

static const struct subtest tests[] = {
	{ "names", test_names },
	{ "every_uncore_table", test_every_uncore_table },
	{ "check", test_check },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
