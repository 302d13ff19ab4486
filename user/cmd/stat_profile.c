// SPDX-License-Identifier: GPL-2.0
/*
 * bpmc stat --profile: a PROFSTART counter's (pid, PC) histogram folded
 * into functions, as a flat gprof or `perf report --sort sym` would.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/stat.h"
#include "common/grow.h"
#include "common/util.h"
#include "pmc.h"
#include "symbols/symbols.h"

struct function {
	char name[256];
	char object[512];
	uint64_t samples;
};

struct flat {
	struct function *fn;
	size_t nr, cap;
};

static int flat_add(struct flat *f, const char *name, const char *object,
		    uint64_t samples)
{
	for (size_t i = 0; i < f->nr; i++)
		if (!strcmp(f->fn[i].name, name) &&
		    !strcmp(f->fn[i].object, object)) {
			f->fn[i].samples += samples;
			return 0;
		}
	if (GROW(f->fn, f->cap, f->nr + 1, 64))
		return -ENOMEM;
	snprintf(f->fn[f->nr].name, sizeof(f->fn[0].name), "%s", name);
	snprintf(f->fn[f->nr].object, sizeof(f->fn[0].object), "%s", object);
	f->fn[f->nr++].samples = samples;
	return 0;
}

static int by_samples(const void *a, const void *b)
{
	const struct function *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Where one PC was: its function, or what can be said instead. */
static void resolve(struct symbols *syms, int ctr,
		    const struct pmc_linux_profile_entry *e, char *name,
		    size_t len, char *object, size_t objlen)
{
	struct error err = { "" };
	uint64_t off, sym_off;

	if (pmc_linux_profile_locate(ctr, e, object, objlen, &off)) {
		snprintf(name, len, "[anonymous]");
		snprintf(object, objlen, "[unknown]");
		return;
	}
	/* Unresolved PCs of one file count together, as one line. */
	if (symbols__resolve(syms, object, off, name, len, &sym_off, &err))
		snprintf(name, len, "[unknown in %.200s]",
			 strrchr(object, '/') ? strrchr(object, '/') + 1 :
						object);
}

int stat_profile__print(int ctr, FILE *out, const char *sep, int top)
{
	struct pmc_linux_profile_stats st = { 0 };
	struct pmc_linux_profile_entry *e = NULL;
	struct symbols *syms = NULL;
	struct error err = { "" };
	struct flat f = { 0 };
	size_t total = 0;
	int ret;

	if (pmc_get_info(ctr, PMC_LINUX_INFO_PROFILE_STATS, &st) ||
	    pmc_linux_profile_read(ctr, NULL, 0, &total))
		return -errno;
	e = calloc(total ? total : 1, sizeof(*e));
	ret = e ? symbols__new(&syms, &err) : -ENOMEM;
	if (ret || pmc_linux_profile_read(ctr, e, total, &total)) {
		ret = ret ? ret : -errno;
		goto cleanup;
	}
	for (size_t i = 0; i < total; i++) {
		char name[256], object[512];

		resolve(syms, ctr, &e[i], name, sizeof(name), object,
			sizeof(object));
		ret = flat_add(&f, name, object, e[i].count);
		if (ret)
			goto cleanup;
	}
	qsort(f.fn, f.nr, sizeof(*f.fn), by_samples);
	if (!sep)
		fprintf(out,
			" Profile: %" PRIu64 " samples of the user PC%s%s\n\n"
			"  %%samples  samples  function  (object)\n",
			st.samples, st.lost ? ", lost " : "",
			st.lost ? "some: see below" : "");
	for (size_t i = 0; i < f.nr && (int)i < top; i++) {
		double pct = st.samples ? 100.0 * f.fn[i].samples / st.samples :
					  0;

		if (sep)
			fprintf(out, "profile%s%.2f%s%" PRIu64 "%s%s%s%s\n",
				sep, pct, sep, f.fn[i].samples, sep,
				f.fn[i].name, sep, f.fn[i].object);
		else
			fprintf(out, "  %7.2f%%  %7" PRIu64 "  %s  (%s)\n", pct,
				f.fn[i].samples, f.fn[i].name, f.fn[i].object);
	}
	if (st.lost)
		p_warn("the kernel dropped %" PRIu64 " profile samples",
		       st.lost);
	ret = 0;
cleanup:
	symbols__free(syms);
	free(f.fn);
	free(e);
	return ret;
}
