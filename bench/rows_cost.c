// SPDX-License-Identifier: GPL-2.0
/*
 * rows_cost N: the user-space half of an export, without BPF: one
 * interval of N process keys, laid out as collector__take_retired()
 * leaves them (hash order), made into rows by drain__write_rows() and
 * written by the CSV sink to a plain and a gzip file, REPS intervals
 * each, alternated with a sink that discards (the rows stage alone) and
 * the CSV sink streaming to /dev/null (the formatting, without the
 * copy into the page cache, which costs what the host makes it: a VM's
 * first touch of a page is slow).
 * Prints the thread CPU time of each, median, min and max, and the
 * peak RSS. Defaults as bench/export_cost's interval: every key in the
 * root cgroup, one event, --by cgroup,process.
 *
 *   -c K   the keys spread over K pods' containers (Kubernetes paths,
 *          made under a scratch cgroup, removed at exit)
 *   -H     hostile text too: names with quotes, commas, backslashes,
 *          control and invalid bytes, and cgroups named so; two events,
 *          two threads a process, --by cgroup,process,thread,container
 *          and --rollup (for comparing outputs, -k)
 *   -r R   intervals per sink (default 7), after one of warm-up
 *   -k DIR keeps the files in DIR (out.csv, out.csv.gz), and the
 *          cgroups and log trees, so that a later run has the same
 *          cgroup ids and writes the same bytes (but the pid of the
 *          intervals_lost rows), for cmp; a run without -k removes them
 *
 * With -c or -H, the kubelet's log trees name the pods and containers,
 * in /tmp/bpmc-rows-cost-kube.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "discard_sink.h"
#include "identity/cgroups.h"
#include "rows/drain.h"
#include "sinks/csv_sink.h"

#define MAX_CGROUPS 4096
#define KUBE_DIR "/tmp/bpmc-rows-cost-kube"
#define MAX_REPS 64

/*
 * rows: a sink that discards; csv_null: the CSV sink streaming to
 * /dev/null, formatting without the copy into the page cache; csv and
 * csv_gz: files, as bpmc record writes them.
 */
enum { DISCARD, NULL_DEV, PLAIN, GZIP, NR_SINKS };
static const char *const sink_names[NR_SINKS] = { "rows", "csv_null", "csv",
						  "csv_gz" };

static char scratch[3100];
static char made[MAX_CGROUPS][256]; /* relative to scratch, in make order */
static int nr_made;

/* Names a process or cgroup could have; the escaping rules' cases. */
static const char *const hostile[] = {
	"a,\"b\\c",  "\xff\xfe\n\"bad,\\\"x\\\"\"", "caf\xc3\xa9 \xe2\x82\xac",
	"tab\there", "\xc0\xaf overlong",	    "\xed\xa0\x80 surrogate",
	"del\x7f",
};

static int make_cgroup(const char *rel)
{
	char p[4096];

	if (nr_made == MAX_CGROUPS)
		return -ENOSPC;
	snprintf(p, sizeof(p), "%s/%s", scratch, rel);
	if (mkdir(p, 0755) && errno != EEXIST)
		return -errno;
	snprintf(made[nr_made++], sizeof(made[0]), "%s", rel);
	return 0;
}

static void remove_cgroups(void)
{
	char p[4096];

	while (nr_made > 0) {
		snprintf(p, sizeof(p), "%s/%s", scratch, made[--nr_made]);
		rmdir(p);
	}
	if (scratch[0])
		rmdir(scratch);
}

/* Container i's id: 64 hex digits as random as a sha256's. */
static void container_id(char out[65], int i)
{
	uint64_t x = i;

	for (int w = 0; w < 4; w++) { /* splitmix64 */
		uint64_t h = x += 0x9e3779b97f4a7c15ull;

		h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
		h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
		snprintf(out + 16 * w, 17, "%016llx",
			 (unsigned long long)(h ^ (h >> 31)));
	}
}

