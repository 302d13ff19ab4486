// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/cpuinfo -> libpfm4 core-PMU table, as the detection code of
 * libpfm's newest source picks it, for the tables libpfm 4.13 has; where
 * a CPU has no table of its own, the row names the one a user may force.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "names/pmu_table.h"
#include "common/util.h"

/*
 * The first processor block is a couple of KiB; reading more would only
 * cost time, as the kernel formats every CPU's block on a large machine.
 */
#define CPUINFO_READ_MAX (64 * 1024)

struct pmu_row {
	const char *vendor;
	int family_lo, family_hi;
	int model_lo, model_hi;
	/* An absent stepping (-1) matches as 0, the first silicon. */
	int stepping_lo, stepping_hi;
	const char *table;
	const char *nearest;
	const char *uarch;
};

#define AMD "AuthenticAMD"
#define INTEL "GenuineIntel"

#define ZEN1 "amd64_fam17h_zen1"
#define ZEN2 "amd64_fam17h_zen2"
#define ZEN3 "amd64_fam19h_zen3"
#define ZEN4 "amd64_fam19h_zen4"
#define ANY 0, INT_MAX

/* Kept by hand: clang-format spreads each initializer over four lines. */
/* clang-format off */
/* AMD family fam, models lo..hi, with a table of its own. */
#define AMD_ROW(fam, lo, hi, tbl, name) \
	{ AMD, fam, fam, lo, hi, ANY, tbl, NULL, name }
/* AMD without a table: the user may force near. */
#define AMD_NEAR(fam, lo, hi, near, name) \
	{ AMD, fam, fam, lo, hi, ANY, NULL, near, name }
/* K8 revisions follow model and stepping (libpfm's amd64_get_revision). */
#define K8_STEPPING(lo, hi, s_lo, s_hi, rev) \
	{ AMD, 0x0f, 0x0f, lo, hi, s_lo, s_hi, "amd64_k8_" rev, NULL, "K8 " rev }
#define K8(lo, hi, rev) K8_STEPPING(lo, hi, 0, INT_MAX, rev)
/* Intel family 6 keeps listing models out of order, hence one per row. */
#define INTEL6(model, tbl, name) \
	{ INTEL, 6, 6, model, model, ANY, tbl, NULL, name }
#define INTEL6_NEAR(model, near, name) \
	{ INTEL, 6, 6, model, model, ANY, NULL, near, name }
#define NETBURST(lo, hi, tbl) \
	{ INTEL, 0x0f, 0x0f, lo, hi, ANY, tbl, NULL, "NetBurst" }
/* clang-format on */

/*
 * First match wins: narrower rows go before the ranges they carve from.
 * The rows follow the detection code of libpfm's newest source (the
 * expected table and its origin are in tests/data/libpfm_cpu_tables.tsv);
 * a CPU whose table only a newer libpfm has gets a nearest one instead.
 */
