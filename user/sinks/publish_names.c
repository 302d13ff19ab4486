// SPDX-License-Identifier: GPL-2.0
/* The template: its directory, its pattern, the names it makes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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
 * A conversion at s, past its '%': flags, width and an E or O modifier,
 * then its letter. Returns its length past the '%' (0: the template
 * ends there); *plain: none of flags, width or modifier.
 */
static size_t conv_parse(const char *s, char *letter, bool *plain)
{
	size_t i = strspn(s, "_-0^#");

	while (s[i] >= '0' && s[i] <= '9')
		i++;
	if (s[i] == 'E' || s[i] == 'O')
		i++;
	*letter = s[i];
	*plain = i == 0;
	return s[i] ? i + 1 : 0;
}

/* What strftime makes of a conversion in the C locale, in UTC. */
static const char *const day_names[] = { "Sunday",    "Monday",	  "Tuesday",
					 "Wednesday", "Thursday", "Friday",
					 "Saturday" };
static const char *const month_names[] = { "January", "February", "March",
					   "April",   "May",	  "June",
					   "July",    "August",	  "September",
					   "October", "November", "December" };
static const char *const ampm[] = { "AM", "PM" }, *const ampm_lower[] = {
	"am", "pm"
};

/* The conversions made of others, as glibc's C locale spells them. */
static const char *composite(char c)
{
	switch (c) {
	case 'c':
		return "%a %b %e %H:%M:%S %Y";
	case 'D':
	case 'x':
		return "%m/%d/%y";
	case 'F':
		return "%Y-%m-%d";
	case 'r':
		return "%I:%M:%S %p";
	case 'R':
		return "%H:%M";
	case 'T':
	case 'X':
		return "%H:%M:%S";
	default:
		return NULL;
	}
	return NULL;
}

/* Numbers: digits (space-padded for e, k and l), and their range. */
static const struct {
	char conv;
	unsigned char width;
	bool space;
	short lo, hi;
} numbers[] = {
	{ 'Y', 4, false, 0, 9999 }, { 'G', 4, false, 0, 9999 },
	{ 'C', 2, false, 0, 99 },   { 'y', 2, false, 0, 99 },
	{ 'g', 2, false, 0, 99 },   { 'm', 2, false, 1, 12 },
	{ 'd', 2, false, 1, 31 },   { 'e', 2, true, 1, 31 },
	{ 'H', 2, false, 0, 23 },   { 'k', 2, true, 0, 23 },
	{ 'I', 2, false, 1, 12 },   { 'l', 2, true, 1, 12 },
	{ 'M', 2, false, 0, 59 },   { 'S', 2, false, 0, 60 },
	{ 'j', 3, false, 1, 366 },  { 'u', 1, false, 1, 7 },
	{ 'w', 1, false, 0, 6 },    { 'U', 2, false, 0, 53 },
	{ 'W', 2, false, 0, 53 },   { 'V', 2, false, 1, 53 },
};

static bool is_known(char c)
{
	if (c && strchr("aAbBhpPsZzn t%", c))
		return c != ' ';
	if (composite(c))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(numbers); i++)
		if (numbers[i].conv == c)
			return true;
	return false;
}

/* The time fields a name's conversions gave; -1: not in the name. */
struct when {
	int year, century, yy, mon, mday, yday, hour, hour12, pm, min, sec;
	long long epoch;
};

static void when_set(struct when *w, char c, long long v)
{
	switch (c) {
	case 'Y':
		w->year = v;
		break;
	case 'G': /* the ISO year: near enough where %Y is missing */
		if (w->year < 0)
			w->year = v;
		break;
	case 'C':
		w->century = v;
		break;
	case 'y':
	case 'g':
		w->yy = v;
		break;
	case 'm':
		w->mon = v - 1;
		break;
	case 'd':
	case 'e':
		w->mday = v;
		break;
	case 'j':
		w->yday = v - 1;
		break;
	case 'H':
	case 'k':
		w->hour = v;
		break;
	case 'I':
	case 'l':
		w->hour12 = v % 12;
		break;
	case 'M':
		w->min = v;
		break;
	case 'S':
		w->sec = v;
		break;
	case 's':
		w->epoch = v;
		break;
	default:
		break;
	}
}

/* The time a name says, in seconds: what retention orders by. */
static long long when_time(const struct when *w)
{
	struct tm tm = { .tm_mday = 1 };
	int year = w->year;

	if (w->epoch >= 0)
		return w->epoch;
	if (year < 0 && w->yy >= 0)
		year = w->century >= 0 ? w->century * 100 + w->yy :
		       w->yy < 69      ? 2000 + w->yy :
					 1900 + w->yy;
	tm.tm_year = (year < 0 ? 1970 : year) - 1900;
	if (w->mon >= 0)
		tm.tm_mon = w->mon;
	if (w->mday >= 0)
		tm.tm_mday = w->mday;
	else if (w->yday >= 0 && w->mon < 0)
		tm.tm_mday = 1 + w->yday; /* timegm normalises */
	tm.tm_hour = w->hour >= 0   ? w->hour :
		     w->hour12 >= 0 ? w->hour12 + 12 * (w->pm > 0) :
				      0;
	tm.tm_min = w->min >= 0 ? w->min : 0;
	tm.tm_sec = w->sec >= 0 ? w->sec : 0;
	return timegm(&tm);
}

