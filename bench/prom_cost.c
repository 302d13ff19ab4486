// SPDX-License-Identifier: GPL-2.0
/*
 * prom_cost N: what one Prometheus scrape of N series costs bpmc in CPU,
 * beside what the CSV sink costs for the same interval's rows. The rows
 * are N cgroups of a Kubernetes node (systemd driver paths, the
 * kubelet's names, container_id and pod_uid: about 460 bytes a series),
 * cpu-clock each (rendered in seconds); every round
 * changes every count, as a busy host does.
 *
 * A round, timed on this process's CPU clock (all its threads, so the
 * server's too): the rows into the Prometheus sink, the interval's end
 * (render and publish), then one scrape served to a client in another
 * process (its CPU is not ours), as Prometheus asks (OpenMetrics, gzip),
 * and again plain (text, no gzip). Then the same rows into the CSV sink,
 * written to a file. Medians of the rounds after the first, which also
 * grows the buffers.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sinks/csv_sink.h"
#include "sinks/prom.h"
#include "sinks/prom_http.h"

#define ROUNDS 15
#define PROMETHEUS_ACCEPT                                                          \
	"application/openmetrics-text;version=1.0.0,application/openmetrics-text;" \
	"version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"

/*
 * The CPU of every thread of ours. Another thread's time is added up
 * when it leaves its CPU: first let the server go back to its poll.
 */
static double cpu_ms(void)
{
	struct timespec t, settle = { .tv_nsec = 20000000 };

	nanosleep(&settle, NULL);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The client: one GET per byte read from go; the bytes it got to done. */
/* The median of the rounds after the first, named by fmt (with n). */
static void report(long n, const char *fmt, double *v)
{
	printf(fmt, n);
	printf(" %.2f\n", median(v + 1, ROUNDS - 1));
}

static void client(int port, int go, int done)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	char req[512], buf[65536], mode;
	long total;
	ssize_t n;
	int fd;

	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	while (read(go, &mode, 1) == 1) {
		snprintf(req, sizeof(req),
			 "GET /metrics HTTP/1.1\r\nHost: bench\r\n%s"
			 "Connection: close\r\n\r\n",
			 mode == 'g' ? "Accept: " PROMETHEUS_ACCEPT
				       "\r\nAccept-Encoding: gzip\r\n" :
				       "");
		total = -1;
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd >= 0 && !connect(fd, (void *)&sa, sizeof(sa)) &&
		    write(fd, req, strlen(req)) == (ssize_t)strlen(req))
			for (total = 0; (n = read(fd, buf, sizeof(buf))) > 0;)
				total += n;
		if (fd >= 0)
			close(fd);
		if (write(done, &total, sizeof(total)) != sizeof(total))
			break;
	}
	_exit(0);
}

static void make_rows(struct row *rows, char (*paths)[256],
		      char (*containers)[96], char (*pods)[40], long n)
{
	for (long i = 0; i < n; i++) {
		snprintf(pods[i], sizeof(pods[i]),
			 "3f2a1c0e-1b2d-4e5f-8a9b-%012lx", i / 2);
		snprintf(containers[i], sizeof(containers[i]),
			 "containerd://%064lx", i * 2654435761ul);
		snprintf(
			paths[i], sizeof(paths[i]),
			"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod3f2a1c0e_1b2d_4e5f_8a9b_%012lx.slice/cri-containerd-%064lx.scope",
			i / 2, i * 2654435761ul);
		rows[i] = (struct row){
			.scope = "cgroup",
			.cgroup_id = 1000 + i,
			.cgroup = paths[i],
			.container = containers[i],
			.pod = pods[i],
			.namespace = "shop",
			.pod_name = pods[i] + 24, /* the kubelet's names */
			.container_name = "app",
			.pid = -1,
			.tid = -1,
			.event = "cpu-clock",
			.running_pct = 100,
		};
	}
}

/* One interval's rows, up to but not including its end. */
static int feed(struct sink *s, struct row *rows, long n, int round)
{
	struct interval_info info = { .end_realtime_ns =
					      1 + round * 1000000000ull,
				      .length_ns = 1000000000,
				      .host = "bench" };
	int err = s->ops->begin_interval(s, &info);

	for (long i = 0; i < n && !err; i++) {
		rows[i].count = 1000000 + i * 7 + round * 13;
		rows[i].samples = 1 + i % 1000;
		err = s->ops->write_row(s, &rows[i]);
	}
	return err;
}

