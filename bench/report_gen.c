// SPDX-License-Identifier: GPL-2.0
/*
 * report_gen [-r ROWS] [-H HOSTS] [-s SEED] OUT.csv: a Kubernetes host's
 * export as `bpmc record --by cgroup,process,container` writes it, for
 * the report's benches (bench/report_cost.sh). The rows go through
 * bpmc's own CSV sink, so the bytes are the export's: the header, the
 * meta and encoding rows, then 1 s intervals, each holding the process
 * and cgroup rows of every busy cgroup (cgroup id order), the system
 * rows, the container and pod rows and the self rows, closed by the
 * sink's intervals_lost row.
 *
 * A host runs 26 to 34 pods of 1 to 3 containers each besides its
 * sandbox (60 to 100 containers; systemd driver paths under the
 * burstable, besteffort and guaranteed slices), a dozen system.slice
 * services, and the root cgroup's kernel threads and idle task. Each
 * container has its own CPU use, clock, IPC (0.5 to 2.5), cache and
 * branch behaviour, held for the file, and varies around them from one
 * interval to the next; a process idle for an interval writes no rows.
 * The counts of a cgroup row are the sums of its process rows, those of
 * a container, pod or system row the sums of its cgroups', so any two
 * readers must agree exactly.
 *
 * Whole intervals are written until ROWS rows (3,300,000 by default,
 * meta, self and intervals_lost rows included) are reached: about 1.3 GB
 * with the default seed, 75 MB after gzip -1. Everything follows from
 * SEED but the collector's pid (bpmc_pid and the self rows), which is
 * ours, as the sink writes it in every intervals_lost row. -H HOSTS
 * writes one file per host, each host different, named by inserting
 * "-HOST" before OUT's ".csv" (or by a "%h" in OUT). OUT may end with .gz: the sink's own gzip stream, as
 * `bpmc record -o x.csv.gz` writes it. "-" writes one host to stdout.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/version.h"
#include "sinks/csv.h"
#include "sinks/csv_sink.h"

#define NR_EVENTS 8
#define MAX_PODS 34
#define MAX_CTRS 128
#define MAX_PROCS 6
#define MAX_CGROUPS 160
#define FREQ_HZ 997
#define DEFAULT_ROWS 3300000L

enum {
	CYCLES,
	INSTRUCTIONS,
	CREFS,
	CMISSES,
	BRANCHES,
	BMISSES,
	CPU_CLOCK,
	FAULTS
};

static const char *const events[NR_EVENTS] = {
	"cycles",   "instructions",  "cache-references", "cache-misses",
	"branches", "branch-misses", "cpu-clock",	 "page-faults",
};

/* type and config of each event, as record's encoding rows say them. */
static const struct {
	unsigned type, config;
	const char *fstr;
} encodings[NR_EVENTS] = {
	{ 0, 0x0, "perf::PERF_COUNT_HW_CPU_CYCLES:u=1:k=1:h=1" },
	{ 0, 0x1, "perf::PERF_COUNT_HW_INSTRUCTIONS:u=1:k=1:h=1" },
	{ 0, 0x2, "perf::PERF_COUNT_HW_CACHE_REFERENCES:u=1:k=1:h=1" },
	{ 0, 0x3, "perf::PERF_COUNT_HW_CACHE_MISSES:u=1:k=1:h=1" },
	{ 0, 0x4, "perf::PERF_COUNT_HW_BRANCH_INSTRUCTIONS:u=1:k=1:h=1" },
	{ 0, 0x5, "perf::PERF_COUNT_HW_BRANCH_MISSES:u=1:k=1:h=1" },
	{ 1, 0x0, "perf::PERF_COUNT_SW_CPU_CLOCK:u=1:k=1:h=1" },
	{ 1, 0x2, "perf::PERF_COUNT_SW_PAGE_FAULTS:u=1:k=1:h=1" },
};

