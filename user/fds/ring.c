// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fds/ring.h"

int ring__map(struct ring *r, int fd, unsigned order)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *map;

	memset(r, 0, sizeof(*r));
	r->data_size = page << order;
	r->map_size = page + r->data_size;
	map = mmap(NULL, r->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   0);
	if (map == MAP_FAILED) {
		memset(r, 0, sizeof(*r));
		return -errno;
	}
	r->meta = map;
	r->data = (unsigned char *)map + page;
	return 0;
}

void ring__unmap(struct ring *r)
{
	if (r->meta)
		munmap(r->meta, r->map_size);
	memset(r, 0, sizeof(*r));
}

size_t ring__drain(struct ring *r, ring_record_fn fn, void *ctx)
{
	/* Enough for every record we ask for (MMAP2's name is at most
	 * PATH_MAX); a bigger one that wraps is skipped, not cut. */
	union {
		struct perf_event_header h;
		unsigned char bytes[8192];
	} copy;
	uint64_t head, tail;
	size_t mask = r->data_size - 1, n = 0;

	if (!r->meta)
		return 0;
	/* Pairs with the kernel's store of data_head after it wrote. */
	head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	tail = r->meta->data_tail;
	while (tail < head) {
		const struct perf_event_header *h =
			(const void *)(r->data + (tail & mask));
		size_t off = tail & mask, size = h->size;

		if (size < sizeof(*h) || size > head - tail)
			break; /* never seen; stop rather than loop */
		if (off + size > r->data_size && size > sizeof(copy)) {
			tail += size;
			continue;
		}
		if (off + size > r->data_size) {
			size_t first = r->data_size - off;

			memcpy(copy.bytes, r->data + off, first);
			memcpy(copy.bytes + first, r->data, size - first);
			h = &copy.h;
		}
		fn(ctx, h);
		tail += size;
		n++;
	}
	/* The kernel may overwrite what we read once it sees this. */
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}