/*
 * K leaf cgroups as a kubelet with the systemd driver lays them out,
 * four containers a pod; their ids in ids[]. With hostile, a few
 * cgroups named with the hostile texts come first.
 */
static int make_cgroups(const char *mount, int k, bool with_hostile,
			uint64_t *ids)
{
	char rel[512], pod[256], full[4096], id[65];
	struct stat st;
	int n = 0, err;

	/* A fixed name: kept (-k), the same ids serve the next run. */
	snprintf(scratch, sizeof(scratch), "%.3000s/bpmc-rows-cost", mount);
	if (mkdir(scratch, 0755) && errno != EEXIST)
		return -errno;
	err = make_cgroup("kubepods.slice");
	/* The kernel refuses a newline in a cgroup's name: those are left
	 * out, the other hostile names kept. */
	for (size_t h = 0; with_hostile && h < ARRAY_SIZE(hostile) && !err;
	     h++) {
		if (make_cgroup(hostile[h]))
			continue;
		snprintf(full, sizeof(full), "%s/%s", scratch, hostile[h]);
		if (!stat(full, &st) && n < k)
			ids[n++] = st.st_ino;
	}
	for (int i = 0; n < k && !err; i++) {
		snprintf(
			pod, sizeof(pod),
			"kubepods.slice/kubepods-pod%08x_1b2d_4e5f_8a9b_0c1d2e3f4a5b.slice",
			i / 4);
		if (i % 4 == 0)
			err = make_cgroup(pod);
		container_id(id, i);
		snprintf(rel, sizeof(rel), "%s/cri-containerd-%s.scope", pod,
			 id);
		if (!err)
			err = make_cgroup(rel);
		snprintf(full, sizeof(full), "%s/%s", scratch, rel);
		if (!err && stat(full, &st))
			err = -errno;
		if (!err)
			ids[n++] = st.st_ino;
	}
	return err;
}

/*
 * The kubelet's log trees naming the pods and containers make_cgroups()
 * made (identity/kube.h), under dir; make false removes them.
 */
static int kube_tree(const char *dir, int k, bool make)
{
	char pod[512], ctr[1024], log[1100], link[1024], id[65];
	int err = 0;

	for (int i = 0; i < k; i++) {
		snprintf(
			pod, sizeof(pod),
			"%s/pods/ns-%d_pod-%d_%08x-1b2d-4e5f-8a9b-0c1d2e3f4a5b",
			dir, i / 4 % 10, i / 4, i / 4);
		snprintf(ctr, sizeof(ctr), "%s/ctr-%d", pod, i % 4);
		snprintf(log, sizeof(log), "%s/0.log", ctr);
		container_id(id, i);
		snprintf(link, sizeof(link),
			 "%s/containers/pod-%d_ns-%d_ctr-%d-%s.log", dir, i / 4,
			 i / 4 % 10, i % 4, id);
		if (!make) {
			unlink(link);
			unlink(log);
			rmdir(ctr);
			rmdir(pod);
			continue;
		}
		mkdir(pod, 0755);
		mkdir(ctr, 0755);
		err |= close(creat(log, 0644)) |
		       (symlink(log, link) && errno != EEXIST);
	}
	return err;
}

