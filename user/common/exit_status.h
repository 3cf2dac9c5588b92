/* SPDX-License-Identifier: MIT */
/*
 * exit_status.h — the exit statuses of bin/wpptrace's commands
 * (docs/cli.md).  Here rather than with the commands so that the rooms
 * below the CLI (reports, costs, the trace session) can return them
 * without including a CLI header.
 */
#ifndef WPP_COMMON_EXIT_STATUS_H
#define WPP_COMMON_EXIT_STATUS_H

#define WPP_EXIT_OK    0
#define WPP_EXIT_ERROR 1 /* unusable or corrupt input */
#define WPP_EXIT_USAGE 2 /* bad command line */
/* The input ends early (a recording that did not finish, a torn last
 * chunk): everything intact was reported, and the caller is told so. */
#define WPP_EXIT_INCOMPLETE 3

#endif
