// SPDX-License-Identifier: GPL-2.0
/*
 * Derived metrics: the expression grammar, compiled to postfix and
 * evaluated over a small stack.
 *
 *	sum     := product (('+' | '-') product)*
 *	product := unary (('*' | '/') unary)*
 *	unary   := '-'* primary
 *	primary := number | name | '(' sum ')'
 *
 * Only '(' recurses, and it is counted, so hostile input cannot run the
 * stack out; a run of minuses is a loop.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/metric.h"

enum metric_op_kind {
	OP_NUM,
	OP_VAR,
	OP_NEG,
	OP_ADD,
	OP_SUB,
	OP_MUL,
	OP_DIV,
};

struct metric_op {
	enum metric_op_kind kind;
	union {
		double num;
		unsigned var;
	};
};

struct metric_expr {
	struct metric_op *ops;
	unsigned nr_ops;
	unsigned max_stack; /* the most values the ops hold at once */
	char **vars;
	unsigned nr_vars, cap_vars;
};

/*
 * Each level of parentheses, and the top, holds at most two pending
 * values (the left sides of a '+' and of a '*' waiting for their right
 * sides), and the innermost one more: eval's stack never needs more.
 */
#define EVAL_STACK (2 * (METRIC_EXPR_MAX_DEPTH + 1) + 1)

/* Inputs longer than this are quoted cut in messages, which are 1 KiB. */
#define QUOTE_MAX 200

struct parser {
	const char *whole; /* what the user gave, for messages */
	const char *s; /* the expression: whole + base */
	size_t base, pos; /* pos: into s */
	unsigned depth, stack;
	struct metric_expr *e;
	struct error *err;
};

static int parse_sum(struct parser *p);

static int fail_at(struct parser *p, int errnum, size_t pos, const char *fmt,
		   ...) __attribute__((format(printf, 4, 5)));

