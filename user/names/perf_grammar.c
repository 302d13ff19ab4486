// SPDX-License-Identifier: GPL-2.0
/*
 * perf's event grammar where libpfm has none or reads it otherwise:
 * modifiers, terms, raw, TYPE:CONFIG and breakpoints. perf's meaning of
 * a letter wins for these names (libpfm's H is the hypervisor, perf's is
 * host only).
 */
#include <ctype.h>
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "names/perf_grammar.h"

/* Letters perf knows; the last four bpmc refuses (perf_mods__parse). */
static const char mod_letters[] = "ukhHGIDepPSWbR";

bool perf_mods__is_syntax(const char *s)
{
	for (; *s; s++) {
		if (!strchr(mod_letters, *s))
			return false;
	}
	return true;
}

static const char *refused_reason(char c)
{
	switch (c) {
	case 'S':
		return "leader sampling reads a group from perf's samples, and bpmc reads every member itself";
	case 'W':
		return "weak groups are a perf record fallback; bpmc refuses a group that cannot open";
	case 'b':
		return "bpmc counts through BPF already";
	case 'R':
		return "retire latency is a sample field, and bpmc takes no samples to user space";
	default:
		break;
	}
	return NULL;
}

int perf_mods__parse(const char *mods, const char *input, struct perf_mods *m,
		     struct error *err)
{
	for (const char *c = mods; *c; c++) {
		const char *why = refused_reason(*c);

		if (why)
			return error__set(
				err, EINVAL,
				"modifier '%c' of event '%s' is not supported: %s",
				*c, input, why);
		switch (*c) {
		case 'u':
			m->u = true;
			break;
		case 'k':
			m->k = true;
			break;
		case 'h':
			m->h = true;
			break;
		case 'H':
			m->host = true;
			break;
		case 'G':
			m->guest = true;
			break;
		case 'I':
			m->no_idle = true;
			break;
		case 'D':
			m->pinned = true;
			break;
		case 'e':
			m->exclusive = true;
			break;
		case 'P':
			m->precise_max = true;
			break;
		case 'p':
			if (++m->precise > 3)
				return error__set(
					err, EINVAL,
					"modifier 'p' of event '%s' is given more than 3 times: precise_ip goes up to 3 (ppp)",
					input);
			break;
		default:
			return error__set(
				err, EINVAL,
				"bad modifier '%c' in event '%s': perf's are u, k, h, H, G, I, D, e, p, P",
				isprint((unsigned char)*c) ? *c : '?', input);
		}
	}
	return 0;
}

void perf_mods__apply(const struct perf_mods *m, struct perf_event_attr *attr)
{
	if (m->u || m->k || m->h) {
		attr->exclude_user = !m->u;
		attr->exclude_kernel = !m->k;
		attr->exclude_hv = !m->h;
	}
	if (m->host != m->guest) {
		attr->exclude_guest = m->host;
		attr->exclude_host = m->guest;
	} else if (m->host) {
		attr->exclude_guest = 0;
		attr->exclude_host = 0;
	}
	if (m->no_idle)
		attr->exclude_idle = 1;
	if (m->pinned)
		attr->pinned = 1;
	if (m->exclusive)
		attr->exclusive = 1;
	if (m->precise)
		attr->precise_ip = m->precise;
}

void perf_mods__format(const struct perf_mods *m, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s%s%s%s%.*s%s", m->u ? "u" : "",
		 m->k ? "k" : "", m->h ? "h" : "", m->host ? "H" : "",
		 m->guest ? "G" : "", m->no_idle ? "I" : "",
		 m->pinned ? "D" : "", m->exclusive ? "e" : "", m->precise,
		 "ppp", m->precise_max ? "P" : "");
}

void perf_mods__from_attr(const struct perf_event_attr *attr,
			  struct perf_mods *m)
{
	memset(m, 0, sizeof(*m));
	if (attr->exclude_user || attr->exclude_kernel || attr->exclude_hv) {
		m->u = !attr->exclude_user;
		m->k = !attr->exclude_kernel;
		m->h = !attr->exclude_hv;
	}
	m->host = attr->exclude_guest;
	m->guest = attr->exclude_host;
	m->no_idle = attr->exclude_idle;
	m->pinned = attr->pinned;
	m->exclusive = attr->exclusive;
	m->precise = attr->precise_ip;
}

