// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "sinks/prom_format.h"
#include "sinks/prom_http.h"

/* One connection's deadline: past it, the reaper shuts its socket down. */
struct deadline {
	int fd;
	bool cut;
	uint64_t ns; /* CLOCK_MONOTONIC */
	struct deadline *prev, *next;
};

struct prom_http {
	struct MHD_Daemon *daemon;
	struct prom_latest *latest;
	pthread_mutex_t lock; /* conns, each deadline, stopping */
	pthread_cond_t wake;
	pthread_t reaper;
	bool stopping;
	struct deadline *conns;
};

static int parse_port(const char *s, uint16_t *port)
{
	long v;

	if (parse_long(s, 0, 65535, &v))
		return -EINVAL;
	*port = v;
	return 0;
}

int prom_http__parse(const char *spec, struct sockaddr_storage *ss,
		     socklen_t *len, struct error *err)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	char addr[INET6_ADDRSTRLEN + 2] = PROM_DEFAULT_ADDR;
	const char *colon, *port;
	uint16_t p;

	memset(ss, 0, sizeof(*ss));
	if (spec[0] == '[') {
		colon = strchr(spec, ']');
		if (!colon || colon[1] != ':' ||
		    (size_t)(colon - spec - 1) >= sizeof(addr))
			goto bad;
		snprintf(addr, sizeof(addr), "%.*s", (int)(colon - spec - 1),
			 spec + 1);
		port = colon + 2;
	} else {
		colon = strrchr(spec, ':');
		if (!colon || memchr(spec, ':', colon - spec) ||
		    (size_t)(colon - spec) >= sizeof(addr))
			goto bad;
		if (colon > spec)
			snprintf(addr, sizeof(addr), "%.*s",
				 (int)(colon - spec), spec);
		port = colon + 1;
	}
	if (parse_port(port, &p))
		goto bad;
	if (spec[0] != '[' && inet_pton(AF_INET, addr, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(p);
		*len = sizeof(*in4);
		return 0;
	}
	if (spec[0] == '[' && inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(p);
		*len = sizeof(*in6);
		return 0;
	}
bad:
	return error__set(
		err, EINVAL,
		"invalid '--listen %s': want [ADDR]:PORT with a numeric address, e.g. 127.0.0.1:9467, 0.0.0.0:9467, [::1]:9467 or :9467",
		spec);
}

int prom_http__bind(const char *spec, int *out, struct error *err)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, on = 1, ret;

	ret = prom_http__parse(spec, &ss, &len, err);
	if (ret)
		return ret;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return error__set(err, errno, "cannot listen on '%s': %s", spec,
				  strerror(errno));
	/* A restarted bpmc takes its port back from TIME_WAIT at once. */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 64)) {
		ret = -errno;
		close(fd);
		return error__set(err, ret, "cannot listen on '%s': %s", spec,
				  strerror(-ret));
	}
	*out = fd;
	return 0;
}

void prom_http__describe(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char addr[INET6_ADDRSTRLEN];
	const void *a;
	int port;

	if (getsockname(fd, (struct sockaddr *)&ss, &sl)) {
		snprintf(buf, len, "?");
		return;
	}
	if (ss.ss_family == AF_INET6) {
		a = &((struct sockaddr_in6 *)&ss)->sin6_addr;
		port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	} else {
		a = &((struct sockaddr_in *)&ss)->sin_addr;
		port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	}
	inet_ntop(ss.ss_family, a, addr, sizeof(addr));
	snprintf(buf, len, ss.ss_family == AF_INET6 ? "[%s]:%d" : "%s:%d", addr,
		 port);
}

static enum MHD_Result reply_static(struct MHD_Connection *c, unsigned status,
				    const char *body)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static void release(void *snap)
{
	prom_snapshot__put(snap);
}