/* What the pods run: a workload, its namespace and its containers. */
static const struct {
	const char *name, *ns, *comm;
	char kind; /* 'd' deployment, 's' statefulset, 'a' daemonset */
} workloads[] = {
	{ "api-gateway", "edge", "envoy", 'd' },
	{ "checkout-service", "shop-prod", "java", 'd' },
	{ "payment-processor", "payments-prod", "java", 'd' },
	{ "inventory-sync", "shop-prod", "inventory-sync", 'd' },
	{ "recommendation-engine", "ml-serving", "python3", 'd' },
	{ "user-profile-api", "accounts", "node", 'd' },
	{ "order-events-consumer", "shop-prod", "order-consumer", 'd' },
	{ "coredns", "kube-system", "coredns", 'd' },
	{ "kube-proxy", "kube-system", "kube-proxy", 'a' },
	{ "calico-node", "calico-system", "calico-node", 'a' },
	{ "fluent-bit", "logging", "fluent-bit", 'a' },
	{ "node-exporter", "monitoring", "node_exporter", 'a' },
	{ "prometheus-adapter", "monitoring", "adapter", 'd' },
	{ "ingress-nginx-controller", "ingress-nginx", "nginx", 'd' },
	{ "cert-manager-webhook", "cert-manager", "webhook", 'd' },
	{ "redis-cache", "shop-prod", "redis-server", 's' },
	{ "postgres-replica", "data-platform", "postgres", 's' },
	{ "search-indexer", "search-staging", "java", 'd' },
	{ "notification-worker", "messaging", "python3", 'd' },
	{ "session-store", "accounts", "memcached", 's' },
	{ "image-resizer", "media", "image-resizer", 'd' },
	{ "fraud-scoring", "payments-prod", "python3", 'd' },
	{ "ledger-writer", "payments-prod", "ledger-writer", 'd' },
	{ "cart-service", "shop-prod", "cart-service", 'd' },
	{ "shipping-quotes", "logistics", "node", 'd' },
	{ "pricing-engine", "shop-prod", "java", 'd' },
	{ "feature-flags", "platform", "flagd", 'd' },
	{ "auth-token-service", "accounts", "auth-token-svc", 'd' },
	{ "email-dispatcher", "messaging", "email-dispatch", 'd' },
	{ "metrics-aggregator", "monitoring", "vmagent", 'd' },
	{ "kafka-broker", "messaging", "java", 's' },
	{ "grafana", "monitoring", "grafana", 'd' },
	{ "vault-agent-injector", "vault", "vault", 'd' },
	{ "argo-workflow-controller", "argo", "workflow-contro", 'd' },
};

/* A pod's second and third containers: its sidecars. */
static const struct {
	const char *name, *comm;
} sidecars[] = {
	{ "istio-proxy", "envoy" },
	{ "log-shipper", "fluent-bit" },
	{ "config-reloader", "config-reload" },
	{ "metrics-exporter", "exporter" },
	{ "vault-agent", "vault" },
};

static const char *const services[][3] = {
	{ "containerd.service", "containerd", "containerd-shim" },
	{ "kubelet.service", "kubelet", NULL },
	{ "systemd-journald.service", "systemd-journal", NULL },
	{ "systemd-logind.service", "systemd-logind", NULL },
	{ "systemd-udevd.service", "systemd-udevd", NULL },
	{ "systemd-networkd.service", "systemd-network", NULL },
	{ "systemd-resolved.service", "systemd-resolve", NULL },
	{ "dbus.service", "dbus-daemon", NULL },
	{ "chrony.service", "chronyd", NULL },
	{ "ssh.service", "sshd", NULL },
	{ "cron.service", "cron", NULL },
	{ "rsyslog.service", "rsyslogd", "rs:main Q:Reg" },
	{ "bpmc.service", "bpmc", NULL },
};

/* How a cgroup's tasks behave, held for the whole file. */
struct model {
	double cpus; /* mean CPUs busy */
	double ghz; /* cycles per ns while running */
	double ipc;
	double cref; /* cache references per instruction */
	double miss; /* cache misses per reference */
	double br; /* branches per instruction */
	double brmiss; /* branch misses per branch */
	double faults; /* page faults per CPU-second */
	double idle; /* the chance a process does nothing in an interval */
};

struct proc {
	long pid;
	char comm[16];
	double share; /* of its cgroup's CPU */
	bool idle_task; /* pid 0: cpu-clock without cycles */
};

