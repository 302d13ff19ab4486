/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two exposition formats the Prometheus sink serves, and the HTTP
 * negotiation between them: pure functions, so that they are unit tested
 * without a server.
 */
#ifndef BPMC_SINKS_PROM_FORMAT_H
#define BPMC_SINKS_PROM_FORMAT_H

#include <stdbool.h>

enum prom_format {
	PROM_TEXT, /* text/plain; version=0.0.4 */
	PROM_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
	PROM_NR_FORMATS,
};

#define PROM_TEXT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define PROM_OPENMETRICS_TYPE \
	"application/openmetrics-text; version=1.0.0; charset=utf-8"

/*
 * The format an Accept header asks for: OpenMetrics when it names
 * application/openmetrics-text with a q-value above 0 and no lower than
 * the best of text/plain, text/ and * / *; the text format otherwise, a
 * missing or unparsable header included (Prometheus' own clients do the
 * same: the text format is what every scraper reads).
 */
enum prom_format prom_negotiate_format(const char *accept);

/*
 * Whether an Accept-Encoding header allows gzip: "gzip" (or "x-gzip")
 * with a q-value above 0, or "*" above 0 where gzip is not named.
 */
bool prom_negotiate_gzip(const char *accept_encoding);

#endif
