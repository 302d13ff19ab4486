// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "common/util.h"

bool verbose;

/*
 * Messages name their culprit, which may be anybody's bytes (an event
 * name, a path): a control character or a byte that is not UTF-8 is
 * written \\xHH, so that none reaches the terminal and a message stays
 * one line.
 */
static void vprint(const char *prefix, const char *fmt, va_list ap)
{
	char msg[4096], out[4 * sizeof(msg)];
	struct strbuf b;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	strbuf__init(&b, out, sizeof(out), 0);
	escape_message(&b, msg);
	fprintf(stderr, "bpmc: %s%s\n", prefix, out);
}

#define DEFINE_PRINTER(name, prefix)     \
	void name(const char *fmt, ...)  \
	{                                \
		va_list ap;              \
                                         \
		va_start(ap, fmt);       \
		vprint(prefix, fmt, ap); \
		va_end(ap);              \
	}

DEFINE_PRINTER(p_err, "")
DEFINE_PRINTER(p_warn, "warning: ")
DEFINE_PRINTER(p_info, "")

int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	/* strtol would skip leading blanks: a whole-string parse must not. */
	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	bool hex = s && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');

	/* strtoull accepts blanks and a minus sign; we accept neither, and
	 * a leading zero means decimal, not octal. */
	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	if (hex && !isxdigit((unsigned char)s[2]))
		return -EINVAL;
	errno = 0;
	v = strtoull(hex ? s + 2 : s, &end, hex ? 16 : 10);
	if (*end)
		return -EINVAL;
	if (errno)
		return -ERANGE;
	*out = v;
	return 0;
}

const struct unit_suffix duration_units[] = {
	{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 0 },
};
const struct unit_suffix size_units[] = {
	{ 'K', 1ull << 10 },
	{ 'M', 1ull << 20 },
	{ 'G', 1ull << 30 },
	{ 'T', 1ull << 40 },
	{ 0 },
};

int parse_with_unit(const char *s, const struct unit_suffix *units,
		    bool bare_ok, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	if (!*end) {
		if (!bare_ok)
			return -EINVAL;
		*out = v;
		return 0;
	}
	if (end[1])
		return -EINVAL;
	for (const struct unit_suffix *u = units; u->letter; u++) {
		if (u->letter != *end)
			continue;
		if (v > UINT64_MAX / u->scale)
			return -ERANGE;
		*out = v * u->scale;
		return 0;
	}
	return -EINVAL;
}

uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int reserve_blocks(int fd, uint64_t at, size_t len)
{
	if (!len || !fallocate(fd, FALLOC_FL_KEEP_SIZE, at, len))
		return 0;
	switch (errno) {
	case EOPNOTSUPP:
	case ENOSYS:
	case ESPIPE:
	case ENODEV:
	case EINVAL:
		return 0;
	default:
		break;
	}
	return -errno;
}

int read_file_str(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

bool comma_list_has(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && (p = strstr(p, word)); p += n) {
		if ((p == list || p[-1] == ',') && (!p[n] || p[n] == ','))
			return true;
	}
	return false;
}

int read_file_long(const char *path, long *out)
{
	char buf[64];
	int err = read_file_str(path, buf, sizeof(buf));

	if (err)
		return err;
	return parse_long(buf, -__LONG_MAX__ - 1, __LONG_MAX__, out);
}

int cpulist_parse(const char *list, bool *cpus, int max_cpus)
{
	const char *p = list;
	char *end;
	long a, b;

	memset(cpus, 0, max_cpus * sizeof(*cpus));
	while (*p) {
		a = strtol(p, &end, 10);
		if (end == p)
			return -EINVAL;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p)
				return -EINVAL;
		}
		if (a < 0 || b < a || b >= max_cpus)
			return -ERANGE;
		for (long c = a; c <= b; c++)
			cpus[c] = true;
		p = end;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
		else
			break;
	}
	return 0;
}

unsigned edit_distance(const char *a, const char *b)
{
	unsigned row[256], diag, up, cost;
	size_t la = strnlen(a, 255), lb = strnlen(b, 255);

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			up = row[j];
			cost = tolower((unsigned char)a[i - 1]) !=
			       tolower((unsigned char)b[j - 1]);
			row[j] = diag + cost;
			if (up + 1 < row[j])
				row[j] = up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
		}
	}
	return row[lb];
}

int cpus_possible(void)
{
	char buf[4096], *p;
	long last;

	int err = read_file_str("/sys/devices/system/cpu/possible", buf,
				sizeof(buf));

	if (err)
		return err;
	/* "0-3,8-11": the number after the last separator is the highest. */
	p = buf + strcspn(buf, "\n");
	while (p > buf && p[-1] != '-' && p[-1] != ',')
		p--;
	err = parse_long(p, 0, 1 << 20, &last);
	return err ? err : (int)last + 1;
}

int cpus_online(bool *cpus, int max_cpus)
{
	char buf[4096];
	int err = read_file_str(CPUS_ONLINE_PATH, buf, sizeof(buf));

	return err ? err : cpulist_parse(buf, cpus, max_cpus);
}

int write_full(int fd, const void *data, size_t len)
{
	const char *p = data;
	ssize_t w;

	while (len) {
		w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		len -= w;
	}
	return 0;
}