struct cgroup {
	uint64_t id;
	char path[256];
	int pod; /* -1: not a pod's */
	char container[96]; /* "containerd://ID", or "" */
	const char *container_name; /* NULL for a sandbox */
	struct model m;
	struct proc procs[MAX_PROCS];
	int nr_procs;
	uint64_t count[NR_EVENTS], samples[NR_EVENTS]; /* this interval */
};

struct pod {
	char uid[40], name[96];
	const char *ns;
	char slice[160]; /* its systemd slice path */
};

struct host {
	char name[64], machine_id[40], boot_id[40];
	int cpus;
	struct pod pods[MAX_PODS];
	int nr_pods;
	struct cgroup cg[MAX_CGROUPS];
	int nr_cg;
	long bpmc_pid;
	uint64_t rng;
};

/* xorshift64*: fast, and the same sequence everywhere from one seed. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static double uniform(uint64_t *s)
{
	return (next(s) >> 11) * (1.0 / 9007199254740992.0);
}

static double between(uint64_t *s, double lo, double hi)
{
	return lo + (hi - lo) * uniform(s);
}

static void hex(uint64_t *s, char *out, int n)
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < n; i++)
		out[i] = digits[next(s) >> 60];
	out[n] = '\0';
}

/* A replica set's hash or a pod's suffix, in Kubernetes' alphabet. */
static void suffix(uint64_t *s, char *out, int n)
{
	static const char alnum[] = "bcdfghjklmnpqrstvwxz2456789";

	for (int i = 0; i < n; i++)
		out[i] = alnum[next(s) % (sizeof(alnum) - 1)];
	out[n] = '\0';
}

static void model_init(uint64_t *s, struct model *m, double cpus)
{
	m->cpus = cpus;
	m->ghz = between(s, 2.2, 3.4);
	m->ipc = between(s, 0.5, 2.5);
	m->cref = between(s, 0.004, 0.05);
	m->miss = between(s, 0.03, 0.45);
	m->br = between(s, 0.12, 0.23);
	m->brmiss = between(s, 0.002, 0.03);
	m->faults = uniform(s) < 0.3 ? 0 : between(s, 50, 20000);
	m->idle = between(s, 0, 0.08);
}

static struct cgroup *add_cgroup(struct host *h, uint64_t *id)
{
	struct cgroup *c = &h->cg[h->nr_cg++];

	memset(c, 0, sizeof(*c));
	*id += 1 + next(&h->rng) % 40;
	c->id = *id;
	c->pod = -1;
	return c;
}

static void add_proc(struct host *h, struct cgroup *c, const char *comm,
		     double share, long *pid)
{
	struct proc *p = &c->procs[c->nr_procs++];

	*pid += 1 + next(&h->rng) % 900;
	p->pid = *pid;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	p->share = share;
}

static void pod_name(struct host *h, int w, char *out, size_t len)
{
	char a[12], b[8];

	suffix(&h->rng, a, 9 + next(&h->rng) % 2);
	suffix(&h->rng, b, 5);
	switch (workloads[w].kind) {
	case 's':
		snprintf(out, len, "%s-%d", workloads[w].name,
			 (int)(next(&h->rng) % 3));
		break;
	case 'a':
		snprintf(out, len, "%s-%s", workloads[w].name, b);
		break;
	default:
		snprintf(out, len, "%s-%s-%s", workloads[w].name, a, b);
	}
}

static void add_container(struct host *h, int pod, const char *name,
			  const char *comm, double cpus, uint64_t *id,
			  long *pid)
{
	struct cgroup *c = add_cgroup(h, id);
	char cid[65];
	int nr = name ? 1 + next(&h->rng) % 3 : 1;

	hex(&h->rng, cid, 64);
	snprintf(c->path, sizeof(c->path), "%s/cri-containerd-%s.scope",
		 h->pods[pod].slice, cid);
	snprintf(c->container, sizeof(c->container), "containerd://%s", cid);
	c->pod = pod;
	c->container_name = name;
	model_init(&h->rng, &c->m, cpus);
	if (!name) {
		c->m.idle = 0.85; /* pause wakes up now and then */
		add_proc(h, c, "pause", 1, pid);
		return;
	}
	/* An init, the main process, its helpers. */
	if (nr > 1)
		add_proc(h, c, nr > 2 ? "tini" : comm, 0.02, pid);
	for (int i = c->nr_procs; i < nr; i++)
		add_proc(h, c, comm, i == nr - 1 ? 0.7 : 0.28, pid);
}

