// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "report/diff.h"
#include "report/output.h"
#include "report/stats.h"

/* One number before and after. */
struct change {
	double before, after, delta, pct, err, p, df;
	const char *missing; /* "before", "after": the side without it */
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
	double alpha; /* the false discovery rate sigma stands for */
	double min_change_pct; /* smaller changes are never significant */
	size_t nr_tests; /* the changes with a p-value */
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

/*
 * One side's value of column col, and the standard error of that value
 * as a mean of the key's intervals: the spread of its per-interval
 * values (with lag-1 autocorrelation taken out of their number), or the
 * sampling error of sampling-mode rows where that is larger. *n: the
 * independent intervals behind it, 0 where the error is a model's
 * (sampling, or a key absent there: exactly nothing). false: the side
 * has no such column at all.
 */
static bool value_of(const struct diff *d, unsigned col,
		     const struct report_row *row, bool after, double *v,
		     double *se, double *n)
{
	const struct report_result *r = after ? d->after : d->before;
	int i = after ? d->ev_a[col] : d->ev_b[col];
	const struct report_spread *s = NULL;
	double samp = 0, spread;

	*v = NAN;
	*se = 0;
	*n = 0;
	if (i < 0)
		return false;
	if (col < d->nr_ev_cols) {
		*v = 0; /* a key missing on one side counted nothing there */
		if (!row)
			return true;
		*v = row->cells[i].per_s;
		if (!isnan(row->cells[i].rel_err))
			samp = row->cells[i].rel_err * fabs(*v);
		s = row->spread ? &row->spread[i] : NULL;
	} else {
		if (!row)
			return true;
		*v = row->metrics[i].value;
		if (isfinite(row->metrics[i].rel_err))
			samp = row->metrics[i].rel_err * fabs(*v);
		s = row->spread ? &row->spread[r->nr_events + i] : NULL;
	}
	spread = s ? stats_mean_se(s) : NAN;
	if (!isnan(spread) && spread >= samp) {
		*se = spread;
		*n = s->n_eff;
	} else {
		/* One interval and exact: nothing known of its error. */
		*se = samp > 0 ? samp : NAN;
	}
	return true;
}

static void compute(const struct diff *d, struct joined *j)
{
	for (unsigned c = 0; c < d->nr_cols; c++) {
		struct change *ch = &j->c[c];
		double eb, ea, nb, na;
		bool hb = value_of(d, c, j->b, false, &ch->before, &eb, &nb),
		     ha = value_of(d, c, j->a, true, &ch->after, &ea, &na);

		ch->missing = !hb ? "before" : !ha ? "after" : NULL;
		ch->delta = ch->after - ch->before;
		ch->pct = ch->before ? 100 * ch->delta / fabs(ch->before) : NAN;
		ch->err = ch->missing ? NAN : sqrt(eb * eb + ea * ea);
		ch->p = ch->missing ? NAN :
				      stats_welch_p(ch->delta, eb, nb, ea, na,
						    &ch->df);
	}
}

/*
 * Significant: a discovery of Benjamini-Hochberg's step-up over every
 * test of the diff (all keys, all columns) at the two-sided normal tail
 * of sigma, so that two recordings of the same workload flag nothing
 * but that often, however many keys and columns they have.
 */
static int judge(struct diff *d)
{
	size_t n = 0, m = (size_t)d->nr_rows * d->nr_cols;
	double *p = malloc((m + 1) * sizeof(*p)), cut;

	if (!p)
		return -ENOMEM;
	for (unsigned r = 0; r < d->nr_rows; r++)
		for (unsigned c = 0; c < d->nr_cols; c++)
			p[n++] = d->rows[r].c[c].p;
	cut = stats_bh_cut(p, n, d->alpha);
	for (size_t i = 0; i < n; i++)
		d->nr_tests += !isnan(p[i]);
	for (unsigned r = 0; r < d->nr_rows; r++)
		for (unsigned c = 0; c < d->nr_cols; c++) {
			struct change *ch = &d->rows[r].c[c];

			/* Below the floor, a change is the host's: the
			 * intervals' spread cannot see what moved between
			 * two runs (a fixed work's cpu-clock/s by 1-3 % on
			 * this 2-CPU VM, p down to 1e-14). */
			ch->significant = !isnan(ch->p) && ch->p <= cut &&
					  ch->delta != 0 &&
					  !(fabs(ch->pct) < d->min_change_pct);
		}
	free(p);
	return 0;
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

static int diff_build(struct diff *d)
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
		compute(d, j);
		j->rank = d->nr_cols ? fabs(j->c[sort_col].delta) : 0;
	}
	qsort(d->rows, d->nr_rows, sizeof(*d->rows), cmp_rank);
	err = judge(d);
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
	static const char *const parts[] = { "before",	"after", "change_pct",
					     "err_pct", "p",	 "significant",
					     "missing" };

	for (unsigned c = 0; c < d->nr_keys; c++)
		fprintf(out, "%s,", d->before->key_cols[c]);
	fputs("in", out);
	for (unsigned c = 0; c < d->nr_cols; c++) {
		for (unsigned p = 0; p < 7; p++) {
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
			fputc(',', out);
			report_put_number(out, ch->p);
			fprintf(out, ",%d,%s", ch->significant,
				ch->missing ? ch->missing : "");
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
				json_kv_double(&j, "p", ch->p);
				json_kv_double(&j, "df", ch->df);
				json_kv_bool(&j, "significant",
					     ch->significant);
				if (ch->missing)
					json_kv_string(&j, "missing",
						       ch->missing);
				else
					json_kv_double(&j, "missing",
						       NAN); /* null */
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
			char pct[32] = "-", bv[32], av[32], pv[32] = "-";

			if (!isnan(ch->pct))
				snprintf(pct, sizeof(pct), "%+.2f%%", ch->pct);
			snprintf(bv, sizeof(bv), "%.6g", ch->before);
			snprintf(av, sizeof(av), "%.6g", ch->after);
			if (!isnan(ch->p))
				snprintf(pv, sizeof(pv), "%.2g", ch->p);
			fprintf(out,
				"  %-28s %14s -> %-14s %10s  +-%-10.3g p %-8s %s\n",
				d->names[c], isnan(ch->before) ? "-" : bv,
				isnan(ch->after) ? "-" : av, pct, ch->err, pv,
				ch->missing	? (*ch->missing == 'b' ?
							   "missing before" :
							   "missing after") :
				ch->significant ? "significant" :
						  "");
		}
	}
	fprintf(out,
		"\n%u keys; rates per second; +-: the change's error, from the spread of the per-interval rates (the sampling error where larger); p: Welch's t-test; significant: below Benjamini-Hochberg's cut at a false discovery rate of %.3g%% over the %zu changes tested, and a change of at least %g %%\n",
		d->nr_rows, 100 * d->alpha, d->nr_tests, d->min_change_pct);
}

int report_write_diff(const struct report_result *before,
		      const struct report_result *after, double sigma,
		      double min_change_pct, unsigned top,
		      enum diff_format format, FILE *out)
{
	struct diff d = { .before = before,
			  .after = after,
			  .min_change_pct = min_change_pct };
	unsigned n;
	int err;

	if (before->nr_key_cols != after->nr_key_cols)
		return -EINVAL;
	d.alpha = erfc(sigma / sqrt(2));
	err = diff_build(&d);
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
