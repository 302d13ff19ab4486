// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sinks/tee.h"

struct tee {
	struct tee_output out[TEE_MAX_OUTPUTS];
	int nr;
};

/* The first failure of an output becomes the tee's. */
static int failed(struct sink *s, struct sink *out, int err)
{
	s->error = out->error;
	return err;
}

static int tee_begin_interval(struct sink *s, const struct interval_info *info)
{
	struct tee *t = s->priv;
	int err;

	for (int i = 0; i < t->nr; i++) {
		err = t->out[i].sink->ops->begin_interval(t->out[i].sink, info);
		if (err)
			return failed(s, t->out[i].sink, err);
	}
	return 0;
}

static bool takes(const struct tee_output *o, const char *scope)
{
	for (int i = 0; i < o->nr_drop; i++)
		if (!strcmp(o->drop[i], scope))
			return false;
	return true;
}

static int tee_write_row(struct sink *s, const struct row *r)
{
	struct tee *t = s->priv;
	int err;

	for (int i = 0; i < t->nr; i++) {
		if (!takes(&t->out[i], r->scope))
			continue;
		err = t->out[i].sink->ops->write_row(t->out[i].sink, r);
		if (err)
			return failed(s, t->out[i].sink, err);
	}
	return 0;
}

/* Every output ends its interval, even after one failed. */
static int tee_end_interval(struct sink *s)
{
	struct tee *t = s->priv;
	int err, ret = 0;

	for (int i = 0; i < t->nr; i++) {
		err = t->out[i].sink->ops->end_interval(t->out[i].sink);
		if (err && !ret)
			ret = failed(s, t->out[i].sink, err);
	}
	return ret;
}

static void tee_rotate(struct sink *s)
{
	struct tee *t = s->priv;

	for (int i = 0; i < t->nr; i++)
		if (t->out[i].sink->ops->rotate)
			t->out[i].sink->ops->rotate(t->out[i].sink);
}

/* The outputs are their owner's to close. */
static int tee_close(struct sink *s)
{
	free(s->priv);
	s->priv = NULL;
	return 0;
}

static const struct sink_ops tee_ops = {
	.name = "tee",
	.begin_interval = tee_begin_interval,
	.write_row = tee_write_row,
	.end_interval = tee_end_interval,
	.rotate = tee_rotate,
	.close = tee_close,
};

int tee__new(struct sink *s, const struct tee_output *outs, int nr)
{
	struct tee *t;

	if (nr < 1 || nr > TEE_MAX_OUTPUTS)
		return error__set(&s->error, EINVAL,
				  "a tee takes 1 to %d outputs, not %d",
				  TEE_MAX_OUTPUTS, nr);
	t = calloc(1, sizeof(*t));
	if (!t)
		return error__set(&s->error, ENOMEM, "out of memory");
	memcpy(t->out, outs, nr * sizeof(*outs));
	t->nr = nr;
	s->ops = &tee_ops;
	s->priv = t;
	return 0;
}
