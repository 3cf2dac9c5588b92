/* SPDX-License-Identifier: MIT */
/* Interface of the corpus shared library (shlib_lib.c). */
#ifndef CORPUS_SHLIB_H
#define CORPUS_SHLIB_H

/* Weighted score of v[0..n). */
int shlib_score(const int *v, int n);
/* v[i] = fn(v[i]) for each i; returns how many values changed. */
int shlib_apply(int *v, int n, int (*fn)(int));

#endif
