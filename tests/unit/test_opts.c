// SPDX-License-Identifier: GPL-2.0
/* The one option convention: parsing, refusals, and --help's text. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd/opts.h"
#include "test.h"

enum { OPT_RATE = OPT_LONG_ONLY, OPT_CHECK, OPT_BARE };

static const struct cmd_option options[] = {
	{ "interval", 'I', required_argument, "MS", "interval length" },
	{ "verbose", 'v', no_argument, NULL, "say more" },
	{ "rate", OPT_RATE, required_argument, "HZ", "long only" },
	{ "check", OPT_CHECK, optional_argument, "PCT", "optional value" },
	{ "secret", 's', no_argument, NULL, NULL }, /* hidden: no help */
	{ "bare", OPT_BARE, no_argument, NULL, NULL }, /* hidden too */
	{ 0 },
};

static const struct cmd_spec spec = {
	.name = "demo",
	.operands = "[-- COMMAND]",
	.summary = "a demo command",
	.options = options,
	.examples = "bpmc demo -I 10\t# ten milliseconds",
};

struct seen {
	long interval;
	int verbose;
	const char *rate, *check;
	int calls;
};

static int on_option(void *ctx, int key, const char *arg, struct error *err)
{
	struct seen *s = ctx;

	s->calls++;
	switch (key) {
	case 'I':
		s->interval = atol(arg);
		if (s->interval <= 0)
			return error__set(err, EINVAL,
					  "invalid interval '-I %s'", arg);
		return 0;
	case 'v':
	case 's':
		s->verbose++;
		return 0;
	case OPT_RATE:
		s->rate = arg;
		return 0;
	case OPT_CHECK:
		s->check = arg ? arg : "default";
		return 0;
	case OPT_BARE: /* fails and says nothing: cmd_parse must say why */
		return -ENOMEM;
	default:
		break;
	}
	return -EINVAL;
}

/* As main() would: argv is the program's to permute. */
static int parse(struct seen *s, int *operand, int argc, const char **argv)
{
	memset(s, 0, sizeof(*s));
	*operand = -1;
	return cmd_parse(&spec, argc, (char **)argv, on_option, s, operand);
}

static void test_parse(void)
{
	const char *argv[] = { "demo",	    "-I", "10",	   "-v", "--rate", "99",
			       "--check=5", "--", "sleep", "1",	 NULL };
	struct seen s;
	int op;

	if (!ASSERT_OK(parse(&s, &op, 10, argv), "parse"))
		return;
	ASSERT_EQ(s.interval, 10, "short with value");
	ASSERT_EQ(s.verbose, 1, "flag");
	ASSERT_STREQ(s.rate, "99", "long only");
	ASSERT_STREQ(s.check, "5", "optional value");
	ASSERT_EQ(op, 8, "operand after --");
	ASSERT_STREQ(argv[op], "sleep", "operand");
}

static void test_optional_absent(void)
{
	const char *argv[] = { "demo", "--check", "--interval=3", NULL };
	struct seen s;
	int op;

	ASSERT_OK(parse(&s, &op, 3, argv), "parse");
	ASSERT_STREQ(s.check, "default", "no value");
	ASSERT_EQ(s.interval, 3, "long with =");
	ASSERT_EQ(op, 3, "no operand");
}

/* Every refusal is -EINVAL, which is exit status 2; --help is 0. */
static void test_refusals(void)
{
	const char *unknown[] = { "demo", "--nope", NULL };
	const char *missing[] = { "demo", "-I", NULL };
	const char *bad[] = { "demo", "-I", "0", "-v", NULL };
	const char *help[] = { "demo", "--help", NULL };
	int op, saved, null, err;
	struct seen s;

	ASSERT_EQ(parse(&s, &op, 2, unknown), -EINVAL, "unknown option");
	ASSERT_EQ(parse(&s, &op, 2, missing), -EINVAL, "missing value");
	ASSERT_EQ(parse(&s, &op, 4, bad), -EINVAL, "callback refusal");
	ASSERT_EQ(s.calls, 1, "parsing stops at the refusal");
	ASSERT_EQ(cmd_exit_status(-EINVAL), EXIT_USAGE, "exit 2");
	/* --help prints on stdout, where the test reports go: aside. */
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (!ASSERT_TRUE(saved >= 0 && null >= 0, "dup stdout"))
		return;
	dup2(null, STDOUT_FILENO);
	err = parse(&s, &op, 2, help);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(null);
	ASSERT_EQ(err, -ECANCELED, "help");
	ASSERT_EQ(cmd_exit_status(-ECANCELED), 0, "help exits 0");
}

