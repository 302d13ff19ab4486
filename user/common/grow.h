/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one way a buffer or array grows: to at least what is asked, and
 * at least twice what it had, so that n appends cost O(n) copies.
 */
#ifndef BPMC_COMMON_GROW_H
#define BPMC_COMMON_GROW_H

#include <stddef.h>

/*
 * Room for nr elements of size bytes in the array at *ptr (a pointer to
 * the array's pointer), whose capacity *cap counts elements; the first
 * allocation holds at least min. 0 or -ENOMEM, which leaves *ptr and
 * *cap as they were.
 */
int grow__reserve(void *ptr, size_t *cap, size_t nr, size_t size, size_t min);

/* grow__reserve() of array arr (a pointer lvalue) and its capacity. */
#define GROW(arr, cap, nr, min) \
	grow__reserve(&(arr), &(cap), (nr), sizeof(*(arr)), (min))

#endif