/* The latest snapshot in the negotiated form; the response holds it. */
static enum MHD_Result reply_metrics(struct prom_http *h,
				     struct MHD_Connection *c)
{
	enum prom_format f = prom_negotiate_format(
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept"));
	bool gzip = prom_negotiate_gzip(MHD_lookup_connection_value(
		c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING));
	struct prom_snapshot *snap = prom_latest__get(h->latest);
	struct MHD_Response *r;
	enum MHD_Result ret;
	const char *data;
	size_t len;

	if (!snap || prom_snapshot__body(snap, f, gzip, &data, &len)) {
		prom_snapshot__put(snap);
		return reply_static(
			c, MHD_HTTP_SERVICE_UNAVAILABLE,
			"bpmc: no exposition to serve (out of memory)\n");
	}
	r = MHD_create_response_from_buffer_with_free_callback_cls(
		len, (void *)data, release, snap);
	if (!r) {
		prom_snapshot__put(snap);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				f == PROM_OPENMETRICS ? PROM_OPENMETRICS_TYPE :
							PROM_TEXT_TYPE);
	if (gzip)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING,
					"gzip");
	MHD_add_response_header(r, MHD_HTTP_HEADER_VARY,
				"Accept, Accept-Encoding");
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	if (ret == MHD_YES)
		prom_latest__count_scrape(h->latest);
	return ret;
}

/*
 * The URI as sent, before MHD splits off the query and unescapes it in
 * place: the request's first state. MHD has ended it with a NUL where
 * the space before the version was, so the version it passes on starts
 * one byte after the URI's end; a URI that ends earlier held a NUL of
 * its own ("GET /metrics\0junk"), which the handler's url hides.
 */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	(void)cls;
	(void)c;
	return (void *)(uri + strlen(uri) + 1);
}

/* %HH as MHD decodes it, but a %00 is left as sent: "/metrics%00junk"
 * would otherwise read "/metrics" and be served. */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
	(void)cls;
	(void)c;
	if (strstr(s, "%00"))
		return strlen(s);
	return MHD_http_unescape(s);
}

/* A body is coming: a Content-Length above 0 or any Transfer-Encoding. */
static bool has_body(struct MHD_Connection *c)
{
	const char *len = MHD_lookup_connection_value(
		c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);

	if (MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					MHD_HTTP_HEADER_TRANSFER_ENCODING))
		return true;
	return len && strspn(len, "0 \t") != strlen(len);
}

/*
 * First called once the headers are in: a refusal is queued then, body
 * or not, which makes MHD skip the body (and an Expect: 100-continue)
 * and close the connection; one queued while a body arrived was refused
 * and the client got an empty reply. A scrape is answered on the next
 * call, with the request whole, so that its connection stays open.
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **req)
{
	static int scrape;

	(void)upload;
	(void)upload_size;
	if (*req == &scrape)
		return reply_metrics(cls, c);
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_static(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				    "bpmc: only GET and HEAD\n");
	if (has_body(c)) /* a GET with a body: not worth reading */
		return reply_static(c, MHD_HTTP_CONTENT_TOO_LARGE,
				    "bpmc: a GET takes no body\n");
	if (*req != version || strcmp(url, "/metrics"))
		return reply_static(c, MHD_HTTP_NOT_FOUND,
				    "bpmc: the metrics are at /metrics\n");
	*req = &scrape;
	return MHD_YES;
}

static uint64_t deadline_from_now(void)
{
	return clock_ns(CLOCK_MONOTONIC) + PROM_HTTP_DEADLINE_S * 1000000000ull;
}

/*
 * A new connection gets a deadline for its first request; a closed one
 * leaves the list. MHD calls this before it closes the socket, so the
 * reaper, under the same lock, only ever shuts down a live connection's
 * fd, never one the number was given to since.
 */
static void on_connection(void *cls, struct MHD_Connection *c, void **ctx,
			  enum MHD_ConnectionNotificationCode code)
{
	struct prom_http *h = cls;
	const union MHD_ConnectionInfo *info;
	struct deadline *d;

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		d = *ctx;
		if (!d)
			return;
		pthread_mutex_lock(&h->lock);
		if (d->prev)
			d->prev->next = d->next;
		else
			h->conns = d->next;
		if (d->next)
			d->next->prev = d->prev;
		pthread_mutex_unlock(&h->lock);
		free(d);
		*ctx = NULL;
		return;
	}
	info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!info)
		return;
	d = calloc(1, sizeof(*d));
	if (!d) {
		/* Unbounded otherwise: refused. */
		shutdown(info->connect_fd, SHUT_RDWR);
		return;
	}
	d->fd = info->connect_fd;
	d->ns = deadline_from_now();
	pthread_mutex_lock(&h->lock);
	d->next = h->conns;
	if (d->next)
		d->next->prev = d;
	h->conns = d;
	pthread_mutex_unlock(&h->lock);
	*ctx = d;
}