/*
 * A callback that fails without a message still gets a refusal that
 * says why: strerror of what it returned, never an empty line.
 */
static void test_empty_message(void)
{
	const char *bare[] = { "demo", "--bare", NULL };
	const char *bad[] = { "demo", "-I", "0", NULL };
	char got[512], want[256];
	int op, saved, err;
	struct seen s;
	FILE *f;
	size_t n;

	for (int i = 0; i < 2; i++) {
		f = tmpfile();
		if (!ASSERT_TRUE(f != NULL, "tmpfile"))
			return;
		fflush(stderr);
		saved = dup(STDERR_FILENO);
		dup2(fileno(f), STDERR_FILENO);
		err = parse(&s, &op, i ? 3 : 2, i ? bad : bare);
		fflush(stderr);
		dup2(saved, STDERR_FILENO);
		close(saved);
		rewind(f);
		n = fread(got, 1, sizeof(got) - 1, f);
		got[n] = '\0';
		fclose(f);
		ASSERT_EQ(err, -EINVAL, "refused");
		snprintf(want, sizeof(want),
			 "bpmc: %s (see 'bpmc demo --help')\n",
			 i ? "invalid interval '-I 0'" : strerror(ENOMEM));
		if (!ASSERT_STREQ(got, want,
				  i ? "the message when there is one" :
				      "strerror when it is empty"))
			printf("  got: %s", got);
	}
}

/* The usage line names every option; --help has them all, and EXAMPLES. */
static void test_usage(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	static const char *want[] = {
		"usage: bpmc demo [-I MS] [-v] [--rate HZ] [--check[=PCT]] [-- COMMAND]",
		"  -I, --interval MS",
		"      --rate HZ",
		"  -h, --help",
		"\nEXAMPLES\n  bpmc demo -I 10\t# ten milliseconds\n",
	};

	if (!ASSERT_TRUE(f != NULL, "memstream"))
		return;
	cmd_usage(&spec, f);
	fclose(f);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!ASSERT_TRUE(strstr(text, want[i]) != NULL, want[i]))
			printf("  usage was:\n%s", text);
	ASSERT_TRUE(!strstr(text, "secret") && !strstr(text, "[-s]"),
		    "a hidden option is not in --help");
	free(text);
}

/*
 * The hidden --list-options: every spelling a line, with its value's
 * name, --help included; what the completion and the man page test read.
 */
static void test_list_options(void)
{
	const char *argv[] = { "demo", "--list-options", "-v", NULL };
	const char *hidden[] = { "demo", "--secret", "-s", NULL };
	static const char want[] = "-I MS\n--interval MS\n-v\n--verbose\n"
				   "--rate HZ\n--check[=PCT]\n-h\n--help\n";
	char got[256] = "";
	FILE *f = tmpfile();
	int op, saved, err;
	struct seen s;
	size_t n;

	if (!ASSERT_TRUE(f != NULL, "tmpfile"))
		return;
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	dup2(fileno(f), STDOUT_FILENO);
	err = parse(&s, &op, 3, argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(f);
	n = fread(got, 1, sizeof(got) - 1, f);
	got[n] = '\0';
	fclose(f);
	ASSERT_EQ(err, -ECANCELED, "exits like --help");
	ASSERT_EQ(s.calls, 0, "no option handled after it");
	if (!ASSERT_STREQ(got, want, "every spelling but the hidden one's"))
		printf("  got:\n%s", got);
	ASSERT_OK(parse(&s, &op, 3, hidden), "a hidden option parses");
	ASSERT_EQ(s.verbose, 2, "both of its spellings");
}

static const struct subtest tests[] = {
	{ "parse", test_parse },
	{ "optional_absent", test_optional_absent },
	{ "refusals", test_refusals },
	{ "empty_message", test_empty_message },
	{ "usage", test_usage },
	{ "list_options", test_list_options },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