static void host_init(struct host *h, uint64_t seed, int index)
{
	static const char *const kthreads[] = { "kworker/3:1", "ksoftirqd/0",
						"rcu_preempt", "kswapd0" };
	uint64_t id = 1;
	long pid = 400;
	char uid[33], rs[8];
	int nr_pods;

	memset(h, 0, sizeof(*h));
	h->rng = seed * 0x9e3779b97f4a7c15ull + index + 1;
	for (int i = 0; i < 8; i++)
		next(&h->rng);
	suffix(&h->rng, rs, 4);
	snprintf(h->name, sizeof(h->name), "k8s-prod-worker-%s-%02d", rs,
		 index + 1);
	hex(&h->rng, h->machine_id, 32);
	hex(&h->rng, uid, 32);
	snprintf(h->boot_id, sizeof(h->boot_id), "%.8s-%.4s-4%.3s-a%.3s-%.12s",
		 uid, uid + 8, uid + 12, uid + 15, uid + 18);
	h->cpus = 32 << (next(&h->rng) % 2);
	/* The sink writes its intervals_lost rows with our pid: so do we. */
	h->bpmc_pid = getpid();

	/* The root: the idle task and kernel threads. */
	struct cgroup *c = add_cgroup(h, &id);

	c->id = 1;
	strcpy(c->path, "/");
	model_init(&h->rng, &c->m, 0.05);
	c->m.idle = 0;
	add_proc(h, c, "swapper", 0, &pid);
	c->procs[0].pid = 0;
	c->procs[0].idle_task = true;
	for (int i = 0; i < 4; i++)
		add_proc(h, c, kthreads[i], 0.25, &pid);
	c = add_cgroup(h, &id);
	strcpy(c->path, "/init.scope");
	model_init(&h->rng, &c->m, 0.002);
	add_proc(h, c, "systemd", 1, &pid);
	for (size_t i = 0; i < sizeof(services) / sizeof(services[0]); i++) {
		c = add_cgroup(h, &id);
		snprintf(c->path, sizeof(c->path), "/system.slice/%s",
			 services[i][0]);
		model_init(&h->rng, &c->m,
			   i < 2 ? between(&h->rng, 0.05, 0.3) :
				   between(&h->rng, 0.0005, 0.01));
		c->m.idle = i < 2 ? 0 : 0.3;
		add_proc(h, c, services[i][1], services[i][2] ? 0.6 : 1, &pid);
		if (services[i][2])
			for (int k = 0; k < (i ? 1 : 3); k++)
				add_proc(h, c, services[i][2],
					 0.4 / (i ? 1 : 3), &pid);
	}

	nr_pods = 26 + next(&h->rng) % 9;
	for (int p = 0; p < nr_pods; p++) {
		struct pod *pd = &h->pods[h->nr_pods++];
		/* The first pods are the daemonsets every node runs. */
		int w = p < 4 ? 8 + p :
				(int)(next(&h->rng) % (sizeof(workloads) /
						       sizeof(workloads[0])));
		double q = uniform(&h->rng), cpus = between(&h->rng, 0.01, 0.9);
		const char *qos = q < 0.6  ? "burstable" :
				  q < 0.75 ? "besteffort" :
					     NULL;
		int extra = 0;

		hex(&h->rng, uid, 32);
		snprintf(pd->uid, sizeof(pd->uid),
			 "%.8s-%.4s-4%.3s-%c%.3s-%.12s", uid, uid + 8, uid + 12,
			 "89ab"[next(&h->rng) % 4], uid + 15, uid + 18);
		pod_name(h, w, pd->name, sizeof(pd->name));
		pd->ns = workloads[w].ns;
		/* systemd spells the uid with underscores. */
		char us[40];

		strcpy(us, pd->uid);
		for (char *x = us; *x; x++)
			if (*x == '-')
				*x = '_';
		if (qos)
			snprintf(
				pd->slice, sizeof(pd->slice),
				"/kubepods.slice/kubepods-%s.slice/kubepods-%s-pod%s.slice",
				qos, qos, us);
		else
			snprintf(pd->slice, sizeof(pd->slice),
				 "/kubepods.slice/kubepods-pod%s.slice", us);
		add_container(h, p, NULL, NULL, 0.0002, &id, &pid);
		add_container(h, p, workloads[w].name, workloads[w].comm, cpus,
			      &id, &pid);
		q = uniform(&h->rng);
		extra = q < 0.45 ? 0 : q < 0.85 ? 1 : 2;
		for (int k = 0; k < extra; k++) {
			int sc = next(&h->rng) %
				 (sizeof(sidecars) / sizeof(sidecars[0]));

			add_container(h, p, sidecars[sc].name,
				      sidecars[sc].comm,
				      between(&h->rng, 0.005, 0.08), &id, &pid);
		}
	}
}

