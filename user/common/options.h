/* SPDX-License-Identifier: MIT */
/*
 * options.h — one table per command's options, one parser, help text made
 * from the table.
 *
 * Each `wpptrace` command describes its options once: a table of struct
 * opt (short name, long name, value name, help text, and what the option
 * sets, typed), ended by OPT_END.  opts_parse() reads the command line
 * with getopt_long built from that table, checks every value against its
 * type (a number in its range, one of a list of words) and says what is
 * wrong in one line naming the option (opt_error.h's wording), so a
 * command's own code only checks how options go together.  `CMD --help`,
 * `-h` and `wpptrace help CMD` print the same text: the command's usage
 * lines and description (struct opt_command), then one line or more per
 * option, generated from the table, with its default where the entry asks
 * for it — so a default is written once, where the variable is set.
 *
 * The shared groups (OPTS_THREADS, OPT_FORMAT, OPT_OUTPUT, OPT_COST) give
 * the same option the same name, value name and help in every command.
 */
#ifndef WPP_OPTIONS_H
#define WPP_OPTIONS_H

#include <limits.h>
#include <stdio.h>

enum opt_type {
	OPT_END = 0,
	OPT_FLAG,   /* int *value = 1 */
	OPT_COUNT,  /* long *value = a decimal number in min..max */
	OPT_STRING, /* const char **value = the value as given */
	OPT_WORD,   /* int *value = index of the value in words[] */
	OPT_CALL,   /* call(entry, value): 0, or -1 after one error line */
	OPT_HEADING /* not an option: a heading in the help (help is its text) */
};

/* opt.flags */
#define OPT_SHOW_DEFAULT 1u /* help ends with "(default ...)": *value as the command set it */
#define OPT_HIDDEN	 2u /* parsed, not in the help (test hooks) */
#define OPT_NO_VALUE	 4u /* OPT_CALL: takes no value (call gets NULL) */

struct opt {
	enum opt_type type;
	char short_name;       /* 0: none */
	const char *long_name; /* NULL: none */
	const char *arg;       /* the value's name in the help ("N", "FILE"); OPT_WORD:
				* NULL means the words joined by '|' */
	const char *help;      /* lines separated by '\n' */
	void *value;
	long min, max;						/* OPT_COUNT */
	const char *const *words;				/* OPT_WORD: NULL-terminated */
	int (*call)(const struct opt *self, const char *value); /* self->ctx: its context */
	void *ctx;
	unsigned flags;
	/* Filled in by opts_parse: how often the option was given, and the
	 * default the help shows (the value before parsing). */
	unsigned given;
	long default_count;
	const char *default_text;
};

/* What the help says around the table. */
struct opt_command {
	const char *name;  /* "paths"; "wet dump" for a subcommand */
	const char *usage; /* lines after "wpptrace ", e.g. "paths run.wpp [options]" */
	const char *about; /* what the command does (may be NULL) */
	unsigned flags;
	/* The operands after the options, checked by opts_parse: between
	 * min_operands and max_operands (-1: no limit) of them, said as
	 * "expected OPERANDS" otherwise.  NULL: the command checks them. */
	const char *operands;
	int min_operands, max_operands;
};
#define OPTS_STOP_AT_OPERAND 1u /* record: options end at the program's name */

/* Read argv[1..] against table, and count the operands (cmd->operands).
 * Returns 0 with *next the index of the first operand; 1 after printing
 * the help on stdout (the command exits 0); -1 after one "CMD: ..." error
 * line (the command exits 2).  A "--help" or "-h" anywhere before "--"
 * asks for the help (for OPTS_STOP_AT_OPERAND commands, before the first
 * operand). */
int opts_parse(const struct opt_command *cmd, struct opt *table, int argc, char **argv, int *next);
/* The help text, as --help prints it. */
void opts_help(const struct opt_command *cmd, struct opt *table, FILE *out);
/* "--pid", or "-k" for an option without a long name: how messages name it. */
const char *opt_name(const struct opt *o, char *buf, size_t len);
/* How often the option with this long name (else short name) was given. */
unsigned opt_given(const struct opt *table, const char *long_name);

/* struct opt_command's operands, on one line. */
#define OPT_OPERANDS(what, lo, hi) .operands = (what), .min_operands = (lo), .max_operands = (hi)

/* Table entries. */
#define OPT_FLAG_(s, l, help_, ptr)                                                                \
	{.type = OPT_FLAG, .short_name = (s), .long_name = (l), .help = (help_), .value = (ptr)}
#define OPT_COUNT_(s, l, arg_, help_, ptr, lo, hi, fl)                                             \
	{.type = OPT_COUNT,                                                                        \
	 .short_name = (s),                                                                        \
	 .long_name = (l),                                                                         \
	 .arg = (arg_),                                                                            \
	 .help = (help_),                                                                          \
	 .value = (ptr),                                                                           \
	 .min = (lo),                                                                              \
	 .max = (hi),                                                                              \
	 .flags = (fl)}
#define OPT_STRING_(s, l, arg_, help_, ptr)                                                        \
	{.type = OPT_STRING,                                                                       \
	 .short_name = (s),                                                                        \
	 .long_name = (l),                                                                         \
	 .arg = (arg_),                                                                            \
	 .help = (help_),                                                                          \
	 .value = (ptr)}
#define OPT_WORD_(s, l, help_, ptr, word_list, fl)                                                 \
	{.type = OPT_WORD,                                                                         \
	 .short_name = (s),                                                                        \
	 .long_name = (l),                                                                         \
	 .help = (help_),                                                                          \
	 .value = (ptr),                                                                           \
	 .words = (word_list),                                                                     \
	 .flags = (fl)}
#define OPT_CALL_(s, l, arg_, help_, fn, context, fl)                                              \
	{.type = OPT_CALL,                                                                         \
	 .short_name = (s),                                                                        \
	 .long_name = (l),                                                                         \
	 .arg = (arg_),                                                                            \
	 .help = (help_),                                                                          \
	 .call = (fn),                                                                             \
	 .ctx = (context),                                                                         \
	 .flags = (fl)}
#define OPT_HEADING_(text) {.type = OPT_HEADING, .help = (text)}
#define OPT_END_	   {.type = OPT_END}

/* The shared groups.  f: a struct with long pid, tid, gen (-1: any). */
#define OPTS_THREADS(f)                                                                            \
	OPT_COUNT_('p', "pid", "P", "only the threads of process P", &(f).pid, 0, LONG_MAX, 0),    \
	    OPT_COUNT_('t', "tid", "T", "only thread T", &(f).tid, 0, LONG_MAX, 0),                \
	    OPT_COUNT_(0, "gen", "G",                                                              \
		       "only exec generation G (0: the first image; a thread\n"                    \
		       "that exec()s keeps its pid and tid, its generation + 1)",                  \
		       &(f).gen, 0, LONG_MAX, 0)
/* The word list of the usual --format: text (the default, index 0) or json (1). */
extern const char *const opt_text_json[];
/* --format: *ptr is the index of the word (the first is the default). */
#define OPT_FORMAT(ptr, word_list)                                                                 \
	OPT_WORD_('f', "format", "output format", (ptr), (word_list), OPT_SHOW_DEFAULT)
#define OPT_OUTPUT(ptr, help_)	   OPT_STRING_('o', "output", "FILE", (help_), (ptr))
#define OPT_COST(ptr, arg_, help_) OPT_STRING_('c', "cost", (arg_), (help_), (ptr))

#endif
