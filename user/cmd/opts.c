// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/opts.h"
#include "common/error.h"
#include "common/util.h"

#define MAX_OPTIONS 64
#define HELP_COLUMN 24
#define USAGE_WIDTH 79

static const struct cmd_option help_option = { "help", 'h', no_argument, NULL,
					       "this text" };
/*
 * Hidden: every spelling of every option that --help shows, one a line
 * with its value's name ("-e EVENTS", "--check[=PCT]"), for the shell
 * completion and the test that holds the man pages to these tables.
 */
#define OPT_LIST_OPTIONS (OPT_LONG_ONLY - 1)
static const struct cmd_option list_options_option = {
	"list-options", OPT_LIST_OPTIONS, no_argument, NULL, NULL
};

static bool has_short(const struct cmd_option *o)
{
	return o->key > 0 && o->key < 128 && isalnum(o->key);
}

static size_t nr_options(const struct cmd_spec *spec)
{
	size_t n = 0;

	while (spec->options[n].name)
		n++;
	return n;
}

/* "-e EVENTS", "--mode MODE", "--check[=PCT]", "--self-stats" */
static int format_option(const struct cmd_option *o, bool both, char *buf,
			 size_t len)
{
	int n;

	if (has_short(o) && both)
		n = snprintf(buf, len, "-%c, --%s", o->key, o->name);
	else if (has_short(o))
		n = snprintf(buf, len, "-%c", o->key);
	else
		n = snprintf(buf, len, "--%s", o->name);
	if (o->has_arg == required_argument)
		n += snprintf(buf + n, len - n, " %s", o->arg ? o->arg : "ARG");
	else if (o->has_arg == optional_argument)
		n += snprintf(buf + n, len - n, "[=%s]",
			      o->arg ? o->arg : "ARG");
	return n;
}

/* The synopsis, wrapped: every option appears in it. */
static void print_synopsis(const struct cmd_spec *spec, FILE *out)
{
	char word[128];
	int col, indent;

	col = indent = fprintf(out, "usage: bpmc %s", spec->name);
	for (const struct cmd_option *o = spec->options; o->name; o++) {
		int n;

		if (!o->help)
			continue;
		n = format_option(o, false, word, sizeof(word)) + 3;

		if (col + n > USAGE_WIDTH) {
			col = fprintf(out, "\n%*s", indent, "") - 1;
		}
		col += fprintf(out, " [%s]", word);
	}
	if (spec->operands) {
		if (col + 1 + (int)strlen(spec->operands) > USAGE_WIDTH)
			fprintf(out, "\n%*s", indent, "");
		fprintf(out, " %s", spec->operands);
	}
	fputc('\n', out);
}

static void print_option(const struct cmd_option *o, FILE *out)
{
	char left[128];
	const char *h = o->help, *nl;
	int n = format_option(o, true, left, sizeof(left));

	/* Long-only options line up with the long names of the others. */
	n = fprintf(out, "  %s%s", has_short(o) ? "" : "    ", left);
	for (bool first = true; first || *h; first = false) {
		nl = strchr(h, '\n');
		if (n >= HELP_COLUMN - 1 && first)
			n = fprintf(out, "\n") - 1;
		fprintf(out, "%*s%.*s\n", HELP_COLUMN - n, "",
			(int)(nl ? nl - h : (long)strlen(h)), h);
		n = 0;
		h = nl ? nl + 1 : h + strlen(h);
	}
}

void cmd_usage(const struct cmd_spec *spec, FILE *out)
{
	const char *e, *nl;

	print_synopsis(spec, out);
	fprintf(out, "\n%s\n\nOPTIONS\n", spec->summary);
	for (const struct cmd_option *o = spec->options; o->name; o++) {
		if (o->help)
			print_option(o, out);
	}
	print_option(&help_option, out);
	if (!spec->examples)
		return;
	fprintf(out, "\nEXAMPLES\n");
	for (e = spec->examples; *e; e = nl ? nl + 1 : e + strlen(e)) {
		nl = strchr(e, '\n');
		fprintf(out, "  %.*s\n", (int)(nl ? nl - e : (long)strlen(e)),
			e);
	}
}

static void list_options(const struct cmd_spec *spec, FILE *out)
{
	struct cmd_option o;
	char word[128];

	for (size_t i = 0, n = nr_options(spec); i <= n; i++) {
		o = i < n ? spec->options[i] : help_option;
		if (!o.help)
			continue;
		if (has_short(&o)) {
			format_option(&o, false, word, sizeof(word));
			fprintf(out, "%s\n", word);
		}
		o.key = OPT_LONG_ONLY; /* the long spelling alone */
		format_option(&o, false, word, sizeof(word));
		fprintf(out, "%s\n", word);
	}
}

int cmd_refuse(const struct cmd_spec *spec, const char *fmt, ...)
{
	char msg[ERROR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p_err("%s (see 'bpmc %s --help')", msg, spec->name);
	return EXIT_USAGE;
}

int cmd_exit_status(int err)
{
	return err == -ECANCELED ? 0 : EXIT_USAGE;
}

int cmd_parse(const struct cmd_spec *spec, int argc, char **argv,
	      cmd_option_fn fn, void *ctx, int *operand)
{
	struct option longs[MAX_OPTIONS + 3];
	char shorts[3 * MAX_OPTIONS + 4] = ":";
	size_t n = nr_options(spec), s = 1;
	struct error err = {};
	int opt, ret;

	if (n > MAX_OPTIONS)
		return -E2BIG;
	for (size_t i = 0; i <= n; i++) {
		const struct cmd_option *o = i < n ? &spec->options[i] :
						     &help_option;

		longs[i] = (struct option){ o->name, o->has_arg, NULL, o->key };
		if (!has_short(o))
			continue;
		shorts[s++] = o->key;
		if (o->has_arg == required_argument)
			shorts[s++] = ':';
		else if (o->has_arg == optional_argument)
			s += snprintf(shorts + s, sizeof(shorts) - s, "::");
	}
	shorts[s] = '\0';
	if (spec->operands_end_options) {
		memmove(shorts + 1, shorts, s + 1);
		shorts[0] = '+';
	}
	longs[n + 1] = (struct option){ list_options_option.name, no_argument,
					NULL, list_options_option.key };
	memset(&longs[n + 2], 0, sizeof(longs[n + 2]));

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		if (opt == 'h') {
			cmd_usage(spec, stdout);
			return -ECANCELED;
		}
		if (opt == OPT_LIST_OPTIONS) {
			list_options(spec, stdout);
			return -ECANCELED;
		}
		if (opt == ':') {
			cmd_refuse(spec, "option '%s' needs a value",
				   argv[optind - 1]);
			return -EINVAL;
		}
		if (opt == '?') {
			cmd_refuse(spec, "unknown option '%s'",
				   argv[optind - 1]);
			return -EINVAL;
		}
		err.msg[0] = '\0';
		ret = fn(ctx, opt, optarg, &err);
		if (ret) {
			cmd_refuse(spec, "%s", error__why(&err, ret));
			return -EINVAL;
		}
	}
	*operand = optind;
	return 0;
}