/* One interval of one process: its counts added to its cgroup's. */
static void proc_counts(struct host *h, struct cgroup *c, struct proc *p,
			double len_s, double idle_cpus, uint64_t *count,
			uint64_t *samples)
{
	uint64_t *s = &h->rng;
	const struct model *m = &c->m;
	double load = m->cpus * p->share * between(s, 0.6, 1.4), busy_ns, instr,
	       refs, br;

	memset(count, 0, NR_EVENTS * sizeof(*count));
	memset(samples, 0, NR_EVENTS * sizeof(*samples));
	if (!p->idle_task && uniform(s) < m->idle)
		return;
	if (uniform(s) < 0.03)
		load *= between(s, 2, 5); /* a burst */
	if (p->idle_task) {
		/* Idle CPUs: cpu-clock runs, cycles hardly (halted). */
		count[CPU_CLOCK] =
			idle_cpus * len_s * 1e9 * between(s, 0.98, 1);
		count[CYCLES] = count[CPU_CLOCK] * between(s, 0.001, 0.004);
		count[INSTRUCTIONS] = count[CYCLES] * between(s, 0.2, 0.4);
		count[BRANCHES] = count[INSTRUCTIONS] * 0.2;
		count[BMISSES] = count[BRANCHES] * between(s, 0.01, 0.03);
		count[CREFS] = count[INSTRUCTIONS] * 0.01;
		count[CMISSES] = count[CREFS] * between(s, 0.2, 0.4);
		load = idle_cpus;
	} else {
		busy_ns = load * len_s * 1e9;
		count[CPU_CLOCK] = busy_ns;
		count[CYCLES] = busy_ns * m->ghz * between(s, 0.97, 1.03);
		instr = count[CYCLES] * m->ipc * between(s, 0.9, 1.1);
		count[INSTRUCTIONS] = instr;
		refs = instr * m->cref * between(s, 0.85, 1.15);
		count[CREFS] = refs;
		count[CMISSES] = refs * m->miss * between(s, 0.8, 1.2);
		br = instr * m->br * between(s, 0.95, 1.05);
		count[BRANCHES] = br;
		count[BMISSES] = br * m->brmiss * between(s, 0.8, 1.2);
		count[FAULTS] = m->faults * load * len_s * between(s, 0, 2);
	}
	/* -F 997: each event overflows about 997 times a CPU-second. */
	for (int e = 0; e < NR_EVENTS; e++) {
		uint64_t n = load * len_s * FREQ_HZ * between(s, 0.9, 1.1);

		if (!count[e])
			continue;
		samples[e] = n < 1 ? 1 : n > count[e] ? count[e] : n;
	}
}

struct out {
	struct sink sink;
	struct interval_info info;
	long rows;
};

static int put(struct out *o, const struct row *r)
{
	o->rows++;
	return o->sink.ops->write_row(&o->sink, r);
}

