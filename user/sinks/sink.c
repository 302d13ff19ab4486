// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>

#include "sinks/sink.h"

void notice__vsay(void (*notice)(void *ctx, bool warning, const char *msg),
		  void *ctx, bool warning, const char *fmt, va_list ap)
{
	char msg[1024];

	if (!notice)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	notice(ctx, warning, msg);
}

void sink__notice(struct sink *s, bool warning, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	notice__vsay(s->notice, s->notice_ctx, warning, fmt, ap);
	va_end(ap);
}
