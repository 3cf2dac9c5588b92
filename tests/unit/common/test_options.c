/* SPDX-License-Identifier: MIT */
/*
 * test_options.c — the option tables' parser and help (user/common/
 * options.h): every type of entry sets what it says, a bad option or value
 * is one line naming it (the exact wording the commands and docs/cli.md
 * promise), --help is found anywhere before "--" and made from the table
 * with its defaults, operands are counted, and record's mode stops at the
 * program's name.  stderr and stdout are caught in temporary files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/options.h"

static const char *const formats[] = {"text", "json", "html", NULL};

/* What one parse saw: the values an example command's table sets. */
struct vals {
	int quiet, format;
	long top, gen;
	const char *output;
	int called;
	char call_arg[32];
};

static int remember(const struct opt *self, const char *arg)
{
	struct vals *v = self->ctx;

	v->called++;
	snprintf(v->call_arg, sizeof(v->call_arg), "%s", arg ? arg : "(none)");
	return strcmp(arg, "bad") ? 0 : -1;
}

static const struct opt_command example = {
    .name = "example",
    OPT_OPERANDS("one .wpp file", 1, 1),
    .usage = "example run.wpp [options]\nexample --other",
    .about = "What the example does.\n",
};

#define TABLE(v)                                                                                   \
	struct opt table[] = {                                                                     \
	    OPT_FLAG_('q', "quiet", "no summary line", &(v).quiet),                                \
	    OPT_FORMAT(&(v).format, formats),                                                      \
	    OPT_COUNT_('n', "top", "N", "how many;\nsecond line", &(v).top, 0, 100,                \
		       OPT_SHOW_DEFAULT),                                                          \
	    OPT_COUNT_(0, "gen", "G", "a generation", &(v).gen, 1, LONG_MAX, 0),                   \
	    OPT_OUTPUT(&(v).output, "write there"),                                                \
	    OPT_HEADING_("more:"),                                                                 \
	    OPT_CALL_(0, "call", "X", "a callback", remember, &(v), 0),                            \
	    OPT_CALL_(0, "gentle", "X", "not shown", remember, &(v), OPT_HIDDEN),                  \
	    OPT_END_,                                                                              \
	}

static char out_text[8192], err_text[8192];

/* opts_parse on argv (NULL-terminated), stdout and stderr caught. */
static int parse(const struct opt_command *cmd, struct opt *table, int *next, ...)
{
	char *argv[32];
	int argc = 0, rc, saved_out, saved_err;
	va_list ap;
	FILE *o = tmpfile(), *e = tmpfile();

	assert_non_null(o);
	assert_non_null(e);
	va_start(ap, next);
	argv[argc++] = (char *)cmd->name;
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	fflush(stdout);
	fflush(stderr);
	saved_out = dup(1);
	saved_err = dup(2);
	dup2(fileno(o), 1);
	dup2(fileno(e), 2);
	rc = opts_parse(cmd, table, argc, argv, next);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	rewind(o);
	rewind(e);
	out_text[fread(out_text, 1, sizeof(out_text) - 1, o)] = 0;
	err_text[fread(err_text, 1, sizeof(err_text) - 1, e)] = 0;
	fclose(o);
	fclose(e);
	return rc;
}

static struct vals fresh(void)
{
	return (struct vals){.top = 20, .gen = -1};
}

static void test_values(void **state)
{
	struct vals v = fresh();
	TABLE(v);
	int next = 0;

	(void)state;
	assert_int_equal(parse(&example, table, &next, "-qn", "7", "--for=json", "--gen", "3", "-o",
			       "x.out", "--call", "hi", "run.wpp", NULL),
			 0);
	assert_string_equal(err_text, "");
	assert_int_equal(v.quiet, 1);
	assert_int_equal(v.format, 1);
	assert_int_equal(v.top, 7);
	assert_int_equal(v.gen, 3);
	assert_string_equal(v.output, "x.out");
	assert_int_equal(v.called, 1);
	assert_string_equal(v.call_arg, "hi");
	assert_int_equal(next, 10);
	assert_int_equal(opt_given(table, "top"), 1);
	assert_int_equal(opt_given(table, "format"), 1);
	assert_int_equal(opt_given(table, "gentle"), 0);
	/* operands may come first (getopt permutes) */
	v = fresh();
	assert_int_equal(parse(&example, table, &next, "run.wpp", "--top", "0", NULL), 0);
	assert_int_equal(v.top, 0);
	assert_int_equal(opt_given(table, "top"), 1);
	assert_int_equal(opt_given(table, "quiet"), 0); /* counts start again */
}