/* One row per event with a count, as record writes them. */
static int put_counts(struct out *o, struct row *r, const uint64_t *count,
		      const uint64_t *samples)
{
	int err = 0;

	r->running_pct = 100;
	for (int e = 0; e < NR_EVENTS && !err; e++) {
		if (!count[e])
			continue;
		r->event = events[e];
		r->count = count[e];
		r->samples = samples[e];
		err = put(o, r);
	}
	return err;
}

static void names_of(const struct host *h, const struct cgroup *c,
		     struct row *r)
{
	if (c->pod < 0)
		return;
	r->container = c->container;
	r->pod = h->pods[c->pod].uid;
	r->namespace = h->pods[c->pod].ns;
	r->pod_name = h->pods[c->pod].name;
	r->container_name = c->container_name;
}

static int write_interval(struct host *h, struct out *o, double len_s)
{
	uint64_t count[NR_EVENTS], samples[NR_EVENTS],
		sys_count[NR_EVENTS] = {}, sys_samples[NR_EVENTS] = {};
	double busy = 0, idle_cpus;
	char name[64], rss[24];
	int err = o->sink.ops->begin_interval(&o->sink, &o->info);

	for (int i = 0; i < h->nr_cg; i++)
		busy += h->cg[i].m.cpus;
	idle_cpus = h->cpus - busy > 0.5 ? h->cpus - busy : 0.5;
	/* The process rows of a cgroup, then its cgroup row. */
	for (int i = 0; i < h->nr_cg && !err; i++) {
		struct cgroup *c = &h->cg[i];
		struct row r = { .scope = "process",
				 .cgroup_id = c->id,
				 .cgroup = c->path,
				 .tid = -1 };

		names_of(h, c, &r);
		memset(c->count, 0, sizeof(c->count));
		memset(c->samples, 0, sizeof(c->samples));
		for (int p = 0; p < c->nr_procs && !err; p++) {
			proc_counts(h, c, &c->procs[p], len_s, idle_cpus, count,
				    samples);
			for (int e = 0; e < NR_EVENTS; e++) {
				c->count[e] += count[e];
				c->samples[e] += samples[e];
			}
			r.pid = c->procs[p].pid;
			r.comm = c->procs[p].comm;
			err = put_counts(o, &r, count, samples);
		}
		r.scope = "cgroup";
		r.pid = -1;
		r.comm = NULL;
		if (!err)
			err = put_counts(o, &r, c->count, c->samples);
		for (int e = 0; e < NR_EVENTS; e++) {
			sys_count[e] += c->count[e];
			sys_samples[e] += c->samples[e];
		}
	}
	if (!err) {
		struct row r = { .scope = "system", .pid = -1, .tid = -1 };

		err = put_counts(o, &r, sys_count, sys_samples);
	}
	/* One container per cgroup here: its row is its cgroup's sums,
	 * in container id order as record sorts them. */
	int order[MAX_CGROUPS], n = 0;

	for (int i = 0; i < h->nr_cg; i++)
		if (h->cg[i].pod >= 0)
			order[n++] = i;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && strcmp(h->cg[order[j - 1]].container,
						h->cg[order[j]].container) > 0;
		     j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (int i = 0; i < n && !err; i++) {
		struct cgroup *c = &h->cg[order[i]];
		struct row r = { .scope = "container",
				 .cgroup = c->path,
				 .pid = -1,
				 .tid = -1 };

		names_of(h, c, &r);
		err = put_counts(o, &r, c->count, c->samples);
	}
	/* Pods, in uid order. */
	int pods[MAX_PODS];

	for (int i = 0; i < h->nr_pods; i++)
		pods[i] = i;
	for (int i = 1; i < h->nr_pods; i++)
		for (int j = i; j > 0 && strcmp(h->pods[pods[j - 1]].uid,
						h->pods[pods[j]].uid) > 0;
		     j--) {
			int t = pods[j];

			pods[j] = pods[j - 1];
			pods[j - 1] = t;
		}
	for (int i = 0; i < h->nr_pods && !err; i++) {
		const struct pod *pd = &h->pods[pods[i]];
		struct row r = { .scope = "pod",
				 .pid = -1,
				 .tid = -1,
				 .pod = pd->uid,
				 .namespace = pd->ns,
				 .pod_name = pd->name };

		memset(count, 0, sizeof(count));
		memset(samples, 0, sizeof(samples));
		for (int k = 0; k < h->nr_cg; k++) {
			if (h->cg[k].pod != pods[i])
				continue;
			for (int e = 0; e < NR_EVENTS; e++) {
				count[e] += h->cg[k].count[e];
				samples[e] += h->cg[k].samples[e];
			}
		}
		err = put_counts(o, &r, count, samples);
	}
	/* bpmc's own: what self.c writes, as record runs by default. */
	struct row r = { .scope = "self",
			 .pid = h->bpmc_pid,
			 .tid = -1,
			 .comm = "bpmc",
			 .running_pct = -1 };
	static const char *const self_events[] = {
		"bpf_run_time_ns", "cpu_user_ns", "cpu_system_ns",
		"peak_rss_bytes", "samples_lost"
	};

	for (int i = 0; i < 5 && !err; i++) {
		r.event = self_events[i];
		r.count = i == 1 ? 2000000 + next(&h->rng) % 3000000 :
			  i == 2 ? 1000000 + next(&h->rng) % 2000000 :
				   0;
		r.samples = 0;
		r.no_count = i == 3;
		r.value = NULL;
		if (r.no_count) {
			snprintf(rss, sizeof(rss), "%llu",
				 35651584ull + 4096 * (next(&h->rng) % 64));
			r.value = rss;
		}
		err = put(o, &r);
	}
	r.no_count = true;
	r.value = "1";
	for (int e = 0; e < NR_EVENTS && !err; e++) {
		snprintf(name, sizeof(name), "event_supported:%s", events[e]);
		r.event = name;
		err = put(o, &r);
	}
	if (!err)
		err = o->sink.ops->end_interval(&o->sink);
	o->rows++; /* the sink's intervals_lost row */
	return err;
}

