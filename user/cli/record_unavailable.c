/* SPDX-License-Identifier: MIT */
/*
 * record_unavailable.c — linked only while user/record/ has not provided
 * RECORD_OBJS (see user/cli/module.mk), so `wpptrace record` fails plainly
 * instead of the link failing.
 */
#include "commands.h"
#include "log.h"

int cmd_record(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	wpp_err("record: not built in this wpptrace (user/record/ is missing)");
	return WPP_EXIT_ERROR;
}