int perf_term__generic(const char *term, const char *value, const char *input,
		       char *display, size_t display_len, struct error *err)
{
	if (!strcmp(term, "name")) {
		if (!value || !*value)
			return error__set(
				err, EINVAL,
				"term 'name' of event '%s' needs a value",
				input);
		if (strlen(value) >= display_len)
			return error__set(
				err, ENAMETOOLONG,
				"term 'name' of event '%s' is over %zu characters",
				input, display_len - 1);
		strcpy(display, value);
		return 0;
	}
	if (!strcmp(term, "time")) {
		/* Rows carry their interval's time whatever this says. */
		if (value && strcmp(value, "0") && strcmp(value, "1"))
			return error__set(
				err, EINVAL,
				"term 'time=%s' of event '%s': want time, time=0 or time=1",
				value, input);
		return 0;
	}
	if (!strcmp(term, "call-graph")) {
		if (value && !strcmp(value, "no"))
			return 0;
		return error__set(
			err, EOPNOTSUPP,
			"term 'call-graph%s%s' of event '%s' is not supported: bpmc counts and keeps no call chains (call-graph=no is taken)",
			value ? "=" : "", value ? value : "", input);
	}
	return 1;
}

char *perf_terms__next(char **cursor, char **value)
{
	char *term = *cursor, *p, *eq = NULL;
	bool quoted = false;

	if (!term)
		return NULL;
	for (p = term; *p && (quoted || *p != ','); p++) {
		if (*p == '\'')
			quoted = !quoted;
		else if (*p == '=' && !eq && !quoted)
			eq = p;
	}
	*cursor = *p ? p + 1 : NULL;
	*p = '\0';
	*value = NULL;
	if (eq) {
		size_t n;

		*eq = '\0';
		*value = eq + 1;
		n = strlen(*value);
		if (n >= 2 && (*value)[0] == '\'' && (*value)[n - 1] == '\'') {
			(*value)[n - 1] = '\0';
			(*value)++;
		}
	}
	return term;
}

bool perf_name__split_slashes(const char *name, size_t *head_len,
			      const char **terms, size_t *terms_len,
			      const char **mods)
{
	const char *last = NULL, *open = NULL;
	bool quoted = false;

	/* The last slash outside quotes closes; the one before it opens. */
	for (const char *p = name; *p; p++) {
		if (*p == '\'')
			quoted = !quoted;
		else if (*p == '/' && !quoted) {
			open = last;
			last = p;
		}
	}
	if (!open || strchr(last + 1, '\'') || strchr(last + 1, ','))
		return false;
	*head_len = open - name;
	*terms = open + 1;
	*terms_len = last - open - 1;
	*mods = last + 1;
	return *head_len > 0;
}

/* "r1a", "r0x1a": PERF_TYPE_RAW. */
static bool parse_raw(const char *s, __u64 *config)
{
	uint64_t v;
	char hex[24];

	if (s[0] != 'r' || !isxdigit((unsigned char)s[1]))
		return false;
	s++;
	if (!strncmp(s, "0x", 2))
		s += 2;
	if (strlen(s) > 16 || !*s)
		return false;
	snprintf(hex, sizeof(hex), "0x%s", s);
	if (parse_u64(hex, &v))
		return false;
	*config = v;
	return true;
}

/* "1:1", "4:0x6530160": TYPE:CONFIG, both numbers. */
static bool parse_numeric(const char *s, __u32 *type, __u64 *config)
{
	char head[24];
	const char *colon = strchr(s, ':');
	uint64_t t, c;

	if (!colon || colon - s >= (long)sizeof(head))
		return false;
	snprintf(head, sizeof(head), "%.*s", (int)(colon - s), s);
	if (parse_u64(head, &t) || t > UINT32_MAX || parse_u64(colon + 1, &c))
		return false;
	*type = t;
	*config = c;
	return true;
}

/*
 * "mem:ADDR[/LEN][:ACCESS][:MODS]". A group of r, w and x letters after
 * the address is the access, anything else modifiers; perf's defaults
 * are rw over 4 bytes, and x over a long.
 */