/* The meta and encoding rows: what record_meta.c writes. */
struct meta {
	struct csv_meta rows[32];
	char text[32][256];
	int nr;
};

static void meta_add(struct meta *m, const char *scope, const char *key,
		     const char *value)
{
	snprintf(m->text[m->nr], sizeof(m->text[0]), "%s", value);
	m->rows[m->nr] = (struct csv_meta){ scope, key, m->text[m->nr] };
	m->nr++;
}

static void meta_build(struct meta *m, const struct host *h, uint64_t start_ns)
{
	char buf[256];

	m->nr = 0;
	meta_add(m, "meta", "bpmc_version", BPMC_VERSION);
	snprintf(buf, sizeof(buf), "%d", CSV_SCHEMA_VERSION);
	meta_add(m, "meta", "schema_version", buf);
	meta_add(m, "meta", "mode", "sampling");
	meta_add(m, "meta", "interval_ms", "1000");
	snprintf(buf, sizeof(buf), "%d", FREQ_HZ);
	meta_add(m, "meta", "sample_freq_hz", buf);
	meta_add(m, "meta", "by", "cgroup,process,container");
	meta_add(m, "meta", "host", h->name);
	snprintf(buf, sizeof(buf), "%s.prod.example.internal", h->name);
	meta_add(m, "meta", "host_fqdn", buf);
	meta_add(m, "meta", "machine_id", h->machine_id);
	meta_add(m, "meta", "boot_id", h->boot_id);
	meta_add(m, "meta", "kernel", "6.8.0-1015-aws x86_64");
	meta_add(
		m, "meta", "cpu",
		"AuthenticAMD family 0x19 model 0x11: AMD EPYC 9R14 96-Core Processor");
	snprintf(buf, sizeof(buf), "%ld", h->bpmc_pid);
	meta_add(m, "meta", "bpmc_pid", buf);
	csv_time(buf, sizeof(buf), start_ns - 1500000000ull);
	meta_add(m, "meta", "started", buf);
	for (int e = 0; e < NR_EVENTS; e++) {
		snprintf(
			buf, sizeof(buf),
			"type=%u config=0x%x config1=0x0 config2=0x0 leader=%s period=0 freq=%d fstr=%s",
			encodings[e].type, encodings[e].config, events[e],
			FREQ_HZ, encodings[e].fstr);
		meta_add(m, "encoding", events[e], buf);
	}
}

