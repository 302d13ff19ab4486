// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's sysfs event syntax, PMU/terms/[ukh], as perf parses it:
 * ROOT/PMU/type is attr.type, ROOT/PMU/format/TERM says which bits of
 * config, config1 or config2 a term's value fills, and ROOT/PMU/events/NAME
 * is an alias for a term list.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "names/perf_grammar.h"
#include "names/sysfs_pmu.h"
#include "common/error.h"
#include "common/util.h"

#define MAX_TERMS 32
#define TERM_NAME_LEN 64
#define ALIAS_LEN 1024
#define FORMAT_LEN 128
#define NR_REGS 3

static const char *const reg_names[NR_REGS] = { "config", "config1",
						"config2" };

/* Companion files of an alias, which are not events themselves. */
static const char *const companions[] = { ".scale", ".unit", ".snapshot",
					  ".per-pkg" };

struct term {
	char name[TERM_NAME_LEN];
	uint64_t val;
};

struct parse {
	const char *root;
	const char *input; /* the whole name, for messages */
	char pmu[NAME_MAX + 1];
	__u32 type;
	struct term term[MAX_TERMS];
	int nr;
	struct error *err;
	char display[PERF_NAME_LEN]; /* name= */
	/* A legacy name inside a core PMU: cpu/cycles/. */
	const char *legacy;
	__u32 legacy_type;
	__u64 legacy_config;
};

/* Where a term's value goes: register reg, value bit i to bit pos[i]. */
struct field {
	int reg;
	int nbits;
	unsigned char pos[64];
	char spec[FORMAT_LEN]; /* the format file's text, for messages */
};

static void set_err(struct parse *p, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Writes "WHAT event 'input': reason" into p->err. */
static void set_err(struct parse *p, const char *what, const char *fmt, ...)
{
	char reason[512];
	va_list ap;

	if (!p->err)
		return;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	error__set(p->err, EINVAL, "%s event '%s': %s", what, p->input, reason);
}

static bool is_companion(const char *name)
{
	size_t len = strlen(name), clen;

	for (size_t i = 0; i < ARRAY_SIZE(companions); i++) {
		clen = strlen(companions[i]);
		if (len > clen && !strcmp(name + len - clen, companions[i]))
			return true;
	}
	return false;
}

static bool is_pmu_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-';
}

/* Any letter: a modifier perf does not have is refused by name. */
static bool is_mod_char(char c)
{
	return isalpha((unsigned char)c);
}

const char *sysfs_pmu__root(void)
{
	/* Not in a set-uid or file-capability program (libpmc's user). */
	const char *env = secure_getenv("BPMC_SYSFS_ROOT");

	return env && *env ? env : SYSFS_PMU_ROOT;
}

bool sysfs_pmu__is_syntax(const char *name)
{
	const char *slash, *last;

	if (!name || !is_pmu_char(*name))
		return false;
	for (slash = name; is_pmu_char(*slash); slash++)
		;
	if (*slash != '/')
		return false;
	last = strrchr(name, '/');
	if (last == slash)
		return false;
	for (last++; *last; last++) {
		if (!is_mod_char(*last))
			return false;
	}
	return true;
}

