/* SPDX-License-Identifier: MIT */
/*
 * wppcc_help.h — `wppcc --help`: wppcc's own options (wppcc_args.h), one
 * line per -fwpp-mode value saying which wpptrace commands read what it
 * records.  They come before clang's own --help, which follows unchanged
 * (wppcc is a drop-in CC).
 */
#ifndef WPPCC_HELP_H
#define WPPCC_HELP_H

#include <stdio.h>

void wppcc_help(FILE *out);

#endif
