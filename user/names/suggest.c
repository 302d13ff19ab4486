// SPDX-License-Identifier: GPL-2.0
/* "did you mean": the closest known names to one that did not encode. */
#include <ctype.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "names/pfm.h"
#include "names/suggest.h"
#include "names/sysfs_pmu.h"
#include "common/util.h"

#define NR_SUGGESTIONS 3
#define SUGGEST_NAME_LEN 256

struct suggest {
	char key[SUGGEST_NAME_LEN]; /* what the user meant to name */
	char prefix[64]; /* their TABLE::, if any */
	char typed[64 + 2 + SUGGEST_NAME_LEN]; /* TABLE::key or key */
	bool exact; /* a known name is what they typed */
	unsigned limit; /* farther than this is no match */
	struct {
		char name[SUGGEST_NAME_LEN];
		unsigned dist;
	} best[NR_SUGGESTIONS];
	int nr;
};

static void suggest_offer_at(struct suggest *s, const char *display, unsigned d)
{
	int i;

	/* A name spelt right failed for a reason no spelling fixes:
	 * offering it back, or its neighbours, would only mislead. */
	if (!strcasecmp(display, s->typed))
		s->exact = true;
	if (d > s->limit || s->exact)
		return;
	for (i = 0; i < s->nr; i++) {
		if (!strcasecmp(s->best[i].name, display))
			return;
	}
	for (i = s->nr; i > 0 && s->best[i - 1].dist > d; i--) {
		if (i < NR_SUGGESTIONS)
			s->best[i] = s->best[i - 1];
	}
	if (i >= NR_SUGGESTIONS)
		return;
	snprintf(s->best[i].name, sizeof(s->best[i].name), "%s", display);
	s->best[i].dist = d;
	if (s->nr < NR_SUGGESTIONS)
		s->nr++;
}

static void suggest_offer(struct suggest *s, const char *cand,
			  const char *display)
{
	suggest_offer_at(s, display, edit_distance(s->key, cand));
}

static void suggest_init(struct suggest *s, const char *name)
{
	const char *sep = strstr(name, "::");
	const char *ev = sep ? sep + 2 : name;
	size_t len;

	memset(s, 0, sizeof(*s));
	if (sep)
		snprintf(s->prefix, sizeof(s->prefix), "%.*s",
			 (int)(sep - name), name);
	snprintf(s->key, sizeof(s->key), "%s", ev);
	/* Unit masks and modifiers are not part of what was misspelt. */
	if (!strchr(s->key, '/'))
		s->key[strcspn(s->key, ":")] = '\0';
	snprintf(s->typed, sizeof(s->typed), "%s%s%s", s->prefix,
		 sep ? "::" : "", s->key);
	len = strlen(s->key);
	s->limit = len / 4 > 2 ? len / 4 : 2;
	if (s->limit >= len)
		s->limit = len ? len - 1 : 0;
}

static void suggest_write(const struct suggest *s, char *out, size_t len)
{
	int n;

	if (!s->nr || s->exact)
		return;
	n = snprintf(out, len, " (did you mean %s", s->best[0].name);
	for (int i = 1; i < s->nr && n > 0 && (size_t)n < len; i++)
		n += snprintf(out + n, len - n, "%s%s",
			      i == s->nr - 1 ? " or " : ", ", s->best[i].name);
	if (n > 0 && (size_t)n < len)
		snprintf(out + n, len - n, "?)");
}

/* perf's aliases are upper case in libpfm; users write them lower case. */
static void lower(char *s)
{
	for (; *s; s++)
		*s = tolower((unsigned char)*s);
}

static void offer_table(struct suggest *s, pfm_pmu_t pmu, const char *table,
			bool bare)
{
	pfm_pmu_info_t pinfo;
	pfm_event_info_t info;
	char display[SUGGEST_NAME_LEN];

	if (!libpfm__pmu_get(pmu, &pinfo))
		return;
	for (int i = pinfo.first_event; i != -1; i = pfm_get_event_next(i)) {
		if (!libpfm__event_get(i, &info))
			continue;
		if (bare)
			snprintf(display, sizeof(display), "%s", info.name);
		else
			snprintf(display, sizeof(display), "%s::%s", table,
				 info.name);
		if (bare && info.equiv)
			lower(display);
		suggest_offer(s, info.name, display);
	}
}

static int offer_sysfs(const struct sysfs_event *ev, void *ctx)
{
	char display[SUGGEST_NAME_LEN];

	snprintf(display, sizeof(display), "%s/%s/", ev->pmu, ev->event);
	suggest_offer(ctx,
		      strchr(((struct suggest *)ctx)->key, '/') ? display :
								  ev->event,
		      display);
	return 0;
}

void suggest__event(const char *name, const char *core, const char *nearest,
		    char *out, size_t len)
{
	pfm_pmu_info_t info;
	struct suggest s;
	pfm_pmu_t pmu;

	suggest_init(&s, name);
	pfm_for_all_pmus(pmu) {
		if (!libpfm__pmu_get(pmu, &info))
			continue;
		if (s.prefix[0] && strcmp(info.name, s.prefix))
			continue;
		if (s.prefix[0] || (core && !strcmp(info.name, core)))
			offer_table(&s, pmu, info.name, !s.prefix[0]);
		else if (info.is_present)
			offer_table(&s, pmu, info.name, true);
		else if (nearest && !strcmp(info.name, nearest))
			offer_table(&s, pmu, info.name, false);
	}
	if (!s.prefix[0])
		sysfs_pmu__for_each_event(NULL, offer_sysfs, &s);
	suggest_write(&s, out, len);
}

void suggest__table(const char *table, char *out, size_t len)
{
	pfm_pmu_info_t info;
	struct suggest s;
	pfm_pmu_t pmu;

	suggest_init(&s, table);
	pfm_for_all_pmus(pmu) {
		if (!libpfm__pmu_get(pmu, &info))
			continue;
		/* "zen4" means amd64_fam19h_zen4: a part counts as close. */
		if (strcasestr(info.name, s.key))
			suggest_offer_at(&s, info.name, 1);
		else
			suggest_offer(&s, info.name, info.name);
	}
	suggest_write(&s, out, len);
}
