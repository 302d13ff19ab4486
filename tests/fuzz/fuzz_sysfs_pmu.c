// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the sysfs PMU/terms/[ukh] parser of
 * names/sysfs_pmu.c, against a fixture devices directory made once
 * under mkdtemp, as tests/unit/test_sysfs_pmu.c does. An input is up to
 * three lines:
 *
 *	FORMAT\nALIAS\nNAME
 *
 * FORMAT becomes the content of fz/format/f, ALIAS that of fz/events/a,
 * and NAME is encoded (without a NAME, "fz/f=1,a/u"). What encodes must
 * encode again, from its fully qualified form, to the same attr.
 * Links names/ and common/ only.
 */
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "names/sysfs_pmu.h"

#define CHECK(cond)                                                      \
	do {                                                             \
		if (!(cond)) {                                           \
			fprintf(stderr, "fuzz_sysfs_pmu: %s at %s:%d\n", \
				#cond, __FILE__, __LINE__);              \
			abort();                                         \
		}                                                        \
	} while (0)

static char root[64];
static char format_path[128], alias_path[128];

struct fake_file {
	const char *path;
	const char *text; /* NULL: a directory */
};

/* The unit test's "cpu", and "fz", whose f and a the input rewrites. */
static const struct fake_file fake[] = {
	{ "cpu", NULL },
	{ "cpu/type", "4\n" },
	{ "cpu/format", NULL },
	{ "cpu/format/event", "config:0-7,32-35\n" },
	{ "cpu/format/umask", "config:8-15\n" },
	{ "cpu/format/edge", "config:18\n" },
	{ "cpu/format/cmask", "config:24-31\n" },
	{ "cpu/format/ldlat", "config1:0-15\n" },
	{ "cpu/format/mask", "config2:56-63\n" },
	{ "cpu/format/wide", "config3:0-7\n" },
	{ "cpu/format/junk", "config:7-3\n" },
	{ "cpu/events", NULL },
	{ "cpu/events/cycles", "event=0x76\n" },
	{ "cpu/events/l1d", "event=0x51,umask=0x01\n" },
	{ "cpu/events/l1d.scale", "1\n" },
	{ "cpu/events/bad", "event=zz\n" },
	{ "fz", NULL },
	{ "fz/type", "42\n" },
	{ "fz/format", NULL },
	{ "fz/format/f", "config:0-7\n" },
	{ "fz/format/g", "config1:0-63\n" },
	{ "fz/events", NULL },
	{ "fz/events/a", "f=1\n" },
	{ "fz/events/f", "g=2\n" }, /* shadowed by the format term f */
	{ "notype", NULL },
	{ "notype/format", NULL },
	{ "notype/format/f", "config:0-7\n" },
};

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path);
}

static void remove_root(void)
{
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void put_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "we");

	if (!f || fwrite(text, 1, len, f) != len || fclose(f)) {
		perror(path);
		abort();
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[256];

	/* /dev/shm where there is one: every input rewrites two files. */
	snprintf(root, sizeof(root), "%s/bpmc-fuzz-pmu.XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	if (!mkdtemp(root)) {
		perror(root);
		exit(1);
	}
	atexit(remove_root);
	for (size_t i = 0; i < sizeof(fake) / sizeof(*fake); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, fake[i].path);
		if (!fake[i].text) {
			if (mkdir(path, 0755)) {
				perror(path);
				exit(1);
			}
			continue;
		}
		put_file(path, fake[i].text, strlen(fake[i].text));
	}
	snprintf(format_path, sizeof(format_path), "%s/fz/format/f", root);
	snprintf(alias_path, sizeof(alias_path), "%s/fz/events/a", root);
	return 0;
}

/* Cuts the next line off *p (NULL past the end). */
static const char *next_line(char **p)
{
	char *line = *p, *nl;

	if (!line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = NULL;
	}
	return line;
}

static void check_same(const struct perf_event_attr *a,
		       const struct perf_event_attr *b)
{
	CHECK(a->type == b->type);
	CHECK(a->config == b->config);
	CHECK(a->config1 == b->config1);
	CHECK(a->config2 == b->config2);
	CHECK(a->exclude_user == b->exclude_user);
	CHECK(a->exclude_kernel == b->exclude_kernel);
	CHECK(a->exclude_hv == b->exclude_hv);
	CHECK(a->freq == b->freq);
	CHECK(a->sample_period == b->sample_period);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *p = buf, fstr[256], fstr2[256];
	const char *format, *alias, *name;
	struct perf_event_attr attr, again;
	struct error err = {};
	int ret;

	if (!buf)
		abort();
	memcpy(buf, data, size);
	buf[size] = '\0';
	format = next_line(&p);
	alias = next_line(&p);
	name = p && *p ? p : "fz/f=1,a/u";
	put_file(format_path, format, strlen(format));
	put_file(alias_path, alias ? alias : "f=1", alias ? strlen(alias) : 3);

	memset(&attr, 0xa5, sizeof(attr));
	memset(fstr, 0xa5, sizeof(fstr));
	ret = sysfs_pmu__encode(root, name, &attr, fstr, sizeof(fstr), &err);
	CHECK(memchr(err.msg, '\0', sizeof(err.msg)));
	if (ret) {
		CHECK(ret < 0);
		CHECK(err.msg[0]);
		/* The culprit is named (as far as the message holds it). */
		CHECK(strstr(err.msg, "event '") || strstr(err.msg, "memory"));
	} else {
		CHECK(sysfs_pmu__is_syntax(name));
		CHECK(memchr(fstr, '\0', sizeof(fstr)));
		CHECK(attr.size == sizeof(attr));
		/* The fully qualified form means the same event. */
		ret = sysfs_pmu__encode(root, fstr, &again, fstr2,
					sizeof(fstr2), &err);
		if (ret)
			fprintf(stderr, "fuzz_sysfs_pmu: '%s' -> '%s': %s\n",
				name, fstr, err.msg);
		CHECK(!ret);
		check_same(&attr, &again);
		CHECK(!strcmp(fstr, fstr2));
	}
	free(buf);
	return 0;
}
