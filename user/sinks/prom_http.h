/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --listen [ADDR]:PORT: GET /metrics over libmicrohttpd, from the latest
 * snapshot only. One internal thread polls every connection; a bounded
 * number of connections (PROM_HTTP_MAX_CONNECTIONS, fewer per client
 * address) each hold at most one snapshot and a fixed memory pool, and
 * one idle for PROM_HTTP_TIMEOUT_S is closed: a slow or stuck client
 * costs neither a thread nor unbounded memory.
 *
 * MHD's timeout is an idle one: a client that sends a header line every
 * few seconds would hold its slot for good (slowloris). So one address
 * gets only PROM_HTTP_MAX_PER_CLIENT slots, a sixteenth of them all:
 * clients that hold slots from fewer than 16 addresses leave room for a
 * scraper from another one (test_prom_http_hostile.sh). And each
 * request, the wait for it on a kept-alive connection included, must be
 * read and answered within PROM_HTTP_DEADLINE_S, or a thread of the
 * server's shuts the connection down: clients on more addresses delay a
 * scrape by that much, not for as long as they keep at it.
 */
#ifndef BPMC_SINKS_PROM_HTTP_H
#define BPMC_SINKS_PROM_HTTP_H

#include <stddef.h>
#include <sys/socket.h>

#include "common/error.h"
#include "sinks/prom_snapshot.h"

#define PROM_HTTP_MAX_CONNECTIONS 64
#define PROM_HTTP_MAX_PER_CLIENT 4
#define PROM_HTTP_TIMEOUT_S 10
#define PROM_HTTP_DEADLINE_S 5
#define PROM_HTTP_REAP_NS 250000000ull /* how often deadlines are checked */
#define PROM_HTTP_MEMORY_LIMIT 32768 /* each connection's request pool */
#define PROM_DEFAULT_ADDR "127.0.0.1"

/*
 * "[ADDR]:PORT": "127.0.0.1:9467", "0.0.0.0:9467", "[::1]:9467", or
 * ":9467" for the loopback; numeric addresses only (nothing is looked
 * up), port 0 for any free one.
 */
int prom_http__parse(const char *spec, struct sockaddr_storage *ss,
		     socklen_t *len, struct error *err);
/* Parses, binds and listens, before anything else runs: a taken port
 * is refused at start. */
int prom_http__bind(const char *spec, int *fd, struct error *err);
/* "127.0.0.1:9467", the address fd is bound to (the port 0 chose). */
void prom_http__describe(int fd, char *buf, size_t len);

struct prom_http;

/*
 * Serves the bound fd (which it then owns) from latest. Signals are
 * blocked in its thread: they are the interval loop's.
 */
int prom_http__start(struct prom_http **h, int fd, struct prom_latest *latest,
		     struct error *err);
/* Stops serving, closes the connections and the socket. */
void prom_http__stop(struct prom_http *h);

#endif