static const struct pmu_row pmu_rows[] = {
	AMD_ROW(0x06, 0x00, INT_MAX, "amd64_k7", "K7"),
	K8_STEPPING(0x04, 0x04, 0, 0, "revb"),
	K8_STEPPING(0x05, 0x05, 0, 1, "revb"),
	K8(0x00, 0x0f, "revc"),
	K8(0x10, 0x1f, "revd"),
	K8(0x20, 0x3f, "reve"),
	K8(0x40, 0x5f, "revf"),
	K8(0xc0, 0xcf, "revf"),
	K8(0x60, 0x8f, "revg"),
	/* libpfm's default for the K8 models it does not list. */
	K8(0x00, INT_MAX, "revb"),
	AMD_ROW(0x10, 0x04, 0x06, "amd64_fam10h_shanghai", "K10"),
	AMD_ROW(0x10, 0x08, 0x09, "amd64_fam10h_istanbul", "K10"),
	AMD_ROW(0x10, 0x00, INT_MAX, "amd64_fam10h_barcelona", "K10"),
	AMD_ROW(0x11, 0x00, INT_MAX, "amd64_fam11h_turion", "Turion"),
	AMD_ROW(0x12, 0x00, INT_MAX, "amd64_fam12h_llano", "Llano"),
	AMD_ROW(0x14, 0x00, INT_MAX, "amd64_fam14h_bobcat", "Bobcat"),
	AMD_ROW(0x15, 0x00, INT_MAX, "amd64_fam15h_interlagos", "Bulldozer"),
	AMD_ROW(0x16, 0x00, INT_MAX, "amd64_fam16h", "Jaguar"),
	/* Pinnacle Ridge and Picasso: Zen+ keeps Zen's PMU. */
	AMD_ROW(0x17, 0x08, 0x08, ZEN1, "Zen+"),
	AMD_ROW(0x17, 0x18, 0x18, ZEN1, "Zen+"),
	AMD_ROW(0x17, 0x00, 0x2f, ZEN1, "Zen"),
	AMD_ROW(0x17, 0x30, INT_MAX, ZEN2, "Zen 2"),
	/* Stock libpfm 4.13 only detects model 0x11 of these. */
	AMD_ROW(0x19, 0x10, 0x1f, ZEN4, "Zen 4"),
	AMD_ROW(0x19, 0x60, INT_MAX, ZEN4, "Zen 4"),
	AMD_ROW(0x19, 0x00, INT_MAX, ZEN3, "Zen 3"),
	AMD_NEAR(0x1a, 0x00, INT_MAX, ZEN4, "Zen 5"),
	/* A future family is closer to Zen 4 than to nothing. */
	{ AMD, 0x1b, INT_MAX, 0x00, INT_MAX, ANY, NULL, ZEN4, NULL },

	INTEL6(0x0f, "core", "Core 2"),
	INTEL6(0x17, "core", "Core 2"),
	INTEL6(0x1d, "core", "Core 2"),
	/* Conroe-L: a Core 2 that libpfm's list lacks. */
	INTEL6_NEAR(0x16, "core", "Core 2"),
	INTEL6(0x1c, "atom", "Bonnell"),
	INTEL6(0x26, "atom", "Bonnell"),
	INTEL6(0x27, "atom", "Saltwell"),
	INTEL6(0x35, "atom", "Saltwell"),
	INTEL6(0x36, "atom", "Saltwell"),
	INTEL6(0x1a, "nhm", "Nehalem"),
	INTEL6(0x1e, "nhm", "Nehalem"),
	INTEL6(0x1f, "nhm", "Nehalem"),
	INTEL6(0x2e, "nhm_ex", "Nehalem-EX"),
	INTEL6(0x25, "wsm", "Westmere"),
	INTEL6(0x2c, "wsm_dp", "Westmere-EP"),
	INTEL6(0x2f, "wsm_dp", "Westmere-EX"),
	INTEL6(0x2a, "snb", "Sandy Bridge"),
	INTEL6(0x2d, "snb_ep", "Sandy Bridge-EP"),
	INTEL6(0x3a, "ivb", "Ivy Bridge"),
	INTEL6(0x3e, "ivb_ep", "Ivy Bridge-EP"),
	INTEL6(0x3c, "hsw", "Haswell"),
	INTEL6(0x45, "hsw", "Haswell"),
	INTEL6(0x46, "hsw", "Haswell"),
	INTEL6(0x3f, "hsw_ep", "Haswell-EP"),
	INTEL6(0x3d, "bdw", "Broadwell"),
	INTEL6(0x47, "bdw", "Broadwell"),
	INTEL6(0x4f, "bdw_ep", "Broadwell-EP"),
	INTEL6(0x56, "bdw_ep", "Broadwell-DE"),
	INTEL6(0x4e, "skl", "Skylake"),
	INTEL6(0x5e, "skl", "Skylake"),
	INTEL6(0x8e, "skl", "Kaby Lake"),
	INTEL6(0x9e, "skl", "Kaby Lake"),
	INTEL6(0xa5, "skl", "Comet Lake"),
	INTEL6(0xa6, "skl", "Comet Lake"),
	/* Cascade Lake shares Skylake-SP's model; libpfm splits on it too. */
	{ INTEL, 6, 6, 0x55, 0x55, 5, INT_MAX, "clx", NULL, "Cascade Lake" },
	INTEL6(0x55, "skx", "Skylake-SP"),
	/* libpfm files Ice Lake-D under icl, not icx: the events are one. */
	INTEL6(0x6c, "icl", "Ice Lake-D"),
	INTEL6(0x7d, "icl", "Ice Lake"),
	INTEL6(0x7e, "icl", "Ice Lake"),
	INTEL6(0x9d, "icl", "Ice Lake"),
	INTEL6(0x8c, "icl", "Tiger Lake"),
	INTEL6(0x8d, "icl", "Tiger Lake"),
	INTEL6(0xa7, "icl", "Rocket Lake"),
	INTEL6(0x6a, "icx", "Ice Lake-SP"),
	INTEL6(0x8f, "spr", "Sapphire Rapids"),
	INTEL6(0x37, "slm", "Silvermont"),
	INTEL6(0x4d, "slm", "Silvermont"),
	INTEL6(0x4c, "slm", "Airmont"),
	INTEL6(0x5c, "glm", "Goldmont"),
	INTEL6(0x5f, "glm", "Goldmont"),
	INTEL6(0x86, "tmt", "Tremont"),
	INTEL6(0x96, "tmt", "Tremont"),
	/* Jasper Lake: a Tremont that libpfm's list lacks. */
	INTEL6_NEAR(0x9c, "tmt", "Tremont"),
	INTEL6(0x57, "knl", "Knights Landing"),
	INTEL6(0x85, "knm", "Knights Mill"),
	INTEL6_NEAR(0x7a, "glm", "Goldmont Plus"),
	INTEL6_NEAR(0x97, "icl", "Alder Lake"),
	INTEL6_NEAR(0x9a, "icl", "Alder Lake"),
	INTEL6_NEAR(0xb7, "icl", "Raptor Lake"),
	INTEL6_NEAR(0xba, "icl", "Raptor Lake"),
	INTEL6_NEAR(0xbf, "icl", "Raptor Lake"),
	INTEL6_NEAR(0xaa, "icl", "Meteor Lake"),
	INTEL6_NEAR(0xac, "icl", "Meteor Lake"),
	INTEL6_NEAR(0xcf, "spr", "Emerald Rapids"),
	INTEL6_NEAR(0xad, "spr", "Granite Rapids"),
	INTEL6_NEAR(0xae, "spr", "Granite Rapids"),
	INTEL6_NEAR(0xaf, "tmt", "Sierra Forest"),
	{ INTEL, 0x0b, 0x0b, 0x01, 0x01, ANY, "knc", NULL, "Knights Corner" },
	/* Prescott has one event more (INSTR_COMPLETED). */
	NETBURST(0x03, 0x04, "netburst_p"),
	NETBURST(0x06, 0x06, "netburst_p"),
	NETBURST(0x00, INT_MAX, "netburst"),
};

