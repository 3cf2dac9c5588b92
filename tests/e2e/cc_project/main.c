/* SPDX-License-Identifier: MIT */
/* Reverse-Polish calculator over a few fixed expressions. */
#include <ctype.h>
#include <stdlib.h>

#include "fmt.h"
#include "stack.h"

static int eval(const char *e, long *out)
{
	struct stack s = {.n = 0};
	for (const char *p = e; *p; p++) {
		long a, b;
		if (isdigit((unsigned char)*p)) {
			if (stack_push(&s, strtol(p, (char **)&p, 10)) < 0)
				return -1;
			p--;
			continue;
		}
		if (*p == ' ')
			continue;
		if (stack_pop(&s, &b) < 0 || stack_pop(&s, &a) < 0)
			return -1;
		switch (*p) {
		case '+': a += b; break;
		case '-': a -= b; break;
		case '*': a *= b; break;
		case '/':
			if (b == 0)
				return -1;
			a /= b;
			break;
		default: return -1;
		}
		stack_push(&s, a);
	}
	return stack_pop(&s, out);
}

int main(void)
{
	static const char *exprs[] = {"1 2 +", "6 7 * 2 -", "10 0 /", "3 4 5 * +", "+", "100 7 /"};
	int errors = 0;
	for (unsigned i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
		long v = 0;
		int ok = eval(exprs[i], &v) == 0;
		errors += !ok;
		fmt_result(exprs[i], v, ok);
	}
	return errors;
}
