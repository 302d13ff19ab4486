// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "report/diff.h"
#include "report/output.h"

/* One number before and after. */
struct change {
	double before, after, delta, pct, err;
	bool significant;
};

struct joined {
	const struct report_row *b, *a; /* either may be NULL */
	struct change *c; /* [nr_cols]: events' rates, then metrics */
	double rank;
};

struct diff {
	const struct report_result *before, *after;
	unsigned nr_keys; /* key columns */
	const char **names; /* columns: "EVENT/s", then metric names */
	int *ev_b, *ev_a; /* each column's index on either side, or -1 */
	unsigned nr_cols, nr_ev_cols;
	struct joined *rows;
	unsigned nr_rows;
};

static int find_event(const struct report_result *r, const char *name)
{
	for (unsigned i = 0; i < r->nr_events; i++)
		if (!strcmp(r->events[i].name, name))
			return i;
	return -1;
}

static int find_metric(const struct report_result *r, const char *name)
{
	for (unsigned i = 0; i < r->nr_metrics; i++)
		if (!strcmp(r->metrics[i].name, name))
			return i;
	return -1;
}

static int cmp_key(const struct report_row *x, const struct report_row *y,
		   unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		int c = strcmp(x->key[i], y->key[i]);

		if (c)
			return c;
	}
	return 0;
}

static unsigned diff_nr_keys;

static int cmp_row_ptr(const void *a, const void *b)
{
	return cmp_key(*(const struct report_row *const *)a,
		       *(const struct report_row *const *)b, diff_nr_keys);
}

static void value_of(const struct diff *d, unsigned col,
		     const struct report_row *row, bool after, double *v,
		     double *err)
{
	int i = after ? d->ev_a[col] : d->ev_b[col];

	*v = 0;
	*err = 0;
	if (col < d->nr_ev_cols) {
		/* A key missing on one side counted nothing there. */
		if (!row || i < 0)
			return;
		*v = row->cells[i].per_s;
		*err = isnan(row->cells[i].rel_err) ?
			       0 :
			       row->cells[i].rel_err * fabs(*v);
	} else {
		*v = NAN;
		if (!row || i < 0)
			return;
		*v = row->metrics[i].value;
		*err = isfinite(row->metrics[i].rel_err) ?
			       row->metrics[i].rel_err * fabs(*v) :
			       0;
	}
}

static void compute(const struct diff *d, struct joined *j, double sigma)
{
	for (unsigned c = 0; c < d->nr_cols; c++) {
		struct change *ch = &j->c[c];
		double eb, ea;

		value_of(d, c, j->b, false, &ch->before, &eb);
		value_of(d, c, j->a, true, &ch->after, &ea);
		ch->delta = ch->after - ch->before;
		ch->pct = ch->before ? 100 * ch->delta / fabs(ch->before) : NAN;
		ch->err = sqrt(eb * eb + ea * ea);
		ch->significant = !isnan(ch->delta) &&
				  fabs(ch->delta) > sigma * ch->err &&
				  ch->delta != 0;
	}
}

static int cmp_rank(const void *a, const void *b)
{
	const struct joined *x = a, *y = b;

	if (isnan(x->rank) != isnan(y->rank))
		return isnan(x->rank) ? 1 : -1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	return cmp_key(x->a ? x->a : x->b, y->a ? y->a : y->b, diff_nr_keys);
}