static bool row_matches(const struct pmu_row *r, const struct cpu_id *id)
{
	int stepping;

	if (strcmp(r->vendor, id->vendor))
		return false;
	if (id->family < r->family_lo || id->family > r->family_hi)
		return false;
	if (id->model < r->model_lo || id->model > r->model_hi)
		return false;
	stepping = id->stepping < 0 ? 0 : id->stepping;
	return stepping >= r->stepping_lo && stepping <= r->stepping_hi;
}

void pmu_table_for_cpu(const struct cpu_id *id, struct pmu_choice *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < ARRAY_SIZE(pmu_rows); i++) {
		const struct pmu_row *r = &pmu_rows[i];

		if (!row_matches(r, id))
			continue;
		out->table = r->table;
		out->nearest = r->nearest;
		out->uarch = r->uarch;
		return;
	}
}

/* [*s, *e) without the blanks (and a CR) around it. */
static void trim(const char **s, const char **e)
{
	while (*s < *e && isspace((unsigned char)**s))
		(*s)++;
	while (*e > *s && isspace((unsigned char)(*e)[-1]))
		(*e)--;
}

/* Copies [s, e) into buf, NUL-terminated; -ENAMETOOLONG if it won't fit. */
static int copy_value(const char *s, const char *e, char *buf, size_t len)
{
	size_t n = e - s;

	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return 0;
}

static int parse_int(const char *s, const char *e, int *out)
{
	char buf[32];
	long v;
	int err;

	err = copy_value(s, e, buf, sizeof(buf));
	if (!err)
		err = parse_long(buf, 0, INT_MAX, &v);
	if (err)
		return -EINVAL;
	*out = v;
	return 0;
}

static bool key_is(const char *k, const char *ke, const char *want)
{
	size_t n = strlen(want);

	return (size_t)(ke - k) == n && !memcmp(k, want, n);
}