int main(int argc, char **argv)
{
	long n = argc == 2 ? atol(argv[1]) : 0, got[2] = {};
	static const char *events[] = { "cpu-clock" };
	double rows_ms[ROUNDS], render_ms[ROUNDS], gz_ms[ROUNDS],
		plain_ms[ROUNDS], csv_ms[ROUNDS], scrape_ms[2][ROUNDS], t0, t1,
		t2, t3;
	char dir[] = "/tmp/bpmc-prom-cost-XXXXXX", path[64], at[64];
	struct sink prom = {}, csv = {};
	struct prom_latest *latest = NULL;
	struct prom_http *http = NULL;
	int go[2] = { -1, -1 }, done[2] = { -1, -1 }, fd, ret = 1;
	struct error err = {};
	struct row *rows;
	pid_t pid;

	if (n <= 0) {
		fprintf(stderr, "usage: prom_cost SERIES\n");
		return 2;
	}
	rows = calloc(n, sizeof(*rows));
	char(*paths)[256] = calloc(n, 256);
	char(*containers)[96] = calloc(n, 96);
	char(*pods)[40] = calloc(n, 40);
	if (!rows || !paths || !containers || !pods || !mkdtemp(dir))
		return 1;
	make_rows(rows, paths, containers, pods, n);
	snprintf(path, sizeof(path), "%s/out.csv", dir);
	if (prom_latest__new(&latest) ||
	    prom_sink__new(&prom,
			   &(struct prom_config){ .events = events,
						  .nr_events = 1,
						  .scopes = PROM_SCOPES_DEFAULT,
						  .latest = latest }) ||
	    csv_sink__new(&csv, &(struct csv_config){ .path = path,
						      .host = "bench",
						      .backlog = 1 }) ||
	    prom_http__bind("127.0.0.1:0", &fd, &err)) {
		fprintf(stderr, "prom_cost: %s%s%s\n", prom.error.msg,
			csv.error.msg, err.msg);
		goto out;
	}
	prom_http__describe(fd, at, sizeof(at));
	if (pipe(go) || pipe(done))
		goto out;
	pid = fork();
	if (!pid) {
		close(go[1]);
		close(done[0]);
		client(atoi(strrchr(at, ':') + 1), go[0], done[1]);
	}
	close(go[0]);
	close(done[1]);
	if (prom_http__start(&http, fd, latest, &err)) {
		fprintf(stderr, "prom_cost: %s\n", err.msg);
		goto out;
	}
	for (int r = 0; r < ROUNDS; r++) {
		t0 = cpu_ms();
		if (feed(&prom, rows, n, r))
			goto out;
		t1 = cpu_ms();
		if (prom.ops->end_interval(&prom))
			goto out;
		rows_ms[r] = t1 - t0;
		render_ms[r] = cpu_ms() - t1;
		for (int m = 0; m < 2; m++) {
			t2 = cpu_ms();
			if (write(go[1], m ? "p" : "g", 1) != 1 ||
			    read(done[0], &got[m], sizeof(got[m])) !=
				    sizeof(got[m]) ||
			    got[m] <= 0) {
				fprintf(stderr, "prom_cost: a scrape failed\n");
				goto out;
			}
			t3 = cpu_ms();
			(m ? plain_ms : gz_ms)[r] = t3 - t2;
		}
		for (int i = 0; i < 2; i++)
			scrape_ms[i][r] =
				render_ms[r] + (i ? plain_ms : gz_ms)[r];
		t0 = cpu_ms();
		if (feed(&csv, rows, n, r) || csv.ops->end_interval(&csv))
			goto out;
		csv_ms[r] = cpu_ms() - t0;
	}
	report(n, "prom_%ld_rows_ms", rows_ms);
	report(n, "prom_%ld_render_ms", render_ms);
	report(n, "prom_%ld_serve_gzip_ms", gz_ms);
	report(n, "prom_%ld_serve_plain_ms", plain_ms);
	/* The one the goal is about: as Prometheus scrapes, once an interval. */
	report(n, "prom_%ld_scrape_ms", scrape_ms[0]);
	report(n, "prom_%ld_scrape_plain_ms", scrape_ms[1]);
	report(n, "csv_%ld_interval_ms", csv_ms);
	printf("prom_%ld_response_gzip_bytes %ld\n", n, got[0]);
	printf("prom_%ld_response_plain_bytes %ld\n", n, got[1]);
	ret = 0;
out:
	if (go[1] >= 0)
		close(go[1]);
	prom_http__stop(http);
	if (prom.priv)
		prom.ops->close(&prom);
	prom_latest__free(latest);
	if (csv.priv)
		csv.ops->close(&csv);
	unlink(path);
	rmdir(dir);
	while (wait(NULL) > 0)
		;
	return ret;
}
