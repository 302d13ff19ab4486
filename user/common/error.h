/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one error channel. A module that fails returns -errno and, when
 * the caller handed it a struct error, one lower-case line that names the
 * culprit; the command decides whether and how to print it. Modules never
 * print.
 */
#ifndef BPMC_COMMON_ERROR_H
#define BPMC_COMMON_ERROR_H

#define ERROR_LEN 1024

struct error {
	char msg[ERROR_LEN]; /* "" until something failed */
};

/*
 * Formats the message into e (which may be NULL) and returns -errnum,
 * whether errnum is given as EINVAL or -EINVAL.
 */
int error__set(struct error *e, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Appends to the message already set, e.g. " (did you mean ...?)". */
void error__append(struct error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * What a command prints for a failure: the message, or strerror(-err)
 * when the module that failed left it empty, so that no refusal is
 * blank. err is -errno or errno.
 */
const char *error__why(const struct error *e, int err);

#endif
