// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "common/util.h"
#include "names/perf_grammar.h"
#include "names/tracepoint.h"

#define PART_LEN 128

static bool is_tp_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.' ||
	       c == '*' || c == '?';
}

/* Copies one name part up to ':' or the end; NULL when it is bad. */
static const char *take_part(const char *s, char *out)
{
	size_t n = 0;

	while (is_tp_char(*s) && n < PART_LEN - 1)
		out[n++] = *s++;
	out[n] = '\0';
	/* No "." or "..": a part names a directory under events/. */
	return n && out[0] != '.' && (!*s || *s == ':') ? s : NULL;
}

bool tracepoint__is_syntax(const char *name)
{
	char subsys[PART_LEN], event[PART_LEN];
	const char *s = take_part(name, subsys);

	if (!s || *s != ':')
		return false;
	s = take_part(s + 1, event);
	return s && (!*s || perf_mods__is_syntax(s + 1));
}

/* Where tracefs is mounted, from /proc/self/mountinfo. */
static bool find_tracefs(char *root, size_t len)
{
	char line[4096], mnt[PATH_MAX], *dash;
	FILE *f = fopen("/proc/self/mountinfo", "r");
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		dash = strstr(line, " - ");
		if (!dash || strncmp(dash + 3, "tracefs ", 8))
			continue;
		/* Mount points with blanks are written \040: not ours. */
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 &&
		    !strchr(mnt, '\\')) {
			found = snprintf(root, len, "%s", mnt) < (int)len;
		}
	}
	fclose(f);
	return found;
}

/* The tracefs root: $BPMC_TRACEFS_ROOT, a mount, or one made now. */
static int tracefs_root(char *root, size_t len, struct error *err)
{
	const char *env = secure_getenv("BPMC_TRACEFS_ROOT");

	if (env && *env) {
		snprintf(root, len, "%s", env);
		return 0;
	}
	if (find_tracefs(root, len))
		return 0;
	if (mount("nodev", TRACEFS_MOUNT_POINT, "tracefs", 0, NULL))
		return error__set(
			err, errno,
			"tracefs is not mounted, and mounting it at %s failed: %s (as root: mount -t tracefs nodev %s)",
			TRACEFS_MOUNT_POINT, strerror(errno),
			TRACEFS_MOUNT_POINT);
	snprintf(root, len, "%s", TRACEFS_MOUNT_POINT);
	return 0;
}

int tracepoint__encode(const char *name, const char *group,
		       struct perf_event_attr *attr, char *fstr,
		       size_t fstr_len, struct error *err)
{
	char subsys[PART_LEN], event[PART_LEN], root[PATH_MAX / 2],
		path[PATH_MAX];
	char mods_text[16];
	struct perf_mods m = {};
	const char *s = take_part(name, subsys), *mods = "";
	long id;
	int ret;

	if (!s || *s != ':' || !(s = take_part(s + 1, event)))
		return error__set(err, EINVAL, "bad tracepoint '%s'", name);
	if (*s)
		mods = s + 1;
	if (strpbrk(subsys, "*?") || strpbrk(event, "*?"))
		return error__set(
			err, EINVAL,
			"tracepoint '%s' is a wildcard, which bpmc does not expand: name each tracepoint",
			name);
	ret = perf_mods__parse(mods, name, &m, err);
	if (!ret && group)
		ret = perf_mods__parse(group, name, &m, err);
	if (ret)
		return ret;
	ret = tracefs_root(root, sizeof(root), err);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, subsys, event);
	ret = read_file_long(path, &id);
	if (ret == -ENOENT || ret == -ENOTDIR)
		return error__set(err, ENOENT,
				  "no tracepoint %s:%s in %s/events", subsys,
				  event, root);
	if (!ret && (id < 0 || id > UINT32_MAX))
		ret = -ERANGE;
	if (ret)
		return error__set(err, ret, "cannot read %s: %s", path,
				  strerror(-ret));
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = id;
	perf_mods__apply(&m, attr);
	perf_mods__format(&m, mods_text, sizeof(mods_text));
	snprintf(fstr, fstr_len, "%s:%s%s%s", subsys, event,
		 mods_text[0] ? ":" : "", mods_text);
	return 0;
}