static int diff_build(struct diff *d, double sigma)
{
	const struct report_result *b = d->before, *a = d->after;
	const struct report_row **rb = calloc(b->nr_rows + 1, sizeof(*rb));
	const struct report_row **ra = calloc(a->nr_rows + 1, sizeof(*ra));
	unsigned i = 0, k = 0, sort_col = 0;
	int err = -ENOMEM;

	d->nr_keys = b->nr_key_cols;
	diff_nr_keys = d->nr_keys;
	d->names = calloc(b->nr_events + a->nr_events + b->nr_metrics +
				  a->nr_metrics + 1,
			  sizeof(*d->names));
	d->ev_b = calloc(b->nr_events + a->nr_events + b->nr_metrics +
				 a->nr_metrics + 1,
			 sizeof(int));
	d->ev_a = calloc(b->nr_events + a->nr_events + b->nr_metrics +
				 a->nr_metrics + 1,
			 sizeof(int));
	d->rows = calloc(b->nr_rows + a->nr_rows + 1, sizeof(*d->rows));
	if (!rb || !ra || !d->names || !d->ev_b || !d->ev_a || !d->rows)
		goto out;
	/* Columns: the union of both sides' events, then metrics, by name. */
	for (int side = 0; side < 2; side++) {
		const struct report_result *r = side ? a : b;

		for (unsigned e = 0; e < r->nr_events; e++) {
			unsigned c;

			for (c = 0; c < d->nr_cols &&
				    strcmp(d->names[c], r->events[e].name);
			     c++)
				;
			if (c == d->nr_cols) {
				d->names[c] = r->events[e].name;
				d->ev_b[c] = find_event(b, r->events[e].name);
				d->ev_a[c] = find_event(a, r->events[e].name);
				d->nr_cols++;
			}
		}
	}
	d->nr_ev_cols = d->nr_cols;
	for (int side = 0; side < 2; side++) {
		const struct report_result *r = side ? a : b;

		for (unsigned m = 0; m < r->nr_metrics; m++) {
			unsigned c;

			for (c = d->nr_ev_cols;
			     c < d->nr_cols &&
			     strcmp(d->names[c], r->metrics[m].name);
			     c++)
				;
			if (c == d->nr_cols) {
				d->names[c] = r->metrics[m].name;
				d->ev_b[c] = find_metric(b, r->metrics[m].name);
				d->ev_a[c] = find_metric(a, r->metrics[m].name);
				d->nr_cols++;
			}
		}
	}
	/* The sort column: the after side's. */
	const char *sort = a->sort_is_metric ? a->metrics[a->sort_index].name :
			   a->nr_events	     ? a->events[a->sort_index].name :
					       NULL;

	for (unsigned c = 0; sort && c < d->nr_cols; c++)
		if (!strcmp(d->names[c], sort) &&
		    (c >= d->nr_ev_cols) == a->sort_is_metric)
			sort_col = c;
	/* Join by key: both sides sorted by key, merged. */
	for (unsigned x = 0; x < b->nr_rows; x++)
		rb[x] = &b->rows[x];
	for (unsigned x = 0; x < a->nr_rows; x++)
		ra[x] = &a->rows[x];
	qsort(rb, b->nr_rows, sizeof(*rb), cmp_row_ptr);
	qsort(ra, a->nr_rows, sizeof(*ra), cmp_row_ptr);
	while (i < b->nr_rows || k < a->nr_rows) {
		struct joined *j = &d->rows[d->nr_rows];
		int c = i >= b->nr_rows ? 1 :
			k >= a->nr_rows ? -1 :
					  cmp_key(rb[i], ra[k], d->nr_keys);

		j->b = c <= 0 ? rb[i++] : NULL;
		j->a = c >= 0 ? ra[k++] : NULL;
		j->c = calloc(d->nr_cols + 1, sizeof(*j->c));
		if (!j->c)
			goto out;
		d->nr_rows++;
		compute(d, j, sigma);
		j->rank = d->nr_cols ? fabs(j->c[sort_col].delta) : 0;
	}
	qsort(d->rows, d->nr_rows, sizeof(*d->rows), cmp_rank);
	err = 0;
out:
	free(rb);
	free(ra);
	return err;
}

static const char *key_of(const struct joined *j, unsigned c)
{
	return (j->a ? j->a : j->b)->key[c];
}

static void write_csv(const struct diff *d, unsigned n, FILE *out)
{
	static const char *const parts[] = { "before", "after", "change_pct",
					     "err_pct", "significant" };

	for (unsigned c = 0; c < d->nr_keys; c++)
		fprintf(out, "%s,", d->before->key_cols[c]);
	fputs("in", out);
	for (unsigned c = 0; c < d->nr_cols; c++) {
		for (unsigned p = 0; p < 5; p++) {
			char name[600];

			snprintf(name, sizeof(name), "%s%s:%s", d->names[c],
				 c < d->nr_ev_cols ? "/s" : "", parts[p]);
			fputc(',', out);
			report_put_text(out, name);
		}
	}
	fputc('\n', out);
	for (unsigned r = 0; r < n; r++) {
		const struct joined *j = &d->rows[r];

		for (unsigned c = 0; c < d->nr_keys; c++) {
			if (report_col_is_number(d->before->key_cols[c]))
				fputs(key_of(j, c), out);
			else
				report_put_text(out, key_of(j, c));
			fputc(',', out);
		}
		fputs(j->a && j->b ? "both" : j->a ? "after" : "before", out);
		for (unsigned c = 0; c < d->nr_cols; c++) {
			const struct change *ch = &j->c[c];
			double err_pct =
				ch->before ? 100 * ch->err / fabs(ch->before) :
					     NAN;

			fputc(',', out);
			report_put_number(out, ch->before);
			fputc(',', out);
			report_put_number(out, ch->after);
			fputc(',', out);
			report_put_number(out, ch->pct);
			fputc(',', out);
			report_put_number(out, err_pct);
			fprintf(out, ",%d", ch->significant);
		}
		fputc('\n', out);
	}
}