struct matching {
	const char *name, *ext;
	struct name_info *info;
};

/* The "-N" bpmc adds to a taken name (1 to 999, no leading zero), the
 * extension, and the end: nothing else may follow. */
static bool match_tail(const struct matching *m, const char *s,
		       const struct when *w)
{
	unsigned seq = 0;
	const char *at = s;

	if (s[0] == '-' && s[1] >= '1' && s[1] <= '9') {
		s++;
		while (*s >= '0' && *s <= '9' && seq < 1000)
			seq = seq * 10 + (*s++ - '0');
		if (seq >= 1000 || strcmp(s, m->ext))
			return false;
	} else if (strcmp(s, m->ext)) {
		return false;
	}
	if (m->info) {
		m->info->time = when_time(w);
		m->info->seq = seq;
		m->info->stem_len = at - m->name;
	}
	return true;
}

static bool match_at(const struct matching *m, const char *pat, const char *s,
		     struct when w);

/* One of words at s, then the rest. */
static bool match_word(const struct matching *m, const char *pat, const char *s,
		       struct when w, const char *const *words, size_t nr,
		       size_t len, char conv)
{
	for (size_t i = 0; i < nr; i++) {
		size_t n = len ? len : strlen(words[i]);

		if (strncmp(s, words[i], n) || strlen(words[i]) < n)
			continue;
		if (conv == 'b' || conv == 'B')
			w.mon = i;
		else if (conv == 'p' || conv == 'P')
			w.pm = i;
		if (match_at(m, pat, s + n, w))
			return true;
	}
	return false;
}