static int parse_breakpoint(char *s, const char *input,
			    struct perf_event_attr *attr, const char **mods,
			    struct error *err)
{
	char buf[PERF_NAME_LEN], *p, *len_s, *access, *end;
	uint64_t addr, len = 0;

	snprintf(buf, sizeof(buf), "%s", s + 4);
	access = strchr(buf, ':');
	if (access)
		*access++ = '\0';
	len_s = strchr(buf, '/');
	if (len_s)
		*len_s++ = '\0';
	if (parse_u64(buf, &addr))
		return error__set(err, EINVAL,
				  "bad address '%s' in breakpoint '%s'", buf,
				  input);
	if (len_s && (parse_u64(len_s, &len) ||
		      (len != 1 && len != 2 && len != 4 && len != 8)))
		return error__set(
			err, EINVAL,
			"bad length '%s' in breakpoint '%s': want 1, 2, 4 or 8",
			len_s, input);
	if (access && !*access)
		return error__set(
			err, EINVAL,
			"nothing after ':' in breakpoint '%s': want r, w, x or modifiers",
			input);
	attr->type = PERF_TYPE_BREAKPOINT;
	attr->bp_addr = addr;
	attr->bp_type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
	*mods = "";
	if (access && *access &&
	    strspn(access, "rwx") == strcspn(access, ":")) {
		end = access + strcspn(access, ":");
		attr->bp_type = 0;
		for (p = access; p < end; p++)
			attr->bp_type |= *p == 'r' ? HW_BREAKPOINT_R :
					 *p == 'w' ? HW_BREAKPOINT_W :
						     HW_BREAKPOINT_X;
		if ((attr->bp_type & HW_BREAKPOINT_X) &&
		    attr->bp_type != HW_BREAKPOINT_X)
			return error__set(
				err, EINVAL,
				"breakpoint '%s' mixes x with r or w, which the kernel refuses",
				input);
		access = *end ? end + 1 : NULL;
	}
	if (access) {
		/* Cut the head before its modifiers, for the full form. */
		*mods = s + 4 + (access - buf);
		s[4 + (access - buf) - 1] = '\0';
	}
	if (!len)
		len = attr->bp_type == HW_BREAKPOINT_X ? sizeof(long) :
							 HW_BREAKPOINT_LEN_4;
	attr->bp_len = len;
	return 0;
}

/* Splits "HEAD:MODS" when MODS is all modifier letters. */
static void split_mods(char *head, const char **mods)
{
	char *colon = strrchr(head, ':');

	*mods = "";
	if (colon && colon[1] && perf_mods__is_syntax(colon + 1)) {
		*mods = colon + 1;
		*colon = '\0';
	}
}

/* The event head alone: raw, TYPE:CONFIG, breakpoint or legacy. */
static int encode_head(char *head, const char *input,
		       struct perf_event_attr *attr, const char **mods,
		       struct error *err)
{
	if (!strncmp(head, "mem:", 4))
		return parse_breakpoint(head, input, attr, mods, err);
	split_mods(head, mods);
	if (parse_raw(head, &attr->config)) {
		attr->type = PERF_TYPE_RAW;
		return 0;
	}
	if (parse_numeric(head, &attr->type, &attr->config) ||
	    perf_legacy__lookup(head, &attr->type, &attr->config))
		return 0;
	return error__set(
		err, ENOENT,
		"event '%s' is none of perf's names (legacy, raw, TYPE:CONFIG, mem:)",
		input);
}

/* The terms after a perf-style head, as perf takes them on any event. */
static int apply_terms(char *list, const char *input,
		       struct perf_event_attr *attr,
		       struct perf_event_info *info, struct error *err)
{
	char *term, *value;
	uint64_t v;
	int ret;

