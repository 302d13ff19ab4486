/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A perf_event fd's mmap'ed ring buffer, read from user space: the
 * records the kernel wrote (samples, PERF_RECORD_READ, EXIT, MMAP2, ...)
 * handed one by one to a callback, whole even where they wrap.
 */
#ifndef BPMC_FDS_RING_H
#define BPMC_FDS_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct ring {
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	size_t data_size; /* a power of two */
	size_t map_size;
};

/* A record as the kernel laid it out: header, then its fields. */
typedef void (*ring_record_fn)(void *ctx, const struct perf_event_header *h);

/* Maps 2^order data pages of fd. 0 or -errno. */
int ring__map(struct ring *r, int fd, unsigned order);
void ring__unmap(struct ring *r);

/*
 * Hands every complete record written so far to fn, then gives the
 * space back to the kernel. Returns the number of records.
 */
size_t ring__drain(struct ring *r, ring_record_fn fn, void *ctx);

#endif