/* The interval's entries, shuffled as a BPF hash hands them out. */
static int make_interval(struct interval_data *d, long n, int threads,
			 int nr_events, const uint64_t *ids, int k,
			 bool with_hostile)
{
	size_t nr = n * threads;
	uint64_t x = 42;

	d->keys = calloc(nr, sizeof(*d->keys));
	d->value_size = BPMC_VALUE_SIZE(nr_events);
	d->values = calloc(nr, d->value_size);
	if (!d->keys || !d->values)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		long p = i / threads;
		struct bpmc_value *v = (struct bpmc_value *)((char *)d->values +
							     i * d->value_size);

		d->keys[i] = (struct bpmc_key){
			.cgroup_id = ids[p % k],
			.tgid = p + 1,
			.tid = threads > 1 ? p + 1 + (i % threads) * 1000000 :
					     0,
		};
		for (int e = 0; e < nr_events; e++) {
			v->ev[e].count = 1000 + i + e;
			v->ev[e].samples = 1 + e;
		}
		if (with_hostile && p % 10 == 0)
			snprintf(v->comm, sizeof(v->comm), "%s",
				 hostile[p / 10 % ARRAY_SIZE(hostile)]);
		else
			snprintf(v->comm, sizeof(v->comm), "k%ld", p % 100000);
	}
	for (size_t i = nr; i > 1; i--) { /* Fisher-Yates, xorshift64 */
		size_t j;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = x % i;
		struct bpmc_key tk = d->keys[i - 1];
		char tv[sizeof(struct bpmc_value)];

		d->keys[i - 1] = d->keys[j];
		d->keys[j] = tk;
		memcpy(tv, interval_data__value(d, i - 1), d->value_size);
		memcpy((char *)interval_data__value(d, i - 1),
		       interval_data__value(d, j), d->value_size);
		memcpy((char *)interval_data__value(d, j), tv, d->value_size);
	}
	d->nr = d->cap = nr;
	return 0;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void print_stats(const char *what, const char *unit, double *v, int n)
{
	qsort(v, n, sizeof(*v), by_value);
	printf("rows_cost_%s_%s %.1f\n", what, unit, v[n / 2]);
	printf("rows_cost_%s_%s_range %.1f-%.1f\n", what, unit, v[0], v[n - 1]);
}

