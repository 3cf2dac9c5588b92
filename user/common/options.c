/* SPDX-License-Identifier: MIT */
/*
 * options.c — the option tables' parser and help (options.h).  getopt_long
 * does the reading (abbreviations, "--opt=value", clusters, "--"); this
 * file builds its tables from the command's, types the values and writes
 * the help, so no command repeats an option's name, letter or wording.
 */
#include "common/options.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/opt_error.h"

const char *const opt_text_json[] = {"text", "json", NULL};

#define MAX_OPTS   64 /* the longest table (record) has about 30 */
#define HELP_COL   28 /* where an option's help starts */
#define LONG_FIRST 256

static int is_option(const struct opt *o)
{
	return o->type != OPT_HEADING;
}

static int takes_value(const struct opt *o)
{
	return o->type != OPT_FLAG && !(o->type == OPT_CALL && (o->flags & OPT_NO_VALUE));
}

const char *opt_name(const struct opt *o, char *buf, size_t len)
{
	if (o->long_name)
		snprintf(buf, len, "--%s", o->long_name);
	else
		snprintf(buf, len, "-%c", o->short_name);
	return buf;
}

static void words_text(const char *const *words, const char *sep, const char *last, char *buf,
		       size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; words[i] && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i == 0		? ""
					 : words[i + 1] ? sep
							: last,
					 words[i]);
}

static int set_count(const char *cmd, const struct opt *o, const char *arg)
{
	char name[64], *end;
	long v;

	opt_name(o, name, sizeof(name));
	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 0) {
		wpp_err("%s: %s needs a number, not '%s'", cmd, name, arg);
		return -1;
	}
	if (v < o->min || v > o->max) {
		if (o->max == LONG_MAX)
			wpp_err("%s: %s needs a number of at least %ld, not '%s'", cmd, name,
				o->min, arg);
		else
			wpp_err("%s: %s must be %ld..%ld, not '%s'", cmd, name, o->min, o->max,
				arg);
		return -1;
	}
	*(long *)o->value = v;
	return 0;
}

static int set_word(const char *cmd, const struct opt *o, const char *arg)
{
	char name[64], list[256];

	for (int i = 0; o->words[i]; i++)
		if (!strcmp(o->words[i], arg)) {
			*(int *)o->value = i;
			return 0;
		}
	words_text(o->words, ", ", " or ", list, sizeof(list));
	wpp_err("%s: %s takes %s, not '%s'", cmd, opt_name(o, name, sizeof(name)), list, arg);
	return -1;
}

static int apply(const char *cmd, struct opt *o, const char *arg)
{
	o->given++;
	switch (o->type) {
	case OPT_FLAG:
		*(int *)o->value = 1;
		return 0;
	case OPT_COUNT:
		return set_count(cmd, o, arg);
	case OPT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPT_WORD:
		return set_word(cmd, o, arg);
	case OPT_CALL:
		return o->call(o, arg);
	default:
		return 0;
	}
}

/* The values the command set before parsing are what --help calls the defaults. */
static void keep_defaults(struct opt *table)
{
	for (struct opt *o = table; o->type != OPT_END; o++) {
		o->given = 0;
		if (!(o->flags & OPT_SHOW_DEFAULT))
			continue;
		if (o->type == OPT_COUNT)
			o->default_count = *(long *)o->value;
		else if (o->type == OPT_WORD)
			o->default_text = o->words[*(int *)o->value];
		else if (o->type == OPT_STRING)
			o->default_text = *(const char **)o->value;
	}
}

static int help_asked(const struct opt_command *cmd, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if ((cmd->flags & OPTS_STOP_AT_OPERAND) && argv[i][0] != '-')
			return 0;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
	}
	return 0;
}

/* "CMD: expected OPERANDS (try wpptrace help CMD)" when the count is off. */
static int check_operands(const struct opt_command *cmd, int argc, int next)
{
	int n = argc - next;

	if (!cmd->operands ||
	    (n >= cmd->min_operands && (cmd->max_operands < 0 || n <= cmd->max_operands)))
		return 0;
	wpp_err("%s: expected %s (try wpptrace help %.*s)", cmd->name, cmd->operands,
		(int)strcspn(cmd->name, " "), cmd->name);
	return -1;
}