static bool match_number(const struct matching *m, const char *pat,
			 const char *s, struct when w, size_t k)
{
	long long v = 0;
	size_t i = 0;

	if (numbers[k].space && s[0] == ' ')
		i = 1;
	for (; i < numbers[k].width; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	if (v < numbers[k].lo || v > numbers[k].hi ||
	    (numbers[k].space && s[0] != ' ' && v < 10))
		return false;
	when_set(&w, numbers[k].conv, v);
	return match_at(m, pat, s + numbers[k].width, w);
}

/*
 * Does s match the flat pattern pat ("%%", plain conversions, and
 * "%*" for one with flags: anything but a '/'), then the tail?
 */
static bool match_at(const struct matching *m, const char *pat, const char *s,
		     struct when w)
{
	char c;

	for (; *pat && *pat != '%'; pat++, s++)
		if (*pat != *s)
			return false;
	if (!*pat)
		return match_tail(m, s, &w);
	c = pat[1];
	pat += 2;
	switch (c) {
	case '%':
		return *s == '%' && match_at(m, pat, s + 1, w);
	case '*':
		for (size_t n = 1; s[n - 1] && s[n - 1] != '/'; n++)
			if (match_at(m, pat, s + n, w))
				return true;
		return false;
	case 'a':
		return match_word(m, pat, s, w, day_names, 7, 3, c);
	case 'A':
		return match_word(m, pat, s, w, day_names, 7, 0, c);
	case 'b':
		return match_word(m, pat, s, w, month_names, 12, 3, c);
	case 'B':
		return match_word(m, pat, s, w, month_names, 12, 0, c);
	case 'p':
		return match_word(m, pat, s, w, ampm, 2, 0, c);
	case 'P':
		return match_word(m, pat, s, w, ampm_lower, 2, 0, c);
	case 'Z':
		return !strncmp(s, "GMT", 3) && match_at(m, pat, s + 3, w);
	case 'z':
		return !strncmp(s, "+0000", 5) && match_at(m, pat, s + 5, w);
	case 's': {
		/* Seconds since the epoch: no leading zero, longest first. */
		size_t n = strspn(s, "0123456789");
		char digits[20];

		if (n > 1 && s[0] == '0')
			n = 1;
		if (n >= sizeof(digits))
			n = sizeof(digits) - 1;
		for (; n > 0; n--) {
			memcpy(digits, s, n);
			digits[n] = '\0';
			w.epoch = strtoll(digits, NULL, 10);
			if (match_at(m, pat, s + n, w))
				return true;
		}
		return false;
	}
	default:
		break;
	}
	for (size_t k = 0; k < ARRAY_SIZE(numbers); k++)
		if (numbers[k].conv == c)
			return match_number(m, pat, s, w, k);
	return false;
}

/*
 * The file name's pattern for strftime, with the start time inserted
 * before the extension when the template has no conversion of its own
 * (stamp), and a "-N" suffix (seq > 0). %h is the host, its '%' doubled.
 */
static int name_pattern(const struct publisher *p, bool stamp, unsigned seq,
			char *out, size_t len)
{
	size_t stem = strlen(p->base) - strlen(p->ext), pos = 0;
	char src[NAME_LEN + 64];
	int n;

	n = snprintf(src, sizeof(src), "%.*s%s", (int)stem, p->base,
		     stamp ? "-%Y%m%dT%H%M%SZ" : "");
	if (seq)
		n += snprintf(src + n, sizeof(src) - n, "-%u", seq);
	snprintf(src + n, sizeof(src) - n, "%s", p->ext);

	for (const char *s = src; *s && pos + 2 < len; s++) {
		if (*s != '%') {
			out[pos++] = *s;
		} else if (!*++s) {
			return -EINVAL;
		} else if (*s == 'h') {
			for (const char *h = p->o.host; *h && pos + 3 < len;
			     h++) {
				if (*h == '%')
					out[pos++] = '%';
				out[pos++] = *h;
			}
		} else {
			out[pos++] = '%';
			out[pos++] = *s;
		}
	}
	out[pos] = '\0';
	return pos + 32 < len ? 0 : -ENAMETOOLONG;
}

/*
 * The pattern a name is matched against: the stem (and stamp), %h the
 * host, every conversion made of others spelt out, one with flags,
 * width or modifier "%*" (anything but a '/').
 */
static int flat_pattern(const struct publisher *p, bool stamp, char *out,
			size_t len)
{
	size_t stem = strlen(p->base) - strlen(p->ext), pos = 0, n;
	char src[NAME_LEN + 64], letter;
	const char *put;
	bool plain;

	snprintf(src, sizeof(src), "%.*s%s", (int)stem, p->base,
		 stamp ? "-%Y%m%dT%H%M%SZ" : "");
	for (const char *s = src; *s; s++) {
		char one[3] = { *s, 0, 0 };
		bool host = false;

		put = one;
		if (*s == '%') {
			n = conv_parse(s + 1, &letter, &plain);
			if (!n)
				return -EINVAL;
			s += n;
			one[0] = '%';
			one[1] = plain ? letter : '*';
			host = plain && letter == 'h';
			if (host)
				put = p->o.host;
			else if (plain && composite(letter))
				put = composite(letter);
		}
		for (; *put; put++) {
			if (pos + 3 >= len)
				return -ENAMETOOLONG;
			if (host && *put == '%')
				out[pos++] = '%';
			out[pos++] = *put;
		}
	}
	out[pos] = '\0';
	return 0;
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

	err = name_pattern(p, publish_needs_stamp(p), seq, fmt, sizeof(fmt));
	if (err)
		return err;
	gmtime_r(&t, &tm);
	if (!strftime(out, len, fmt, &tm))
		return -ENAMETOOLONG;
	return strchr(out, '/') || !strcmp(out, ".") || !strcmp(out, "..") ?
		       -EINVAL :
		       0;
}

bool publish_name_parse(const struct publisher *p, const char *name,
			struct name_info *info)
{
	struct when none = { -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 };
	struct matching m = { .name = name, .ext = p->ext, .info = info };
	char pat[NAME_LEN * 4];

	for (int stamp = 0; stamp < 2; stamp++) {
		if (stamp && p->has_conversion)
			continue;
		if (!flat_pattern(p, stamp, pat, sizeof(pat)) &&
		    match_at(&m, pat, name, none))
			return true;
	}
	return false;
}

bool publish_name_matches(const struct publisher *p, const char *name)
{
	return publish_name_parse(p, name, NULL);
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

/*
 * Every conversion of the file name: one strftime knows, none that can
 * make a '/' or a control character, and with --keep or --max-disk none
 * whose output retention cannot tell from anything else (flags, width,
 * E or O): it would delete files the template never made.
 */
static int check_conversions(struct publisher *p, struct error *err)
{
	const char *t = p->o.template;
	bool retention = p->o.keep || p->o.max_disk, plain;
	char letter;
	size_t n;

	for (const char *s = p->base; *s; s++) {
		if (*s != '%')
			continue;
		n = conv_parse(s + 1, &letter, &plain);
		if (!n || !is_known(letter) ||
		    (!plain && (letter == 'h' || letter == '%')))
			return error__set(
				err, EINVAL,
				"output '%s': '%%%.*s' is no strftime conversion (%%h is the host, %%%% a '%%')",
				t, (int)(n ? n : 1), s + 1);
		if (letter == 'n' || letter == 't')
			return error__set(
				err, EINVAL,
				"output '%s': '%%%.*s' would put a %s in the file name",
				t, (int)n, s + 1,
				letter == 'n' ? "newline" : "tab");
		if (letter == 'D' || letter == 'x')
			return error__set(
				err, EINVAL,
				"output '%s': '%%%.*s' makes a '/', which cannot be in a file name (%%F makes YYYY-MM-DD)",
				t, (int)n, s + 1);
		if (!plain && retention)
			return error__set(
				err, EINVAL,
				"output '%s': --keep and --max-disk cannot tell the files '%%%.*s' makes from others: write it without flags, width or E/O",
				t, (int)n, s + 1);
		if (letter != 'h' && letter != '%')
			p->has_conversion = true;
		s += n;
	}
	return 0;
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
	return check_conversions(p, err);
}
