/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpmc's one hash function, for every table (common/hash_index.h): a
 * multiply-xorshift over 8-byte words. Keys are short (an id, a few ids,
 * tens to a few hundred bytes of labels or fields) and one is hashed per
 * row, so it is inline: a key of constant size compiles to a few
 * multiplies.
 */
#ifndef BPMC_COMMON_HASH_H
#define BPMC_COMMON_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* len bytes at data, continuing from seed (0, or an earlier hash). */
static inline uint64_t hash_bytes_from(uint64_t seed, const void *data,
				       size_t len)
{
	const unsigned char *p = data;
	uint64_t h = seed ^ 0x9e3779b97f4a7c15ull ^
		     (len * 0xc2b2ae3d27d4eb4full);
	uint64_t v;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&v, p, 8);
		h = (h ^ v) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	if (len) {
		v = 0;
		memcpy(&v, p, len);
		h = (h ^ v) * 0xc4ceb9fe1a85ec53ull;
	}
	h ^= h >> 32;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 29;
	return h;
}

static inline uint64_t hash_bytes(const void *data, size_t len)
{
	return hash_bytes_from(0, data, len);
}

#endif