/* Formats ROOT/PMU/SUB/NAME (SUB and NAME may be NULL) into buf. */
static int pmu_path(char *buf, size_t len, const char *root, const char *pmu,
		    const char *sub, const char *name)
{
	int n;

	if (name)
		n = snprintf(buf, len, "%s/%s/%s/%s", root, pmu, sub, name);
	else if (sub)
		n = snprintf(buf, len, "%s/%s/%s", root, pmu, sub);
	else
		n = snprintf(buf, len, "%s/%s", root, pmu);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static bool is_reserved(const char *name)
{
	return !strcmp(name, "config") || !strcmp(name, "config1") ||
	       !strcmp(name, "config2") || !strcmp(name, "period") ||
	       !strcmp(name, "freq");
}

/* A name in a term list: the characters sysfs file names use here. */
static bool is_term_name(const char *name)
{
	if (!*name || *name == '.')
		return false;
	for (; *name; name++) {
		if (!is_pmu_char(*name))
			return false;
	}
	return true;
}

static bool format_exists(struct parse *p, const char *term)
{
	char path[PATH_MAX];

	if (pmu_path(path, sizeof(path), p->root, p->pmu, "format", term))
		return false;
	return access(path, F_OK) == 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int not_hidden(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Lists PMU's format terms, sorted: "cmask, edge, event". */
static void list_formats(struct parse *p, char *buf, size_t len)
{
	struct dirent **ents;
	char path[PATH_MAX];
	size_t used = 0;
	int n;

	snprintf(buf, len, "none");
	if (pmu_path(path, sizeof(path), p->root, p->pmu, "format", NULL))
		return;
	n = scandir(path, &ents, not_hidden, by_name);
	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		if (used < len)
			used += snprintf(buf + used, len - used, "%s%s",
					 i ? ", " : "", ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
}

/* Parses a decimal bit number 0-63 at *s, moving *s past it. */
static int parse_bit(const char **s, int *bit)
{
	int v = 0;

	if (!isdigit((unsigned char)**s))
		return -EINVAL;
	for (; isdigit((unsigned char)**s); (*s)++) {
		v = v * 10 + (**s - '0');
		if (v > 63)
			return -EINVAL;
	}
	*bit = v;
	return 0;
}

/*
 * Parses a format file's text, "config1:0-7,32-35" or "config:5", into f.
 * Returns -EOPNOTSUPP for a register other than config, config1, config2.
 */
static int format_parse(const char *spec, struct field *f)
{
	const char *colon = strchr(spec, ':'), *s;
	uint64_t seen = 0;
	int a, b;

	if (!colon)
		return -EINVAL;
	f->reg = -1;
	for (int i = 0; i < NR_REGS; i++) {
		if (strlen(reg_names[i]) == (size_t)(colon - spec) &&
		    !strncmp(spec, reg_names[i], colon - spec))
			f->reg = i;
	}
	if (f->reg < 0)
		return -EOPNOTSUPP;
	f->nbits = 0;
	for (s = colon + 1;; s++) {
		if (parse_bit(&s, &a))
			return -EINVAL;
		b = a;
		if (*s == '-') {
			s++;
			if (parse_bit(&s, &b) || b < a)
				return -EINVAL;
		}
		for (int bit = a; bit <= b; bit++) {
			if (seen & (1ull << bit))
				return -EINVAL;
			seen |= 1ull << bit;
			f->pos[f->nbits++] = bit;
		}
		if (!*s)
			return 0;
		if (*s != ',')
			return -EINVAL;
	}
}

/* Reads and parses PMU/format/term; -ENOENT when there is no such term. */
static int format_read(struct parse *p, const char *term, struct field *f)
{
	char path[PATH_MAX];
	int ret;

	ret = pmu_path(path, sizeof(path), p->root, p->pmu, "format", term);
	if (ret)
		return ret;
	ret = read_file_str(path, f->spec, sizeof(f->spec));
	if (ret == -ENOENT || ret == -ENOTDIR)
		return error__set(p->err, ENOENT,
				  "PMU '%s' has no format term '%s' (%s: %s)",
				  p->pmu, term, path, strerror(-ret));
	if (ret) {
		set_err(p, "invalid", "cannot read %s: %s", path,
			strerror(-ret));
		return ret;
	}
	ret = format_parse(f->spec, f);
	if (ret == -EOPNOTSUPP)
		set_err(p, "invalid",
			"term '%s' of PMU '%s' is placed in '%s', which is not supported",
			term, p->pmu, f->spec);
	else if (ret)
		set_err(p, "invalid",
			"bad format '%s' for term '%s' of PMU '%s'", f->spec,
			term, p->pmu);
	return ret;
}

static int unknown_term(struct parse *p, const char *term, bool bare)
{
	char list[256];

	list_formats(p, list, sizeof(list));
	set_err(p, "unknown", "PMU '%s' has no term %s'%s' (format terms: %s)",
		p->pmu, bare ? "or alias " : "", term, list);
	return -ENOENT;
}

static int add_terms(struct parse *p, char *list, const char *alias);

/* Expands the alias PMU/events/name into its terms. */
static int add_alias(struct parse *p, const char *name)
{
	char path[PATH_MAX], buf[ALIAS_LEN];
	int ret;

	ret = pmu_path(path, sizeof(path), p->root, p->pmu, "events", name);
	if (ret || is_companion(name))
		return unknown_term(p, name, true);
	ret = read_file_str(path, buf, sizeof(buf));
	if (ret == -ENOENT || ret == -ENOTDIR || ret == -EISDIR)
		return unknown_term(p, name, true);
	if (ret) {
		set_err(p, "invalid", "cannot read %s: %s", path,
			strerror(-ret));
		return ret;
	}
	return add_terms(p, buf, name);
}

/* perf's legacy names count on a core PMU only. */
static bool is_core_pmu(const struct parse *p)
{
	return p->type == PERF_TYPE_RAW || !strcmp(p->pmu, "cpu_core") ||
	       !strcmp(p->pmu, "cpu_atom");
}

static int add_term(struct parse *p, const char *name, uint64_t val)
{
	if (strlen(name) >= TERM_NAME_LEN)
		return unknown_term(p, name, false);
	if (p->nr == MAX_TERMS) {
		set_err(p, "invalid", "more than %d terms", MAX_TERMS);
		return -E2BIG;
	}
	strcpy(p->term[p->nr].name, name);
	p->term[p->nr].val = val;
	p->nr++;
	return 0;
}

static bool alias_exists(struct parse *p, const char *name)
{
	char path[PATH_MAX];

	return !pmu_path(path, sizeof(path), p->root, p->pmu, "events", name) &&
	       !is_companion(name) && access(path, F_OK) == 0;
}

/*
 * A bare word that is no format term: an alias of this PMU, a raw code
 * (software/r1a/), or perf's legacy name on a core PMU (cpu/cycles/).
 */
static int add_bare(struct parse *p, const char *word)
{
	char path[PATH_MAX];
	uint64_t raw;
	__u32 type;
	__u64 config;

	if (alias_exists(p, word))
		return add_alias(p, word);
	if (word[0] == 'r' && word[1]) {
		snprintf(path, sizeof(path), "0x%s",
			 word + 1 + 2 * !strncmp(word + 1, "0x", 2));
		if (!parse_u64(path, &raw))
			return add_term(p, "config", raw);
	}
	if (is_core_pmu(p) && perf_legacy__lookup(word, &type, &config)) {
		if (p->legacy) {
			set_err(p, "invalid", "two events, '%s' and '%s'",
				p->legacy, word);
			return -EINVAL;
		}
		p->legacy = word;
		p->legacy_type = type;
		p->legacy_config = config;
		return 0;
	}
	return unknown_term(p, word, true);
}

/* One term of a list; alias names the alias whose text holds it. */
static int add_one(struct parse *p, char *item, char *value, const char *alias,
		   const char *where)
{
	uint64_t val = 1;
	int ret;

	if (!*item) {
		set_err(p, "invalid", "empty term%s", where);
		return -EINVAL;
	}
	if (!is_term_name(item)) {
		set_err(p, "invalid", "bad term '%s'%s", item, where);
		return -EINVAL;
	}
	ret = perf_term__generic(item, value, p->input, p->display,
				 sizeof(p->display), p->err);
	if (ret <= 0)
		return ret;
	if (!value && !alias && !is_reserved(item) && !format_exists(p, item))
		return add_bare(p, item);
	if (!value && (!strcmp(item, "period") || !strcmp(item, "freq"))) {
		set_err(p, "invalid", "term '%s' needs a value%s", item, where);
		return -EINVAL;
	}
	if (value) {
		ret = parse_u64(value, &val);
		/* perf's event=ALIAS: the alias's terms, as if bare. */
		if (ret == -EINVAL && !alias && !strcmp(item, "event") &&
		    is_term_name(value) && alias_exists(p, value))
			return add_alias(p, value);
		if (ret == -ERANGE) {
			set_err(p, "invalid",
				"value '%s' of term '%s' is over 64 bits%s",
				value, item, where);
			return ret;
		}
		if (ret) {
			set_err(p, "invalid",
				"bad number '%s' for term '%s'%s%s%s", value,
				item, where,
				strcmp(item, "event") || alias ?
					"" :
					", nor is it an alias of PMU ",
				strcmp(item, "event") || alias ? "" : p->pmu);
			return -EINVAL;
		}
	}
	return add_term(p, item, val);
}

/*
 * Splits list ("event=0x3c,umask=1,edge") into p->term, expanding aliases
 * when alias is NULL; inside an alias's text, alias names the alias.
 */
static int add_terms(struct parse *p, char *list, const char *alias)
{
	char where[TERM_NAME_LEN + 32] = "";
	char *item, *value;
	int ret;

	if (alias)
		snprintf(where, sizeof(where), " in alias '%.*s'",
			 TERM_NAME_LEN, alias);
	while ((item = perf_terms__next(&list, &value))) {
		ret = add_one(p, item, value, alias, where);
		if (ret)
			return ret;
	}
	return 0;
}

/* Puts val into f's bits of regs, replacing what an earlier term put. */
static int field_place(struct parse *p, const struct term *t,
		       const struct field *f, uint64_t *regs)
{
	uint64_t mask = 0, bits = 0;

	if (f->nbits < 64 && t->val >> f->nbits) {
		set_err(p, "invalid",
			"value 0x%llx of term '%s' does not fit in %s (%d bit%s)",
			(unsigned long long)t->val, t->name, f->spec, f->nbits,
			f->nbits == 1 ? "" : "s");
		return -ERANGE;
	}
	for (int i = 0; i < f->nbits; i++) {
		mask |= 1ull << f->pos[i];
		if (t->val >> i & 1)
			bits |= 1ull << f->pos[i];
	}
	regs[f->reg] = (regs[f->reg] & ~mask) | bits;
	return 0;
}

/*
 * As perf does: config=, config1=, config2= set whole registers first,
 * then the format terms fill their bits in order, a later term winning.
 */
static int encode_terms(struct parse *p, struct perf_event_attr *attr,
			uint64_t *regs)
{
	bool period = false, freq = false;
	struct field f;
	int ret;

	for (int i = 0; i < p->nr; i++) {
		const struct term *t = &p->term[i];

		for (int r = 0; r < NR_REGS; r++) {
			if (!strcmp(t->name, reg_names[r]))
				regs[r] = t->val;
		}
		if (!strcmp(t->name, "period") || !strcmp(t->name, "freq")) {
			if (!t->val) {
				set_err(p, "invalid", "%s must be positive",
					t->name);
				return -ERANGE;
			}
			if (!strcmp(t->name, "period")) {
				attr->sample_period = t->val;
				period = true;
			} else {
				attr->sample_freq = t->val;
				attr->freq = 1;
				freq = true;
			}
		}
	}
	if (period && freq) {
		set_err(p, "invalid", "period and freq exclude each other");
		return -EINVAL;
	}
	for (int i = 0; i < p->nr; i++) {
		const struct term *t = &p->term[i];

		if (p->legacy &&
		    (!is_reserved(t->name) || !strcmp(t->name, "config"))) {
			set_err(p, "invalid",
				"legacy event '%s' takes no '%s' term: it is encoded by the kernel, not by PMU '%s''s formats",
				p->legacy, t->name, p->pmu);
			return -EINVAL;
		}
		if (is_reserved(t->name))
			continue;
		ret = format_read(p, t->name, &f);
		if (ret == -ENOENT)
			return unknown_term(p, t->name, false);
		if (ret)
			return ret;
		ret = field_place(p, t, &f, regs);
		if (ret)
			return ret;
	}
	return 0;
}

/* perf's modifiers, the event's own and then its group's. */
static int encode_mods(struct parse *p, const char *mods, const char *group,
		       struct perf_event_attr *attr, char *canon, size_t len,
		       bool *precise_max)
{
	struct perf_mods m = {};
	int ret = perf_mods__parse(mods, p->input, &m, p->err);

	if (!ret && group)
		ret = perf_mods__parse(group, p->input, &m, p->err);
	if (ret)
		return ret;
	perf_mods__apply(&m, attr);
	perf_mods__format(&m, canon, len);
	*precise_max = m.precise_max;
	return 0;
}

static int read_type(struct parse *p, __u32 *type)
{
	char path[PATH_MAX];
	long v;
	int ret;

	if (p->pmu[0] == '.' ||
	    pmu_path(path, sizeof(path), p->root, p->pmu, "type", NULL)) {
		set_err(p, "unknown", "no PMU '%s' in %s", p->pmu, p->root);
		return -ENOENT;
	}
	ret = read_file_long(path, &v);
	if (ret == -ENOENT || ret == -ENOTDIR) {
		set_err(p, "unknown", "no PMU '%s' in %s", p->pmu, p->root);
		return -ENOENT;
	}
	if (!ret && (v < 0 || v > UINT32_MAX))
		ret = -ERANGE;
	if (ret) {
		set_err(p, "invalid", "cannot read the type of PMU '%s': %s",
			p->pmu, strerror(-ret));
		return ret;
	}
	*type = v;
	return 0;
}

static int format_fstr(struct parse *p, const struct perf_event_attr *attr,
		       const uint64_t *regs, const char *mods, char *fstr,
		       size_t len)
{
	size_t n;

	if (p->legacy)
		n = snprintf(fstr, len, "%s/%s", p->pmu, p->legacy);
	else
		n = snprintf(fstr, len, "%s/config=0x%llx", p->pmu,
			     (unsigned long long)regs[0]);
	for (int r = 1; r < NR_REGS; r++) {
		if (regs[r] && n < len)
			n += snprintf(fstr + n, len - n, ",%s=0x%llx",
				      reg_names[r],
				      (unsigned long long)regs[r]);
	}
	if (attr->freq && n < len)
		n += snprintf(fstr + n, len - n, ",freq=%llu",
			      (unsigned long long)attr->sample_freq);
	else if (attr->sample_period && n < len)
		n += snprintf(fstr + n, len - n, ",period=%llu",
			      (unsigned long long)attr->sample_period);
	if (n < len)
		n += snprintf(fstr + n, len - n, "/%s", mods);
	if (n >= len) {
		set_err(p, "invalid", "its full form is over %zu characters",
			len - 1);
		return -ENAMETOOLONG;
	}
	return 0;
}

int sysfs_pmu__encode(const char *root, const char *name,
		      struct perf_event_attr *attr, char *fstr, size_t fstr_len,
		      struct error *err)
{
	struct perf_event_info info;
	int ret = sysfs_pmu__encode_event(root, name, NULL, attr, &info, err);

	if (!ret && fstr && fstr_len) {
		if (strlen(info.fstr) >= fstr_len)
			return error__set(
				err, ENAMETOOLONG,
				"invalid event '%s': its full form is over %zu characters",
				name, fstr_len - 1);
		strcpy(fstr, info.fstr);
	}
	return ret;
}

int sysfs_pmu__encode_event(const char *root, const char *name,
			    const char *group, struct perf_event_attr *attr,
			    struct perf_event_info *info, struct error *err)
{
	struct parse *p;
	struct perf_event_attr a;
	uint64_t regs[NR_REGS] = { 0 };
	const char *slash, *last;
	char *body = NULL, mods[16];
	bool precise_max = false;
	size_t pmu_len;
	int ret;

	if (err)
		err->msg[0] = '\0';
	p = calloc(1, sizeof(*p));
	if (!p)
		return error__set(err, ENOMEM, "out of memory");
	memset(info, 0, sizeof(*info));
	p->root = root ? root : sysfs_pmu__root();
	p->input = name;
	p->err = err;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);

	ret = -EINVAL;
	for (slash = name; is_pmu_char(*slash); slash++)
		;
	pmu_len = slash - name;
	last = strrchr(name, '/');
	if (!pmu_len || *slash != '/' || last == slash) {
		set_err(p, "invalid",
			"expected PMU/terms/ with modifiers u, k, h");
		goto out;
	}
	if (pmu_len >= sizeof(p->pmu)) {
		set_err(p, "unknown", "PMU name is over %zu characters",
			sizeof(p->pmu) - 1);
		ret = -ENAMETOOLONG;
		goto out;
	}
	memcpy(p->pmu, name, pmu_len);
	ret = encode_mods(p, last + 1, group, &a, mods, sizeof(mods),
			  &precise_max);
	if (ret)
		goto out;
	body = strndup(slash + 1, last - slash - 1);
	if (!body) {
		set_err(p, "invalid", "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	if (strchr(body, '/')) {
		set_err(p, "invalid", "'/' inside the term list");
		ret = -EINVAL;
		goto out;
	}
	ret = read_type(p, &a.type);
	if (ret)
		goto out;
	p->type = a.type;
	/* "PMU//" is perf's too: no terms, every register zero. */
	if (*body) {
		ret = add_terms(p, body, NULL);
		if (ret)
			goto out;
	}
	ret = encode_terms(p, &a, regs);
	if (ret)
		goto out;
	a.config = regs[0];
	a.config1 = regs[1];
	a.config2 = regs[2];
	if (p->legacy) {
		/* perf's extended type: which core PMU of a hybrid host. */
		a.config = p->legacy_config;
		if (a.type != PERF_TYPE_RAW)
			a.config |= (__u64)a.type << 32;
		a.type = p->legacy_type;
	}
	ret = format_fstr(p, &a, regs, mods, info->fstr, sizeof(info->fstr));
	if (ret)
		goto out;
	strcpy(info->display, p->display);
	info->precise_max = precise_max;
	*attr = a;
out:
	free(body);
	free(p);
	return ret;
}

static int is_event(const struct dirent *d)
{
	return d->d_name[0] != '.' && !is_companion(d->d_name);
}

static void free_ents(struct dirent **ents, int n)
{
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
}

/* The PMU's perf_event_attr.type, or -1 when it has none. */
static int pmu_type(const char *root, const char *pmu)
{
	char path[PATH_MAX];
	long type;

	if (pmu_path(path, sizeof(path), root, pmu, "type", NULL) ||
	    read_file_long(path, &type) || type < 0 || type > INT_MAX)
		return -1;
	return type;
}

/* Calls fn for each alias of one PMU; returns fn's first non-zero. */
static int pmu_for_each_event(const char *root, const char *pmu, int type,
			      int (*fn)(const struct sysfs_event *ev,
					void *ctx),
			      void *ctx)
{
	char path[PATH_MAX], terms[ALIAS_LEN];
	struct sysfs_event ev = { .pmu = pmu, .terms = terms, .type = type };
	struct dirent **ents;
	int n, ret = 0;

	if (pmu_path(path, sizeof(path), root, pmu, "events", NULL))
		return 0;
	n = scandir(path, &ents, is_event, by_name);
	if (n < 0)
		return 0;
	for (int i = 0; i < n && !ret; i++) {
		if (pmu_path(path, sizeof(path), root, pmu, "events",
			     ents[i]->d_name) ||
		    read_file_str(path, terms, sizeof(terms)))
			continue;
		ev.event = ents[i]->d_name;
		ret = fn(&ev, ctx);
	}
	free_ents(ents, n);
	return ret;
}

int sysfs_pmu__for_each_pmu(const char *root,
			    int (*fn)(const struct sysfs_event *pmu, void *ctx),
			    void *ctx)
{
	struct sysfs_event pmu = {};
	struct dirent **pmus;
	int n, ret = 0;

	if (!root)
		root = sysfs_pmu__root();
	n = scandir(root, &pmus, not_hidden, by_name);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n && !ret; i++) {
		pmu.pmu = pmus[i]->d_name;
		pmu.type = pmu_type(root, pmu.pmu);
		if (pmu.type >= 0)
			ret = fn(&pmu, ctx);
	}
	free_ents(pmus, n);
	return ret;
}

struct each_event {
	const char *root;
	int (*fn)(const struct sysfs_event *ev, void *ctx);
	void *ctx;
};

static int pmu_events(const struct sysfs_event *pmu, void *ctx)
{
	const struct each_event *e = ctx;

	return pmu_for_each_event(e->root, pmu->pmu, pmu->type, e->fn, e->ctx);
}

int sysfs_pmu__for_each_event(const char *root,
			      int (*fn)(const struct sysfs_event *ev,
					void *ctx),
			      void *ctx)
{
	struct each_event e = { root ? root : sysfs_pmu__root(), fn, ctx };

	return sysfs_pmu__for_each_pmu(e.root, pmu_events, &e);
}

struct type_cpus {
	const char *root;
	int type;
	char *buf;
	size_t len;
	int ret;
};

static int match_type(const struct sysfs_event *pmu, void *ctx)
{
	struct type_cpus *t = ctx;
	char path[PATH_MAX];

	if (pmu->type != t->type)
		return 0;
	t->ret = pmu_path(path, sizeof(path), t->root, pmu->pmu, "cpumask",
			  NULL);
	if (!t->ret)
		t->ret = read_file_str(path, t->buf, t->len);
	if (!t->ret && !t->buf[0])
		t->ret = -ENOENT;
	return 1;
}

int sysfs_pmu__cpumask(const char *root, int type, char *buf, size_t len)
{
	struct type_cpus t = { root ? root : sysfs_pmu__root(), type, buf, len,
			       -ENOENT };
	int ret = sysfs_pmu__for_each_pmu(t.root, match_type, &t);

	return ret < 0 ? ret : t.ret;
}
