/* SPDX-License-Identifier: MIT */
/*
 * record.h — `wpptrace record`: run a program with the collector's transport
 * in its environment, drain every traced process it starts, write a .wpp.
 * (Declared for the dispatcher in user/cli/commands.h.)
 */
#ifndef WPP_RECORD_H
#define WPP_RECORD_H

int cmd_record(int argc, char **argv);

#endif