int opts_parse(const struct opt_command *cmd, struct opt *table, int argc, char **argv, int *next)
{
	struct option longopts[MAX_OPTS + 2];
	char shorts[3 * MAX_OPTS + 8];
	size_t nlong = 0, ns = 0;
	int c;

	keep_defaults(table);
	if (help_asked(cmd, argc, argv)) {
		opts_help(cmd, table, stdout);
		return 1;
	}
	if (cmd->flags & OPTS_STOP_AT_OPERAND)
		shorts[ns++] = '+'; /* the program's own options are its own */
	shorts[ns++] = ':';	    /* a missing value comes back as ':' (opt_error.h) */
	for (int i = 0; table[i].type != OPT_END; i++) {
		const struct opt *o = &table[i];
		if (i == MAX_OPTS) /* bounds longopts and shorts alike */
			wpp_die("%s: more than %d table entries", cmd->name, MAX_OPTS);
		if (!is_option(o))
			continue;
		int val = o->short_name ? o->short_name : LONG_FIRST + i;
		if (o->long_name)
			longopts[nlong++] = (struct option){
			    o->long_name, takes_value(o) ? required_argument : no_argument, NULL,
			    val};
		if (o->short_name) {
			shorts[ns++] = o->short_name;
			if (takes_value(o))
				shorts[ns++] = ':';
		}
	}
	longopts[nlong++] = (struct option){"help", no_argument, NULL, 'h'};
	longopts[nlong] = (struct option){NULL, 0, NULL, 0};
	shorts[ns++] = 'h';
	shorts[ns] = 0;

	optind = 0; /* glibc: a full restart, '+' mode included (a test parses many) */
	opterr = 0; /* bad_option says it in one line */
	while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		struct opt *o = NULL;
		if (c == 'h') {
			opts_help(cmd, table, stdout);
			return 1;
		}
		for (int i = 0; table[i].type != OPT_END && !o; i++)
			if (is_option(&table[i]) &&
			    (table[i].short_name ? table[i].short_name : LONG_FIRST + i) == c)
				o = &table[i];
		if (!o) { /* '?' or ':' */
			bad_option(cmd->name, c, argv, longopts);
			return -1;
		}
		if (apply(cmd->name, o, takes_value(o) ? optarg : NULL) < 0)
			return -1;
	}
	*next = optind;
	return check_operands(cmd, argc, optind);
}

unsigned opt_given(const struct opt *table, const char *name)
{
	for (const struct opt *o = table; o->type != OPT_END; o++)
		if (is_option(o) && ((o->long_name && !strcmp(o->long_name, name)) ||
				     (!o->long_name && name[0] == o->short_name && !name[1])))
			return o->given;
	return 0;
}

/* Lines of text, each after indent spaces (the first after first_indent). */
static void indented(FILE *out, const char *text, int first_indent, int indent)
{
	int pad = first_indent;

	while (*text) {
		size_t n = strcspn(text, "\n");
		fprintf(out, "%*s%.*s\n", pad, "", (int)n, text);
		text += n + (text[n] == '\n');
		pad = indent;
	}
}

static void option_help(FILE *out, const struct opt *o)
{
	char left[128], arg[160], help[1024];
	int n;

	if (o->type == OPT_WORD && !o->arg)
		words_text(o->words, "|", "|", arg, sizeof(arg));
	else
		snprintf(arg, sizeof(arg), "%s", o->arg ? o->arg : "");
	if (o->short_name && o->long_name)
		n = snprintf(left, sizeof(left), "  -%c, --%s", o->short_name, o->long_name);
	else if (o->long_name)
		n = snprintf(left, sizeof(left), "      --%s", o->long_name);
	else
		n = snprintf(left, sizeof(left), "  -%c", o->short_name);
	if (takes_value(o) && (size_t)n < sizeof(left))
		snprintf(left + n, sizeof(left) - (size_t)n, " %s", arg);

	snprintf(help, sizeof(help), "%s", o->help ? o->help : "");
	if ((o->flags & OPT_SHOW_DEFAULT) && o->type == OPT_COUNT) {
		size_t len = strlen(help);
		snprintf(help + len, sizeof(help) - len, " (default %ld)", o->default_count);
	} else if ((o->flags & OPT_SHOW_DEFAULT) && o->default_text) {
		size_t len = strlen(help);
		snprintf(help + len, sizeof(help) - len, " (default %s)", o->default_text);
	}
	if ((int)strlen(left) + 2 > HELP_COL) {
		fprintf(out, "%s\n", left);
		indented(out, help, HELP_COL, HELP_COL);
	} else {
		fprintf(out, "%-*s", HELP_COL, left);
		indented(out, help, 0, HELP_COL);
	}
}

void opts_help(const struct opt_command *cmd, struct opt *table, FILE *out)
{
	const char *u = cmd->usage;

	for (int first = 1; *u; first = 0) {
		size_t n = strcspn(u, "\n");
		fprintf(out, "%s wpptrace %.*s\n", first ? "usage:" : "      ", (int)n, u);
		u += n + (u[n] == '\n');
	}
	if (cmd->about)
		fprintf(out, "\n%s", cmd->about);
	fputs("\noptions:\n", out);
	fprintf(out, "%-*s%s\n", HELP_COL, "  -h, --help", "this text");
	for (const struct opt *o = table; o->type != OPT_END; o++) {
		if (o->flags & OPT_HIDDEN)
			continue;
		if (o->type == OPT_HEADING)
			fprintf(out, "\n%s\n", o->help);
		else
			option_help(out, o);
	}
}