int main(int argc, char **argv)
{
	int k = 1, reps = 7, threads = 1, nr_events = 1, opt;
	bool with_hostile = false;
	const char *keep = NULL;
	char dir[] = "/tmp/bpmc-rows-cost-XXXXXX", path[NR_SINKS][4200];
	static uint64_t ids[MAX_CGROUPS];
	struct rows_opts ropts = { .scopes = SCOPE_CGROUP | SCOPE_PROCESS,
				   .rollup_depth = -1 };
	struct event_list events = {};
	struct counter_totals totals = {};
	struct interval_data data = {};
	struct sink sinks[NR_SINKS] = { { .ops = &discard_ops } };
	double cpu[NR_SINKS][MAX_REPS], wall[NR_SINKS][MAX_REPS];
	struct cgroups *cgroups = NULL;
	struct drain_sums sums;
	struct error err = {};
	char mount[4096];
	struct rusage ru;
	long n;
	int ret = 1;

	while ((opt = getopt(argc, argv, "c:CHr:k:")) != -1) {
		switch (opt) {
		case 'c':
			k = atoi(optarg);
			break;
		case 'C': /* record's default: container and pod rows */
			ropts.scopes |= SCOPE_CONTAINER;
			break;
		case 'H':
			with_hostile = true;
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		case 'k':
			keep = optarg;
			break;
		default:
			return 2;
		}
	}
	n = optind + 1 == argc ? atol(argv[optind]) : 0;
	if (n <= 0 || k < 1 || k > MAX_CGROUPS - 16 || reps < 1 ||
	    reps > MAX_REPS) {
		fprintf(stderr,
			"usage: rows_cost [-c CGROUPS] [-C] [-H] [-r REPS] [-k DIR] N\n");
		return 2;
	}
	if (with_hostile) {
		threads = nr_events = 2;
		ropts.scopes |= SCOPE_THREAD | SCOPE_CONTAINER;
		ropts.rollup_depth = INT_MAX;
	}
	if (cgroups__find_mount(NULL, mount, sizeof(mount)))
		return 2;
	if (k > 1 || with_hostile) {
		if (make_cgroups(mount, k, with_hostile, ids)) {
			fprintf(stderr,
				"rows_cost: cannot make cgroups under %s\n",
				mount);
			goto out;
		}
		mkdir(KUBE_DIR, 0755);
		mkdir(KUBE_DIR "/pods", 0755);
		mkdir(KUBE_DIR "/containers", 0755);
		if (kube_tree(KUBE_DIR, k, true) ||
		    kube__new(&ropts.kube, KUBE_DIR "/pods",
			      KUBE_DIR "/containers", &err)) {
			fprintf(stderr, "rows_cost: cannot name pods: %s\n",
				err.msg);
			goto out;
		}
	}
	if (cgroups__new(&cgroups, NULL, &err)) {
		fprintf(stderr, "rows_cost: %s\n", err.msg);
		goto out;
	}
	if (k == 1 && !with_hostile)
		ids[0] = cgroups__root_id(cgroups);
	ropts.cgroups = cgroups;
	events.nr = nr_events;
	for (int e = 0; e < nr_events; e++) {
		snprintf(events.ev[e].name, EVENT_NAME_LEN, "%s",
			 e ? "page-faults" : "cpu-clock");
		totals.raw[e].enabled = totals.raw[e].running = 1;
		totals.scaled[e] = 1000000000;
	}
	if (make_interval(&data, n, threads, nr_events, ids, k, with_hostile))
		goto out;
	if (!keep && !mkdtemp(dir))
		goto out;
	snprintf(path[NULL_DEV], sizeof(path[NULL_DEV]), "/dev/null");
	for (int s = NULL_DEV; s < NR_SINKS; s++) {
		if (s != NULL_DEV)
			snprintf(path[s], sizeof(path[s]), "%s/out.csv%s",
				 keep ? keep : dir, s == GZIP ? ".gz" : "");
		if (csv_sink__new(&sinks[s],
				  &(struct csv_config){ .path = path[s],
							.host = "h",
							.backlog = 1 })) {
			fprintf(stderr, "rows_cost: %s\n", sinks[s].error.msg);
			goto out;
		}
	}
	/* One warm-up interval a sink: buffers grow once in a collector. */
	for (int r = -1; r < reps; r++) {
		for (int s = 0; s < NR_SINKS; s++) {
			struct interval_info info = {
				.end_realtime_ns = 1764490025647000000ull +
						   (r + 1) * 1000000000ull,
				.length_ns = 1000000000,
				.host = "h",
			};
			uint64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
			uint64_t t0 = clock_ns(CLOCK_MONOTONIC);

			cgroups__new_interval(cgroups);
			if (ropts.kube)
				kube__new_interval(ropts.kube,
						   clock_ns(CLOCK_MONOTONIC));
			if (sinks[s].ops->begin_interval(&sinks[s], &info) ||
			    drain__write_rows(&data, &ropts, &events, &totals,
					      &sinks[s], &sums) ||
			    sinks[s].ops->end_interval(&sinks[s])) {
				fprintf(stderr, "rows_cost: %s\n",
					sinks[s].error.msg);
				goto out;
			}
			if (r < 0)
				continue;
			cpu[s][r] =
				(clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / 1e6;
			wall[s][r] = (clock_ns(CLOCK_MONOTONIC) - t0) / 1e6;
		}
	}
	printf("rows_cost_keys %zu\nrows_cost_reps %d\n", data.nr, reps);
	for (int s = 0; s < NR_SINKS; s++) {
		print_stats(sink_names[s], "cpu_ms", cpu[s], reps);
		print_stats(sink_names[s], "ms", wall[s], reps);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("rows_cost_peak_rss_mib %.1f\n", ru.ru_maxrss / 1024.0);
	ret = 0;
out:
	for (int s = NULL_DEV; s < NR_SINKS; s++) {
		if (sinks[s].priv && sinks[s].ops->close(&sinks[s]))
			fprintf(stderr, "rows_cost: %s\n", sinks[s].error.msg);
		if (!keep && s != NULL_DEV)
			unlink(path[s]);
	}
	if (!keep)
		rmdir(dir);
	free(data.keys);
	free(data.values);
	cgroups__free(cgroups);
	kube__free(ropts.kube);
	if (!keep) {
		remove_cgroups();
		kube_tree(KUBE_DIR, k, false);
		rmdir(KUBE_DIR "/pods");
		rmdir(KUBE_DIR "/containers");
		rmdir(KUBE_DIR);
	}
	return ret;
}