/* Each mistake: -1 and exactly this one line. */
static void expect_error(const char *line, ...)
{
	struct vals v = fresh();
	TABLE(v);
	char *argv[16], want[512];
	int argc = 0, next;
	va_list ap;

	va_start(ap, line);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	assert_true(argc <= 4);
	assert_int_equal(parse(&example, table, &next, argc > 0 ? argv[0] : NULL,
			       argc > 1 ? argv[1] : NULL, argc > 2 ? argv[2] : NULL,
			       argc > 3 ? argv[3] : NULL, NULL),
			 -1);
	snprintf(want, sizeof(want), "wpptrace: error: %s\n", line);
	assert_string_equal(err_text, want);
	assert_string_equal(out_text, "");
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("example: --top needs a number, not 'x'", "r.wpp", "--top", "x", NULL);
	expect_error("example: --top needs a number, not '-1'", "r.wpp", "--top", "-1", NULL);
	expect_error("example: --top needs a number, not '5k'", "r.wpp", "-n5k", NULL);
	expect_error("example: --top must be 0..100, not '101'", "r.wpp", "--top=101", NULL);
	expect_error("example: --gen needs a number of at least 1, not '0'", "r.wpp", "--gen", "0",
		     NULL);
	expect_error("example: --format takes text, json or html, not 'xml'", "r.wpp", "-f", "xml",
		     NULL);
	expect_error("example: --top needs a value", "r.wpp", "--top", NULL);
	expect_error("example: -n (--top) needs a value", "r.wpp", "-n", NULL);
	expect_error("example: --quiet takes no value", "r.wpp", "--quiet=1", NULL);
	expect_error("example: unknown option '--bogus' (try wpptrace help example)", "r.wpp",
		     "--bogus", NULL);
	expect_error("example: unknown option '-z' (try wpptrace help example)", "r.wpp", "-z",
		     NULL);
	expect_error("example: '--ge' is ambiguous (--gen, --gentle)", "r.wpp", "--ge", "1", NULL);
	expect_error("example: expected one .wpp file (try wpptrace help example)", NULL);
	expect_error("example: expected one .wpp file (try wpptrace help example)", "a.wpp",
		     "b.wpp", NULL);
}

static void test_help(void **state)
{
	struct vals v = fresh();
	TABLE(v);
	int next;

	(void)state;
	/* anywhere before "--", after a bad option too, and -h alike */
	assert_int_equal(parse(&example, table, &next, "r.wpp", "--bogus", "--help", NULL), 1);
	assert_string_equal(err_text, "");
	char first[sizeof(out_text)];
	memcpy(first, out_text, sizeof(first));
	assert_int_equal(parse(&example, table, &next, "-h", NULL), 1);
	assert_string_equal(out_text, first);
	assert_int_equal(parse(&example, table, &next, "r.wpp", "--", "--help", NULL), -1);

	static const char head[] =
	    "usage: wpptrace example run.wpp [options]\n"
	    "       wpptrace example --other\n\nWhat the example does.\n\noptions:\n"
	    "  -h, --help                this text\n";
	assert_memory_equal(first, head, sizeof(head) - 1);
	assert_non_null(strstr(first, "  -q, --quiet               no summary line\n"));
	assert_non_null(strstr(first,
			       "  -f, --format text|json|html\n"
			       "                            output format (default text)\n"));
	/* continuation lines under the help column; the default after the last */
	assert_non_null(strstr(first, "  -n, --top N               how many;\n"
				      "                            second line (default 20)\n"));
	assert_non_null(strstr(first, "      --gen G               a generation\n"));
	assert_non_null(strstr(first, "\nmore:\n      --call X"));
	assert_null(strstr(first, "gentle"));
}

/* The help's defaults are the values before parsing, whatever came first. */
static void test_help_defaults(void **state)
{
	struct vals v = fresh();
	TABLE(v);
	static const struct opt_command stop = {
	    .name = "rec", .usage = "rec [options] PROGRAM", .flags = OPTS_STOP_AT_OPERAND};
	int next;

	(void)state;
	assert_int_equal(parse(&stop, table, &next, "-n", "9", "--help", NULL), 1);
	assert_non_null(strstr(out_text, "(default 20)"));
	assert_int_equal(v.top, 9);
}

/* OPTS_STOP_AT_OPERAND: the program's options are its own. */
static void test_stop_at_operand(void **state)
{
	struct vals v = fresh();
	TABLE(v);
	static const struct opt_command stop = {
	    .name = "rec", .usage = "rec [options] PROGRAM", .flags = OPTS_STOP_AT_OPERAND};
	int next;

	(void)state;
	assert_int_equal(parse(&stop, table, &next, "-q", "prog", "-n", "5", "--help", NULL), 0);
	assert_int_equal(v.quiet, 1);
	assert_int_equal(v.top, 20);
	assert_int_equal(next, 2);
	assert_string_equal(out_text, "");
}

/* A callback's -1 stops the parse; its own line is the message. */
static void test_callback_error(void **state)
{
	struct vals v = fresh();
	TABLE(v);
	int next;

	(void)state;
	assert_int_equal(parse(&example, table, &next, "r.wpp", "--call", "bad", "-q", NULL), -1);
	assert_int_equal(v.called, 1);
	assert_int_equal(v.quiet, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_values),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_help),
	    cmocka_unit_test(test_help_defaults),
	    cmocka_unit_test(test_stop_at_operand),
	    cmocka_unit_test(test_callback_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
