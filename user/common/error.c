// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"

int error__set(struct error *e, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (e) {
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return errnum < 0 ? errnum : -errnum;
}

void error__append(struct error *e, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	if (!e)
		return;
	n = strnlen(e->msg, sizeof(e->msg));
	if (n + 1 >= sizeof(e->msg))
		return;
	va_start(ap, fmt);
	vsnprintf(e->msg + n, sizeof(e->msg) - n, fmt, ap);
	va_end(ap);
}

const char *error__why(const struct error *e, int err)
{
	if (e && e->msg[0])
		return e->msg;
	return err ? strerror(err < 0 ? -err : err) : "unknown error";
}
