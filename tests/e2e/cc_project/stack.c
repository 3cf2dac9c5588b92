/* SPDX-License-Identifier: MIT */
#include "stack.h"

int stack_push(struct stack *s, long v)
{
	if (s->n >= 64)
		return -1;
	s->v[s->n++] = v;
	return 0;
}

int stack_pop(struct stack *s, long *v)
{
	if (s->n <= 0)
		return -1;
	*v = s->v[--s->n];
	return 0;
}