static void notice(void *ctx, bool warning, const char *msg)
{
	if (warning)
		fprintf(stderr, "report_gen: %s\n", msg);
}

/* OUT with "-HOST" before its ".csv", unless it names %h itself. */
static void host_path(const char *out, int nr_hosts, char *path, size_t len)
{
	const char *ext = strstr(out, ".csv");

	if (nr_hosts == 1 || strstr(out, "%h") || !strcmp(out, "-"))
		snprintf(path, len, "%s", out);
	else if (ext)
		snprintf(path, len, "%.*s-%%h%s", (int)(ext - out), out, ext);
	else
		snprintf(path, len, "%s-%%h", out);
}

static int write_host(struct host *h, const char *path, long max_rows)
{
	/* 2026-11-30T08:00:00Z, and a few seconds that follow the host. */
	uint64_t t = 1796025600ull * 1000000000ull +
		     next(&h->rng) % 5000 * 1000000ull;
	static struct meta meta;
	struct out o = {};
	long intervals = 0;
	int err;

	o.sink.notice = notice;
	err = csv_sink__new(&o.sink, &(struct csv_config){
					     .path = path,
					     .host = h->name,
					     .backlog = 1,
					     .start_ns = t,
				     });
	if (err) {
		fprintf(stderr, "report_gen: %s\n", o.sink.error.msg);
		return err;
	}
	meta_build(&meta, h, t);
	csv_sink__set_meta(&o.sink, meta.rows, meta.nr);
	o.rows = 1 + meta.nr;
	o.info.host = h->name;
	while (!err && o.rows < max_rows) {
		/* A timer tick late or early by a few ms. */
		uint64_t len = 1000000000ull +
			       (next(&h->rng) % 7) * 1000000ull - 3000000ull;

		t += len;
		o.info.end_realtime_ns = t;
		o.info.length_ns = len;
		err = write_interval(h, &o, len / 1e9);
		intervals++;
	}
	if (err)
		fprintf(stderr, "report_gen: %s: %s\n", path, o.sink.error.msg);
	if (o.sink.ops->close(&o.sink) && !err) {
		fprintf(stderr, "report_gen: %s: %s\n", path, o.sink.error.msg);
		err = -EIO;
	}
	if (!err)
		fprintf(stderr,
			"report_gen: %s: %ld rows (header included), %ld intervals, %d pods, %d cgroups\n",
			h->name, o.rows, intervals, h->nr_pods, h->nr_cg);
	return err;
}

int main(int argc, char **argv)
{
	static struct host h;
	long rows = DEFAULT_ROWS, nr_hosts = 1;
	unsigned long long seed = 1;
	char path[4096], *end;
	int opt;

	while ((opt = getopt(argc, argv, "r:H:s:")) != -1) {
		switch (opt) {
		case 'r':
			rows = strtol(optarg, &end, 10);
			if (*end || rows <= 0) {
				fprintf(stderr, "report_gen: bad -r %s\n",
					optarg);
				return 2;
			}
			break;
		case 'H':
			nr_hosts = strtol(optarg, &end, 10);
			if (*end || nr_hosts <= 0 || nr_hosts > 999) {
				fprintf(stderr, "report_gen: bad -H %s\n",
					optarg);
				return 2;
			}
			break;
		case 's':
			seed = strtoull(optarg, &end, 10);
			if (*end) {
				fprintf(stderr, "report_gen: bad -s %s\n",
					optarg);
				return 2;
			}
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	if (nr_hosts > 1 && !strcmp(argv[optind], "-")) {
		fprintf(stderr, "report_gen: -H %ld cannot write to stdout\n",
			nr_hosts);
		return 2;
	}
	host_path(argv[optind], nr_hosts, path, sizeof(path));
	for (int i = 0; i < nr_hosts; i++) {
		host_init(&h, seed, i);
		if (write_host(&h, path, rows))
			return 1;
	}
	return 0;
usage:
	fprintf(stderr,
		"usage: report_gen [-r ROWS] [-H HOSTS] [-s SEED] OUT.csv\n");
	return 2;
}
