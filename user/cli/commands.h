/* SPDX-License-Identifier: MIT */
/*
 * commands.h — the subcommands of bin/wpptrace.  Each takes the arguments
 * after its name (argv[0] is the command name) and returns the process exit
 * status.  Errors are one "wpptrace: error: ..." line on stderr.
 */
#ifndef WPP_CLI_COMMANDS_H
#define WPP_CLI_COMMANDS_H

#include "common/exit_status.h" /* WPP_EXIT_*, which every command returns */

int cmd_record(int argc, char **argv);	    /* user/record/ (RUNTIME room) */
int cmd_script(int argc, char **argv);	    /* user/cli/cmd_script.c */
int cmd_paths(int argc, char **argv);	    /* user/cli/cmd_paths.c */
int cmd_info(int argc, char **argv);	    /* user/record/cmd_info.c */
int cmd_wpp(int argc, char **argv);	    /* user/cli/cmd_wpp.c (GRAMMAR room) */
int cmd_hot(int argc, char **argv);	    /* user/cli/cmd_hot.c (GRAMMAR room) */
int cmd_report(int argc, char **argv);	    /* user/cli/cmd_report.c (REPORT room) */
int cmd_annotate(int argc, char **argv);    /* user/cli/cmd_annotate.c (REPORT room) */
int cmd_cfg(int argc, char **argv);	    /* user/cli/cmd_cfg.c (REPORT room) */
int cmd_export(int argc, char **argv);	    /* user/cli/cmd_export.c (REPORT room) */
int cmd_edges(int argc, char **argv);	    /* user/cli/cmd_edges.c (REPORT room) */
int cmd_interesting(int argc, char **argv); /* user/cli/cmd_interesting.c (REPORT room) */
int cmd_tpp_quality(int argc, char **argv); /* user/cli/cmd_tpp_quality.c (REPORT room) */
int cmd_residual(int argc, char **argv);    /* user/cli/cmd_residual.c (REPORT room) */
int cmd_kpaths(int argc, char **argv);	    /* user/cli/cmd_kpaths.c (KPATHS room) */
int cmd_top(int argc, char **argv);	    /* user/record/cmd_top.c (live counts) */
int cmd_wet(int argc, char **argv);	    /* user/cli/cmd_wet.c (WET room) */
/* wet's queries, argv[0] the subcommand: user/cli/cmd_wet_query.c */
int cmd_wet_query(int argc, char **argv);

#endif