/* "bad metric 'WHOLE': REASON at POS", POS counted in WHOLE from 0. */
static int fail_at(struct parser *p, int errnum, size_t pos, const char *fmt,
		   ...)
{
	size_t len = strlen(p->whole);
	char reason[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	return error__set(p->err, errnum, "bad metric '%.*s%s': %s at %zu",
			  QUOTE_MAX, p->whole, len > QUOTE_MAX ? "..." : "",
			  reason, p->base + pos);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(char c)
{
	return is_name_start(c) || is_digit(c) || c == '.' || c == ':' ||
	       c == '@' || c == '-';
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v';
}

static char peek(struct parser *p)
{
	while (is_space(p->s[p->pos]))
		p->pos++;
	return p->s[p->pos];
}

/* The parse sizes ops to the input, which has a character per op. */
static void emit(struct parser *p, enum metric_op_kind kind, double num,
		 unsigned var)
{
	struct metric_op *op = &p->e->ops[p->e->nr_ops++];

	op->kind = kind;
	if (kind == OP_NUM)
		op->num = num;
	else if (kind == OP_VAR)
		op->var = var;
	if (kind == OP_NUM || kind == OP_VAR)
		p->stack++;
	else if (kind != OP_NEG)
		p->stack--;
	if (p->stack > p->e->max_stack)
		p->e->max_stack = p->stack;
}

/* Takes name (heap) into the var list, or frees it if it is there. */
static int add_var(struct parser *p, char *name, unsigned *index)
{
	struct metric_expr *e = p->e;
	char **vars;
	unsigned cap;

	for (unsigned i = 0; i < e->nr_vars; i++) {
		if (!strcmp(e->vars[i], name)) {
			free(name);
			*index = i;
			return 0;
		}
	}
	if (e->nr_vars == e->cap_vars) {
		cap = e->cap_vars ? 2 * e->cap_vars : 4;
		vars = realloc(e->vars, cap * sizeof(*vars));
		if (!vars) {
			free(name);
			return fail_at(p, ENOMEM, p->pos, "out of memory");
		}
		e->vars = vars;
		e->cap_vars = cap;
	}
	*index = e->nr_vars;
	e->vars[e->nr_vars++] = name;
	return 0;
}

/* digits [. digits] or . digits, then [eE [+-] digits]. */
static int parse_number(struct parser *p)
{
	size_t start = p->pos, end = start;
	const char *s = p->s;
	char *copy;
	double v;

	while (is_digit(s[end]))
		end++;
	if (s[end] == '.')
		end++;
	while (is_digit(s[end]))
		end++;
	if (s[end] == 'e' || s[end] == 'E') {
		end++;
		if (s[end] == '+' || s[end] == '-')
			end++;
		if (!is_digit(s[end]))
			return fail_at(p, EINVAL, end,
				       "digits of the exponent expected");
		while (is_digit(s[end]))
			end++;
	}
	/* A copy: strtod would read on into "0x1p3" or "infinity". No
	 * setlocale() in bpmc, so its decimal point is the C locale's. */
	copy = strndup(s + start, end - start);
	if (!copy)
		return fail_at(p, ENOMEM, start, "out of memory");
	v = strtod(copy, NULL);
	free(copy);
	if (isinf(v))
		return fail_at(p, EINVAL, start, "number out of range");
	p->pos = end;
	emit(p, OP_NUM, v, 0);
	return 0;
}

/* 'x' or "x", the quote doubled inside. */
static int parse_quoted(struct parser *p)
{
	size_t start = p->pos, i = start + 1, n = 0;
	char quote = p->s[start], *name;
	unsigned var;
	int ret;

	name = malloc(strlen(p->s + i) + 1);
	if (!name)
		return fail_at(p, ENOMEM, start, "out of memory");
	for (;; i++) {
		if (!p->s[i]) {
			free(name);
			return fail_at(p, EINVAL, i, "closing %c expected",
				       quote);
		}
		if (p->s[i] == quote && p->s[i + 1] != quote)
			break;
		if (p->s[i] == quote)
			i++;
		name[n++] = p->s[i];
	}
	name[n] = '\0';
	if (!n) {
		free(name);
		return fail_at(p, EINVAL, start, "empty quoted name");
	}
	p->pos = i + 1;
	ret = add_var(p, name, &var);
	if (ret)
		return ret;
	emit(p, OP_VAR, 0, var);
	return 0;
}

static int parse_bare(struct parser *p)
{
	size_t start = p->pos, end = start;
	unsigned var;
	char *name;
	int ret;

	while (is_name_char(p->s[end]))
		end++;
	name = strndup(p->s + start, end - start);
	if (!name)
		return fail_at(p, ENOMEM, start, "out of memory");
	p->pos = end;
	ret = add_var(p, name, &var);
	if (ret)
		return ret;
	emit(p, OP_VAR, 0, var);
	return 0;
}

static int parse_group(struct parser *p)
{
	size_t open = p->pos;
	int ret;

	if (p->depth == METRIC_EXPR_MAX_DEPTH)
		return fail_at(p, EINVAL, open,
			       "parentheses nested deeper than %d",
			       METRIC_EXPR_MAX_DEPTH);
	p->depth++;
	p->pos++;
	ret = parse_sum(p);
	if (ret)
		return ret;
	if (peek(p) != ')')
		return fail_at(p, EINVAL, p->pos, "')' expected");
	p->pos++;
	p->depth--;
	return 0;
}

static int parse_primary(struct parser *p)
{
	char c = peek(p);

	if (is_digit(c) || (c == '.' && is_digit(p->s[p->pos + 1])))
		return parse_number(p);
	if (is_name_start(c))
		return parse_bare(p);
	if (c == '\'' || c == '"')
		return parse_quoted(p);
	if (c == '(')
		return parse_group(p);
	return fail_at(p, EINVAL, p->pos, "number, name or '(' expected");
}

static int parse_unary(struct parser *p)
{
	bool negate = false;
	int ret;

	while (peek(p) == '-') {
		negate = !negate;
		p->pos++;
	}
	ret = parse_primary(p);
	if (!ret && negate)
		emit(p, OP_NEG, 0, 0);
	return ret;
}

static int parse_product(struct parser *p)
{
	char c;
	int ret = parse_unary(p);

	while (!ret && ((c = peek(p)) == '*' || c == '/')) {
		p->pos++;
		ret = parse_unary(p);
		if (!ret)
			emit(p, c == '*' ? OP_MUL : OP_DIV, 0, 0);
	}
	return ret;
}

static int parse_sum(struct parser *p)
{
	char c;
	int ret = parse_product(p);

	while (!ret && ((c = peek(p)) == '+' || c == '-')) {
		p->pos++;
		ret = parse_product(p);
		if (!ret)
			emit(p, c == '+' ? OP_ADD : OP_SUB, 0, 0);
	}
	return ret;
}

static int parse_all(struct parser *p)
{
	int ret;

	if (!peek(p))
		return fail_at(p, EINVAL, p->pos, "expression expected");
	ret = parse_sum(p);
	if (ret)
		return ret;
	if (peek(p) == ')')
		return fail_at(p, EINVAL, p->pos, "unmatched ')'");
	if (peek(p))
		return fail_at(p, EINVAL, p->pos, "operator expected");
	return 0;
}

static int refuse_too_long(const char *whole, struct error *err)
{
	if (strnlen(whole, METRIC_EXPR_MAX_LEN + 1) <= METRIC_EXPR_MAX_LEN)
		return 0;
	return error__set(err, EINVAL,
			  "bad metric '%.32s...': longer than %d bytes", whole,
			  METRIC_EXPR_MAX_LEN);
}

/* Parses whole + base; messages quote whole and count from its start. */
static int parse_within(const char *whole, size_t base,
			struct metric_expr **out, struct error *err)
{
	struct parser p = { .whole = whole, .s = whole + base, .base = base };
	size_t len;
	int ret;

	*out = NULL;
	ret = refuse_too_long(whole, err);
	if (ret)
		return ret;
	len = strlen(p.s);
	p.err = err;
	p.e = calloc(1, sizeof(*p.e));
	if (p.e)
		p.e->ops = malloc((len + 1) * sizeof(*p.e->ops));
	if (!p.e || !p.e->ops) {
		metric_expr__free(p.e);
		return error__set(err, ENOMEM,
				  "bad metric '%.32s': out of memory", whole);
	}
	ret = parse_all(&p);
	/* EVAL_STACK's bound says this cannot be; checked once here, so
	 * that eval need not check every push. */
	if (!ret && p.e->max_stack > EVAL_STACK)
		ret = fail_at(&p, E2BIG, 0, "too many pending values");
	if (ret) {
		metric_expr__free(p.e);
		return ret;
	}
	*out = p.e;
	return 0;
}

int metric_expr__parse(const char *text, struct metric_expr **out,
		       struct error *err)
{
	return parse_within(text, 0, out, err);
}

void metric_expr__free(struct metric_expr *e)
{
	if (!e)
		return;
	for (unsigned i = 0; i < e->nr_vars; i++)
		free(e->vars[i]);
	free(e->vars);
	free(e->ops);
	free(e);
}

unsigned metric_expr__nr_vars(const struct metric_expr *e)
{
	return e->nr_vars;
}

const char *metric_expr__var(const struct metric_expr *e, unsigned i)
{
	return i < e->nr_vars ? e->vars[i] : NULL;
}

double metric_expr__eval(const struct metric_expr *e, const double *vars)
{
	double stack[EVAL_STACK], b;
	unsigned n = 0;

	for (unsigned i = 0; i < e->nr_ops; i++) {
		const struct metric_op *op = &e->ops[i];

		switch (op->kind) {
		case OP_NUM:
			stack[n++] = op->num;
			continue;
		case OP_VAR:
			stack[n++] = vars[op->var];
			continue;
		case OP_NEG:
			stack[n - 1] = -stack[n - 1];
			continue;
		case OP_ADD:
		case OP_SUB:
		case OP_MUL:
		case OP_DIV:
		default:
			break;
		}
		b = stack[--n];
		if (op->kind == OP_ADD)
			stack[n - 1] += b;
		else if (op->kind == OP_SUB)
			stack[n - 1] -= b;
		else if (op->kind == OP_MUL)
			stack[n - 1] *= b;
		else
			stack[n - 1] = b == 0 ? NAN : stack[n - 1] / b;
	}
	return stack[0];
}

static size_t metric_name_len(const char *s)
{
	size_t n = 0;

	if (!is_name_start(s[0]))
		return 0;
	while (is_name_start(s[n]) || is_digit(s[n]))
		n++;
	return n;
}

int metric_def__parse(const char *arg, struct metric_def *def,
		      struct error *err)
{
	struct parser p = { .whole = arg, .s = arg, .err = err };
	struct metric_expr *expr;
	size_t n;
	int ret;

	memset(def, 0, sizeof(*def));
	ret = refuse_too_long(arg, err);
	if (ret)
		return ret;
	n = metric_name_len(arg);
	if (!n)
		return fail_at(&p, EINVAL, 0, "metric name expected");
	if (arg[n] != '=')
		return fail_at(&p, EINVAL, n, "'=' expected");
	ret = parse_within(arg, n + 1, &expr, err);
	if (ret)
		return ret;
	def->name = strndup(arg, n);
	def->text = strdup(arg + n + 1);
	def->expr = expr;
	def->unit = "";
	if (!def->name || !def->text) {
		metric_def__free(def);
		return fail_at(&p, ENOMEM, 0, "out of memory");
	}
	return 0;
}

void metric_def__free(struct metric_def *def)
{
	free(def->name);
	free(def->text);
	metric_expr__free(def->expr);
	memset(def, 0, sizeof(*def));
}