/* A request is answered (or failed): the next one on the connection,
 * the wait for it included, has a deadline of its own. */
static void on_completed(void *cls, struct MHD_Connection *c, void **req,
			 enum MHD_RequestTerminationCode why)
{
	struct prom_http *h = cls;
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct deadline *d = info ? info->socket_context : NULL;

	(void)req;
	(void)why;
	if (!d)
		return;
	pthread_mutex_lock(&h->lock);
	d->ns = deadline_from_now();
	pthread_mutex_unlock(&h->lock);
}

/*
 * Shuts down the socket of every connection past its deadline, 4 times a
 * second: MHD's own timeout is an idle one, which a client that sends a
 * byte now and then never reaches. MHD then reads the end and closes it.
 */
static void *reap(void *arg)
{
	struct prom_http *h = arg;
	struct timespec ts;
	struct deadline *d;
	uint64_t now;

	pthread_mutex_lock(&h->lock);
	while (!h->stopping) {
		now = clock_ns(CLOCK_MONOTONIC);
		for (d = h->conns; d; d = d->next)
			if (!d->cut && d->ns <= now) {
				shutdown(d->fd, SHUT_RDWR);
				d->cut = true;
			}
		now += PROM_HTTP_REAP_NS;
		ts.tv_sec = now / 1000000000;
		ts.tv_nsec = now % 1000000000;
		pthread_cond_timedwait(&h->wake, &h->lock, &ts);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

static int init_sync(struct prom_http *h)
{
	pthread_condattr_t attr;
	int ret;

	ret = pthread_condattr_init(&attr);
	if (ret)
		return ret;
	ret = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	if (!ret)
		ret = pthread_cond_init(&h->wake, &attr);
	pthread_condattr_destroy(&attr);
	if (ret)
		return ret;
	ret = pthread_mutex_init(&h->lock, NULL);
	if (ret)
		pthread_cond_destroy(&h->wake);
	return ret;
}

int prom_http__start(struct prom_http **out, int fd, struct prom_latest *latest,
		     struct error *err)
{
	struct prom_http *h = calloc(1, sizeof(*h));
	sigset_t all, old;
	int ret;

	if (!h) {
		close(fd);
		return error__set(err, ENOMEM, "out of memory");
	}
	h->latest = latest;
	ret = init_sync(h);
	if (ret) {
		close(fd);
		free(h);
		return error__set(err, ret, "cannot start the HTTP server: %s",
				  strerror(ret));
	}
	/* The threads inherit the mask: SIGINT and SIGTERM must wake the
	 * interval loop's sleep, not land in the server's poll. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	/* MHD_USE_ITC: a stop wakes the thread at once; without it, MHD
	 * wakes it by shutting the listening socket down, which its poll
	 * does not watch while every connection slot is taken, and the stop
	 * waited for the next connection's timeout (7 to 10 s). */
	h->daemon = MHD_start_daemon(
		MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ITC, 0, NULL, NULL,
		on_request, h, MHD_OPTION_LISTEN_SOCKET, fd,
		MHD_OPTION_CONNECTION_LIMIT,
		(unsigned)PROM_HTTP_MAX_CONNECTIONS,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		(unsigned)PROM_HTTP_MAX_PER_CLIENT,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)PROM_HTTP_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)PROM_HTTP_MEMORY_LIMIT, MHD_OPTION_URI_LOG_CALLBACK,
		on_uri, NULL, MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, h, MHD_OPTION_END);
	ret = h->daemon ? pthread_create(&h->reaper, NULL, reap, h) : EIO;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		if (h->daemon)
			MHD_stop_daemon(h->daemon);
		else
			close(fd);
		pthread_mutex_destroy(&h->lock);
		pthread_cond_destroy(&h->wake);
		free(h);
		return error__set(
			err, ret,
			"cannot start the HTTP server (libmicrohttpd): %s",
			strerror(ret));
	}
	*out = h;
	return 0;
}

void prom_http__stop(struct prom_http *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	h->stopping = true;
	pthread_cond_signal(&h->wake);
	pthread_mutex_unlock(&h->lock);
	pthread_join(h->reaper, NULL);
	/* Closes every connection: on_connection frees their deadlines. */
	MHD_stop_daemon(h->daemon);
	pthread_mutex_destroy(&h->lock);
	pthread_cond_destroy(&h->wake);
	free(h);
}