/* Takes in one "key : value" line of [line, eol); other lines are ignored. */
static int cpuinfo_field(struct cpu_id *c, const char *line, const char *eol)
{
	const char *k = line, *ke = memchr(line, ':', eol - line);
	const char *v, *ve = eol;

	if (!ke)
		return 0;
	v = ke + 1;
	trim(&k, &ke);
	trim(&v, &ve);

	if (key_is(k, ke, "vendor_id"))
		return copy_value(v, ve, c->vendor, sizeof(c->vendor));
	if (key_is(k, ke, "cpu family"))
		return parse_int(v, ve, &c->family);
	if (key_is(k, ke, "model"))
		return parse_int(v, ve, &c->model);
	if (key_is(k, ke, "stepping")) {
		/* Some hypervisors say "unknown": as good as absent. */
		if (parse_int(v, ve, &c->stepping))
			c->stepping = -1;
	} else if (key_is(k, ke, "model name")) {
		/* Only ever shown to people: a cut name beats none. */
		if ((size_t)(ve - v) >= sizeof(c->model_name))
			ve = v + sizeof(c->model_name) - 1;
		copy_value(v, ve, c->model_name, sizeof(c->model_name));
	}
	return 0;
}

int cpuinfo_parse(const char *text, struct cpu_id *id)
{
	struct cpu_id c = { .family = -1, .model = -1, .stepping = -1 };
	const char *line, *eol, *next;
	bool in_block = false;

	if (!text)
		return -EINVAL;
	for (line = text; *line; line = next) {
		const char *s = line;

		eol = strchrnul(line, '\n');
		next = *eol ? eol + 1 : eol;
		trim(&s, &eol);
		if (s == eol) {
			/* A blank line ends the first block, once begun. */
			if (in_block)
				break;
			continue;
		}
		in_block = true;
		if (cpuinfo_field(&c, s, eol))
			return -EINVAL;
	}
	if (!c.vendor[0] || c.family < 0 || c.model < 0)
		return -EINVAL;
	*id = c;
	return 0;
}

/* The text of /proc/cpuinfo's first few KiB, or of $BPMC_CPUINFO. */
static int cpuinfo_text(char **out)
{
	const char *path = secure_getenv("BPMC_CPUINFO");
	char *buf;
	int err;

	if (!path || !*path)
		path = "/proc/cpuinfo";
	buf = malloc(CPUINFO_READ_MAX);
	if (!buf)
		return -ENOMEM;
	err = read_file_str(path, buf, CPUINFO_READ_MAX);
	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	return 0;
}

int cpuinfo_read(struct cpu_id *id)
{
	char *buf;
	int err = cpuinfo_text(&buf);

	if (err)
		return err;
	err = cpuinfo_parse(buf, id);
	free(buf);
	return err;
}

/* A "key : 0x41" line's number, base as written. */
static int arm_field(const char *line, const char *key, int *out)
{
	size_t n = strlen(key);
	const char *v;
	char *end;
	long x;

	if (strncmp(line, key, n) ||
	    (line[n] != ' ' && line[n] != '\t' && line[n] != ':'))
		return 0;
	v = strchr(line + n, ':');
	if (!v)
		return 0;
	errno = 0;
	x = strtol(v + 1, &end, 0);
	if (errno || end == v + 1 || x < 0 || x > INT_MAX ||
	    (*end && *end != '\n'))
		return 0;
	*out = (int)x;
	return 1;
}

int cpuinfo_parse_arm(const char *text, struct arm_cpu_id *id)
{
	struct arm_cpu_id c = { -1, -1 };
	bool in_block = false;

	for (const char *line = text; line && *line;) {
		const char *eol = strchrnul(line, '\n');

		if (eol == line) {
			if (in_block)
				break;
		} else {
			in_block = true;
			if (!arm_field(line, "CPU implementer", &c.implementer))
				arm_field(line, "CPU part", &c.part);
		}
		line = *eol ? eol + 1 : eol;
	}
	if (c.implementer < 0 || c.part < 0)
		return -EINVAL;
	*id = c;
	return 0;
}

int cpuinfo_read_arm(struct arm_cpu_id *id)
{
	char *buf;
	int err = cpuinfo_text(&buf);

	if (err)
		return err;
	err = cpuinfo_parse_arm(buf, id);
	free(buf);
	return err;
}