	while ((term = perf_terms__next(&list, &value))) {
		if (!*term)
			continue;
		ret = perf_term__generic(term, value, input, info->display,
					 sizeof(info->display), err);
		if (ret <= 0) {
			if (ret)
				return ret;
			continue;
		}
		v = 1;
		if (value && parse_u64(value, &v))
			return error__set(
				err, EINVAL,
				"bad number '%s' for term '%s' of event '%s'",
				value, term, input);
		if (!strcmp(term, "config"))
			attr->config = v;
		else if (!strcmp(term, "config1"))
			attr->config1 = v;
		else if (!strcmp(term, "config2"))
			attr->config2 = v;
		else if (!strcmp(term, "period") && value && v && !(v >> 63))
			attr->sample_period = v;
		else if (!strcmp(term, "freq") && value && v && !(v >> 63)) {
			attr->sample_freq = v;
			attr->freq = 1;
		} else if (!strcmp(term, "period") || !strcmp(term, "freq"))
			return error__set(
				err, EINVAL,
				"term '%s' of event '%s' wants 1 to 2^63-1",
				term, input);
		else
			return error__set(
				err, EINVAL,
				"unknown term '%s' in event '%s': this event takes name, period, freq, config, config1, config2, call-graph=no and time",
				term, input);
	}
	return 0;
}

static int format_fstr(const char *head, const struct perf_event_attr *a,
		       const struct perf_mods *m, struct perf_event_info *info,
		       const char *input, struct error *err)
{
	int len;

	char mods[16], terms[128] = "";
	size_t n = 0;

	perf_mods__format(m, mods, sizeof(mods));
	/* A breakpoint's config1 and config2 are its address and length. */
	if (a->type == PERF_TYPE_BREAKPOINT)
		;
	else if (a->config1)
		n += snprintf(terms + n, sizeof(terms) - n, ",config1=0x%llx",
			      (unsigned long long)a->config1);
	if (a->config2 && a->type != PERF_TYPE_BREAKPOINT)
		n += snprintf(terms + n, sizeof(terms) - n, ",config2=0x%llx",
			      (unsigned long long)a->config2);
	if (a->freq)
		snprintf(terms + n, sizeof(terms) - n, ",freq=%llu",
			 (unsigned long long)a->sample_freq);
	else if (a->sample_period)
		snprintf(terms + n, sizeof(terms) - n, ",period=%llu",
			 (unsigned long long)a->sample_period);
	if (terms[0])
		len = snprintf(info->fstr, sizeof(info->fstr), "%s/%s/%s", head,
			       terms + 1, mods);
	else
		len = snprintf(info->fstr, sizeof(info->fstr), "%s%s%s", head,
			       mods[0] ? ":" : "", mods);
	if (len >= (int)sizeof(info->fstr))
		return error__set(
			err, ENAMETOOLONG,
			"event '%s': its full form is over %zu characters",
			input, sizeof(info->fstr) - 1);
	return 0;
}

int perf_name__encode(const char *name, const char *group,
		      struct perf_event_attr *attr,
		      struct perf_event_info *info, struct error *err)
{
	char head[PERF_NAME_LEN], terms[PERF_NAME_LEN] = "";
	const char *mods = "", *head_mods = "", *t;
	size_t head_len, terms_len;
	struct perf_mods m = {};
	struct perf_event_attr a = { .size = sizeof(a) };
	int ret;

	memset(info, 0, sizeof(*info));
	if (strlen(name) >= sizeof(head))
		return error__set(
			err, ENOENT,
			"event '%.40s...' is longer than any of perf's names",
			name);
	if (perf_name__split_slashes(name, &head_len, &t, &terms_len, &mods)) {
		snprintf(head, sizeof(head), "%.*s", (int)head_len, name);
		snprintf(terms, sizeof(terms), "%.*s", (int)terms_len, t);
	} else {
		snprintf(head, sizeof(head), "%s", name);
		mods = "";
	}
	ret = encode_head(head, name, &a, &head_mods, err);
	if (ret)
		return ret;
	ret = apply_terms(terms, name, &a, info, err);
	if (!ret)
		ret = perf_mods__parse(head_mods, name, &m, err);
	if (!ret)
		ret = perf_mods__parse(mods, name, &m, err);
	if (!ret && group)
		ret = perf_mods__parse(group, name, &m, err);
	if (ret)
		return ret;
	perf_mods__apply(&m, &a);
	info->precise_max = m.precise_max;
	ret = format_fstr(head, &a, &m, info, name, err);
	if (!ret)
		*attr = a;
	return ret;
}
