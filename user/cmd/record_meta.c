// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cmd/record_meta.h"
#include "common/scope.h"
#include "common/util.h"
#include "common/version.h"
#include "names/pmu_table.h"
#include "sinks/csv.h"

static void add(struct record_meta *m, const char *scope, const char *key,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void add(struct record_meta *m, const char *scope, const char *key,
		const char *fmt, ...)
{
	va_list ap;

	if (m->nr == RECORD_META_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(m->text[m->nr], sizeof(m->text[0]), fmt, ap);
	va_end(ap);
	m->rows[m->nr] = (struct csv_meta){ scope, key, m->text[m->nr] };
	m->nr++;
}

/*
 * The host's fully qualified name without asking DNS (a collector must
 * not stall on a resolver): the host name if it has a dot, else the
 * first dotted alias /etc/hosts gives it, else the host name.
 */
static void host_fqdn(const char *host, char *out, size_t len)
{
	char line[1024], *tok, *save;
	FILE *f;

	snprintf(out, len, "%s", host);
	if (strchr(host, '.') || !(f = fopen("/etc/hosts", "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		bool names_us = false;
		char *dotted = NULL;

		line[strcspn(line, "#\n")] = '\0';
		tok = strtok_r(line, " \t", &save); /* the address */
		while (tok && (tok = strtok_r(NULL, " \t", &save))) {
			if (!strcmp(tok, host) ||
			    (!strncmp(tok, host, strlen(host)) &&
			     tok[strlen(host)] == '.'))
				names_us = true;
			if (!dotted && strchr(tok, '.') &&
			    !strncmp(tok, host, strlen(host)) &&
			    tok[strlen(host)] == '.')
				dotted = tok;
		}
		if (names_us && dotted) {
			snprintf(out, len, "%s", dotted);
			break;
		}
	}
	fclose(f);
}

/* The event as counted (its leader may have changed), or as asked. */
static void add_encoding(struct record_meta *m, const struct event_list *asked,
			 const struct event_list *live, int e)
{
	const struct event_list *list = asked;
	const struct event *ev = &asked->ev[e];

	for (int i = 0; i < live->nr; i++) {
		if (!strcmp(live->ev[i].name, ev->name)) {
			list = live;
			ev = &live->ev[i];
			break;
		}
	}
	const struct perf_event_attr *a = &ev->attr;
	char mods[160];

	/* perf's modifiers that are set, so the row says all it counts. */
	snprintf(mods, sizeof(mods), "%s%s%s%s%s%s%s%s",
		 a->exclude_user ? " exclude_user=1" : "",
		 a->exclude_kernel ? " exclude_kernel=1" : "",
		 a->exclude_hv ? " exclude_hv=1" : "",
		 a->exclude_guest ? " exclude_guest=1" : "",
		 a->exclude_host ? " exclude_host=1" : "",
		 a->exclude_idle ? " exclude_idle=1" : "",
		 a->pinned ? " pinned=1" : "",
		 a->exclusive ? " exclusive=1" : "");
	if (a->precise_ip)
		snprintf(mods + strlen(mods), sizeof(mods) - strlen(mods),
			 " precise_ip=%u", a->precise_ip);
	add(m, "encoding", ev->name,
	    "type=%u config=0x%llx config1=0x%llx config2=0x%llx%s leader=%s period=%llu freq=%u fstr=%s",
	    ev->attr.type, (unsigned long long)ev->attr.config,
	    (unsigned long long)ev->attr.config1,
	    (unsigned long long)ev->attr.config2, mods,
	    list->ev[ev->leader].name,
	    ev->attr.freq ? 0ull : (unsigned long long)ev->attr.sample_period,
	    ev->attr.freq ? (unsigned)ev->attr.sample_freq : 0, ev->fstr);
}

void record_meta__build(struct record_meta *m, const struct collect_env *env,
			const struct event_list *asked,
			const struct event_list *live,
			const struct event_support *support, const char *host)
{
	int nr_keys = 0;
	char buf[256], started[40];
	struct utsname u;
	struct arm_cpu_id arm;
	struct cpu_id cpu;

	m->nr = 0;
	add(m, "meta", "bpmc_version", "%s", BPMC_VERSION);
	add(m, "meta", "schema_version", "%d", CSV_SCHEMA_VERSION);
	add(m, "meta", "mode", "%s", env->exact ? "exact" : "sampling");
	add(m, "meta", "interval_ms", "%ld", env->interval_ms);
	if (!env->exact && env->period)
		add(m, "meta", "sample_period", "%llu",
		    (unsigned long long)env->period);
	else if (!env->exact)
		add(m, "meta", "sample_freq_hz", "%ld", env->freq);
	buf[0] = '\0';
	for (unsigned bit = SCOPE_CGROUP; bit <= SCOPE_CONTAINER; bit <<= 1)
		if (env->scopes & bit)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
				 "%s%s", buf[0] ? "," : "", scope_name(bit));
	add(m, "meta", "by", "%s", buf);
	if (env->filters)
		add(m, "meta", "cgroup_filter", "%s", env->filters);
	if (env->cgroup_v1)
		add(m, "meta", "cgroup_v1", "%s", env->cgroup_v1);
	add(m, "meta", "host", "%s", host);
	host_fqdn(host, buf, sizeof(buf));
	add(m, "meta", "host_fqdn", "%s", buf);
	if (!read_file_str("/etc/machine-id", buf, sizeof(buf)))
		add(m, "meta", "machine_id", "%s", buf);
	if (!read_file_str("/proc/sys/kernel/random/boot_id", buf, sizeof(buf)))
		add(m, "meta", "boot_id", "%s", buf);
	if (!uname(&u))
		add(m, "meta", "kernel", "%s %s", u.release, u.machine);
	if (!cpuinfo_read(&cpu))
		add(m, "meta", "cpu", "%s family 0x%x model 0x%x%s%s",
		    cpu.vendor, cpu.family, cpu.model,
		    cpu.model_name[0] ? ": " : "", cpu.model_name);
	else if (!cpuinfo_read_arm(&arm))
		add(m, "meta", "cpu", "CPU implementer 0x%02x part 0x%03x",
		    arm.implementer, arm.part);
	add(m, "meta", "bpmc_pid", "%d", (int)getpid());
	csv_time(started, sizeof(started), clock_ns(CLOCK_REALTIME));
	add(m, "meta", "started", "%s", started);
	if (env->best_effort)
		add(m, "meta", "best_effort", "1");
	/* One row per event: the name as given, and what it became. */
	for (int e = 0; e < asked->nr; e++)
		add_encoding(m, asked, live, e);
	/* The reason stays in the file; event_supported rows say it every
	 * interval. */
	for (int e = 0; e < asked->nr; e++) {
		if (support[e].supported)
			continue;
		snprintf(m->keys[nr_keys], sizeof(m->keys[0]),
			 "event_unsupported:%s", support[e].event);
		add(m, "meta", m->keys[nr_keys++], "%s", support[e].reason);
	}
}
