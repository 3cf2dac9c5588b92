/* SPDX-License-Identifier: MIT */
#ifndef ASLR_H
#define ASLR_H
void aslr_where(const char *obj, const char *inner, int inner_line, const char *outer, int outer_line);
int lib_fn(int x);
#endif