static void write_json(const struct diff *d, unsigned n, FILE *out)
{
	struct json j;

	json_init(&j, out);
	json_object_start(&j);
	json_key(&j, "rows");
	json_array_start(&j);
	for (unsigned r = 0; r < n; r++) {
		const struct joined *row = &d->rows[r];

		json_object_start(&j);
		json_key(&j, "key");
		json_object_start(&j);
		for (unsigned c = 0; c < d->nr_keys; c++)
			json_kv_string(&j, d->before->key_cols[c],
				       key_of(row, c));
		json_object_end(&j);
		json_kv_string(&j, "in",
			       row->a && row->b ? "both" :
			       row->a		? "after" :
						  "before");
		for (int part = 0; part < 2; part++) {
			json_key(&j, part ? "metrics" : "rates");
			json_object_start(&j);
			for (unsigned c = part ? d->nr_ev_cols : 0;
			     c < (part ? d->nr_cols : d->nr_ev_cols); c++) {
				const struct change *ch = &row->c[c];

				json_key(&j, d->names[c]);
				json_object_start(&j);
				json_kv_double(&j, "before", ch->before);
				json_kv_double(&j, "after", ch->after);
				json_kv_double(&j, "change_pct", ch->pct);
				json_kv_double(&j, "err", ch->err);
				json_kv_bool(&j, "significant",
					     ch->significant);
				json_object_end(&j);
			}
			json_object_end(&j);
		}
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
	fputc('\n', out);
}

static void write_table(const struct diff *d, unsigned n, FILE *out)
{
	for (unsigned r = 0; r < n; r++) {
		const struct joined *j = &d->rows[r];

		for (unsigned c = 0; c < d->nr_keys; c++)
			fprintf(out, "%s%s", c ? " " : "",
				*key_of(j, c) ? key_of(j, c) : "-");
		fprintf(out, "%s\n",
			j->a && j->b ? "" :
			j->a	     ? "  (after only)" :
				       "  (before only)");
		for (unsigned c = 0; c < d->nr_cols; c++) {
			const struct change *ch = &j->c[c];
			char pct[32] = "-";

			if (!isnan(ch->pct))
				snprintf(pct, sizeof(pct), "%+.2f%%", ch->pct);
			fprintf(out,
				"  %-28s %14.6g -> %-14.6g %10s  +-%-10.3g %s\n",
				d->names[c], ch->before, ch->after, pct,
				ch->err, ch->significant ? "significant" : "");
		}
	}
	fprintf(out,
		"\n%u keys; rates per second; +-: the change's error (1/sqrt(samples) of sampling-mode rows)\n",
		d->nr_rows);
}

int report_write_diff(const struct report_result *before,
		      const struct report_result *after, double sigma,
		      unsigned top, enum diff_format format, FILE *out)
{
	struct diff d = { .before = before, .after = after };
	unsigned n;
	int err;

	if (before->nr_key_cols != after->nr_key_cols)
		return -EINVAL;
	err = diff_build(&d, sigma);
	if (!err) {
		n = top && top < d.nr_rows ? top : d.nr_rows;
		if (format == DIFF_CSV)
			write_csv(&d, n, out);
		else if (format == DIFF_JSON)
			write_json(&d, n, out);
		else
			write_table(&d, n, out);
		if (fflush(out) || ferror(out))
			err = -EIO;
	}
	for (unsigned i = 0; i < d.nr_rows; i++)
		free(d.rows[i].c);
	free(d.rows);
	free(d.names);
	free(d.ev_b);
	free(d.ev_a);
	return err;
}
