/* SPDX-License-Identifier: MIT */
/* A fixed-size integer stack (cc_project test). */
#ifndef CC_PROJECT_STACK_H
#define CC_PROJECT_STACK_H
struct stack {
	long v[64];
	int n;
};
/* 0 on success, -1 when full / empty. */
int stack_push(struct stack *s, long v);
int stack_pop(struct stack *s, long *v);
#endif
