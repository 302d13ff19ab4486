/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The caller's pointers, copied through the kernel as a system call's
 * would be: an address it cannot read, or write, is -EFAULT, never a
 * crash. Every pointer of pmc_control(3), the NetBSD calls' argp and the
 * Linux extensions' arguments alike, goes through here.
 */
#ifndef BPMC_PMC_UACCESS_H
#define BPMC_PMC_UACCESS_H

#include <stddef.h>

/* 0 or -EFAULT (NULL included). */
int copy_in(void *dst, const void *uaddr, size_t len);
int copy_out(void *uaddr, const void *src, size_t len);
/*
 * The string at uaddr into dst, of cap bytes, NUL included: 0, -EFAULT,
 * or -ENAMETOOLONG when no NUL comes within cap bytes. Reads no byte past
 * the NUL, so a string that ends just before an unmapped page is whole.
 */
int copy_in_string(char *dst, size_t cap, const void *uaddr);
/* src into uaddr, of len bytes, as snprintf(uaddr, len, "%s", src) would
 * write it (len > 0): 0 or -EFAULT. */
int copy_out_string(void *uaddr, size_t len, const char *src);

#endif
