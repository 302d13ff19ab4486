// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>

#include "sinks/sink.h"

void sink__notice(struct sink *s, bool warning, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!s->notice)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->notice(s->notice_ctx, warning, msg);
}
