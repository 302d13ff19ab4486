// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"

int grow__reserve(void *ptr, size_t *cap, size_t nr, size_t size, size_t min)
{
	size_t n = *cap ? *cap * 2 : min;
	void *old, *grown;

	if (nr <= *cap)
		return 0;
	if (n < nr)
		n = nr;
	if (size && n > SIZE_MAX / size)
		return -ENOMEM;
	/* Through memcpy: ptr may point at any object pointer type. */
	memcpy(&old, ptr, sizeof(old));
	grown = realloc(old, n * size);
	if (!grown)
		return -ENOMEM;
	memcpy(ptr, &grown, sizeof(grown));
	*cap = n;
	return 0;
}
