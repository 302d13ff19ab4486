// SPDX-License-Identifier: GPL-2.0
/* The template: its directory, its pattern, the names it makes. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/util.h"
#include "sinks/publish_parts.h"

bool publish_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Extensions are matched without case: x.CSV.GZ compresses too. */
bool publish_has_ext(const char *s, const char *ext)
{
	size_t n = strlen(s), m = strlen(ext);

	return n >= m && !strcasecmp(s + n - m, ext);
}

/* The name's own ".csv.gz", ".csv" or ".gz", in its own case. */
const char *publish_ext_of(const char *name)
{
	static const char *const exts[] = { ".csv.gz", ".csv", ".gz" };

	for (size_t i = 0; i < ARRAY_SIZE(exts); i++)
		if (publish_has_ext(name, exts[i]))
			return name + strlen(name) - strlen(exts[i]);
	return name + strlen(name);
}

/*
 * The file name's pattern, for strftime (glob false) or for fnmatch
 * (glob true: numeric conversions become digit classes, others '*'),
 * with the start time inserted before the extension when the template
 * has no conversion of its own (stamp), and a "-N" suffix (seq > 0, or
 * any N for a glob).
 */
static int name_pattern(const struct publisher *p, bool stamp, bool glob,
			unsigned seq, char *out, size_t len)
{
	static const struct {
		char conv;
		const char *digits;
	} numeric[] = {
		{ 'Y', "[0-9][0-9][0-9][0-9]" }, { 'm', "[0-9][0-9]" },
		{ 'd', "[0-9][0-9]" },		 { 'H', "[0-9][0-9]" },
		{ 'M', "[0-9][0-9]" },		 { 'S', "[0-9][0-9]" },
		{ 'j', "[0-9][0-9][0-9]" },
	};
	size_t stem = strlen(p->base) - strlen(p->ext), pos = 0;
	char src[NAME_LEN + 64];
	int n;

	n = snprintf(src, sizeof(src), "%.*s%s", (int)stem, p->base,
		     stamp ? "-%Y%m%dT%H%M%SZ" : "");
	if (seq && !glob)
		n += snprintf(src + n, sizeof(src) - n, "-%u", seq);
	else if (seq)
		n += snprintf(src + n, sizeof(src) - n, "-%%#");
	snprintf(src + n, sizeof(src) - n, "%s", p->ext);

	for (const char *s = src; *s && pos + 32 < len; s++) {
		const char *put = NULL;
		char one[3] = { *s, 0, 0 };

		if (*s != '%') {
			if (glob && strchr("*?[]\\", *s)) {
				one[0] = '\\';
				one[1] = *s;
			}
			put = one;
		} else if (!*++s) {
			return -EINVAL;
		} else if (*s == 'h') {
			put = p->o.host; /* no '%' or glob character in a host */
		} else if (*s == '#') {
			put = "[0-9]*";
		} else if (!glob) {
			one[0] = '%';
			one[1] = *s;
			put = one;
		} else if (*s == '%') {
			put = "%";
		} else {
			put = "*";
			for (size_t i = 0; i < ARRAY_SIZE(numeric); i++)
				if (numeric[i].conv == *s)
					put = numeric[i].digits;
		}
		n = snprintf(out + pos, len - pos, "%s", put);
		pos += n;
	}
	return pos + 32 < len ? 0 : -ENAMETOOLONG;
}

bool publish_needs_stamp(const struct publisher *p)
{
	return !p->has_conversion &&
	       (p->o.rotate_s || p->o.rotate_bytes || p->files_made > 0);
}

int publish_make_name(const struct publisher *p, uint64_t start_ns,
		      unsigned seq, char *out, size_t len)
{
	char fmt[NAME_LEN * 2];
	time_t t = start_ns / 1000000000ull;
	struct tm tm;
	int err;

	err = name_pattern(p, publish_needs_stamp(p), false, seq, fmt,
			   sizeof(fmt));
	if (err)
		return err;
	gmtime_r(&t, &tm);
	if (!strftime(out, len, fmt, &tm))
		return -ENAMETOOLONG;
	return strchr(out, '/') || !strcmp(out, ".") || !strcmp(out, "..") ?
		       -EINVAL :
		       0;
}

/* Is name one of this template's published files? */
bool publish_name_matches(const struct publisher *p, const char *name)
{
	char pat[NAME_LEN * 4];

	for (int stamp = 0; stamp < 2; stamp++) {
		if (stamp && p->has_conversion)
			continue;
		for (int seq = 0; seq < 2; seq++)
			if (!name_pattern(p, stamp, true, seq, pat,
					  sizeof(pat)) &&
			    !fnmatch(pat, name, 0))
				return true;
	}
	return false;
}

/* mkdir -p, each new directory 0750. */
int publish_make_dirs(char *path)
{
	struct stat st;

	if (!stat(path, &st))
		return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	for (char *s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(path, 0750) && errno != EEXIST) {
			*s = '/';
			return -errno;
		}
		*s = '/';
	}
	return mkdir(path, 0750) && errno != EEXIST ? -errno : 0;
}

int publish_split_template(struct publisher *p, struct error *err)
{
	const char *t = p->o.template, *slash = strrchr(t, '/');
	const char *base = slash ? slash + 1 : t;

	if (slash == t)
		snprintf(p->dir, sizeof(p->dir), "/");
	else
		snprintf(p->dir, sizeof(p->dir), "%.*s",
			 slash ? (int)(slash - t) : 1, slash ? t : ".");
	if (strchr(p->dir, '%'))
		return error__set(
			err, EINVAL,
			"output '%s': strftime conversions go in the file name, not in its directory",
			t);
	if (!*base || strlen(base) >= sizeof(p->base) - 64)
		return error__set(
			err, EINVAL,
			"output '%s': want a file name of 1 to %zu bytes", t,
			sizeof(p->base) - 64);
	snprintf(p->base, sizeof(p->base), "%s", base);
	p->gzip = publish_has_ext(base, ".gz");
	snprintf(p->ext, sizeof(p->ext), "%s", publish_ext_of(base));
	for (const char *s = base; *s; s++)
		if (*s == '%' && s[1] && s[1] != '%' && s[1] != 'h')
			p->has_conversion = true;
		else if (*s == '%' && s[1])
			s++;
	return 0;
}
