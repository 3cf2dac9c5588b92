/* setjmp/longjmp, computed goto, asm goto. */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
int rounds;

__attribute__((noinline)) void thrower(int i)
{
	if (i % 3 == 2)
		longjmp(env, i + 1);
}

int interp(const unsigned char *code)
{
	static void *ops[] = {&&op_inc, &&op_dbl, &&op_dec, &&op_end};
	int acc = 0;
	const unsigned char *pc = code;
	goto *ops[*pc++];
op_inc:
	acc++;
	goto *ops[*pc++];
op_dbl:
	acc *= 2;
	goto *ops[*pc++];
op_dec:
	acc--;
	goto *ops[*pc++];
op_end:
	return acc;
}

int asmgoto(int x)
{
	if (x > 3)
		asm goto("" ::: : big);
	return 1;
big:
	return 2;
}

int main(void)
{
	volatile int i = 0;
	int got = setjmp(env);
	rounds++;
	if (got)
		printf("back %d\n", got);
	while (i < 7) {
		i++;
		thrower(i);
	}
	static const unsigned char prog[] = {0, 0, 1, 2, 1, 0, 3};
	printf("%d %d %d %d\n", rounds, interp(prog), asmgoto(2), asmgoto(9));
	return 0;
}
