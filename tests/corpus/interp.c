/* SPDX-License-Identifier: MIT */
/* A stack-machine interpreter: one big switch in a dispatch loop, with
 * calls, conditional jumps and a small memory.  Runs a prime sieve and a
 * Collatz-length search written in its bytecode. */
#include <stdio.h>

#include "corpus.h"

enum {
	I_HALT, I_PUSH, I_POP, I_DUP, I_SWAP, I_OVER, I_ADD, I_SUB, I_MUL, I_DIV, I_MOD,
	I_LT, I_EQ, I_NOT, I_JMP, I_JZ, I_JNZ, I_LOAD, I_STORE, I_CALL, I_RET, I_OUT,
	I_INC, I_DEC, I_NOP,
};

struct vm {
	long stack[256];
	long mem[1024];
	int rstack[64];
	int sp, rsp;
	long out_count, out_sum;
	long steps;
};

__attribute__((noinline)) static int run(struct vm *m, const long *code, int pc)
{
	for (;;) {
		m->steps++;
		long a, b;
		switch (code[pc++]) {
		case I_HALT: return 0;
		case I_PUSH: m->stack[m->sp++] = code[pc++]; break;
		case I_POP: m->sp--; break;
		case I_DUP: m->stack[m->sp] = m->stack[m->sp - 1]; m->sp++; break;
		case I_SWAP:
			a = m->stack[m->sp - 1];
			m->stack[m->sp - 1] = m->stack[m->sp - 2];
			m->stack[m->sp - 2] = a;
			break;
		case I_OVER: m->stack[m->sp] = m->stack[m->sp - 2]; m->sp++; break;
		case I_ADD: b = m->stack[--m->sp]; m->stack[m->sp - 1] += b; break;
		case I_SUB: b = m->stack[--m->sp]; m->stack[m->sp - 1] -= b; break;
		case I_MUL: b = m->stack[--m->sp]; m->stack[m->sp - 1] *= b; break;
		case I_DIV:
			b = m->stack[--m->sp];
			if (b == 0)
				return 1;
			m->stack[m->sp - 1] /= b;
			break;
		case I_MOD:
			b = m->stack[--m->sp];
			if (b == 0)
				return 1;
			m->stack[m->sp - 1] %= b;
			break;
		case I_LT: b = m->stack[--m->sp]; m->stack[m->sp - 1] = m->stack[m->sp - 1] < b; break;
		case I_EQ: b = m->stack[--m->sp]; m->stack[m->sp - 1] = m->stack[m->sp - 1] == b; break;
		case I_NOT: m->stack[m->sp - 1] = !m->stack[m->sp - 1]; break;
		case I_JMP: pc = (int)code[pc]; break;
		case I_JZ:
			if (m->stack[--m->sp] == 0)
				pc = (int)code[pc];
			else
				pc++;
			break;
		case I_JNZ:
			if (m->stack[--m->sp] != 0)
				pc = (int)code[pc];
			else
				pc++;
			break;
		case I_LOAD: m->stack[m->sp - 1] = m->mem[m->stack[m->sp - 1] & 1023]; break;
		case I_STORE: /* ( value addr -- ) */
			a = m->stack[--m->sp];
			b = m->stack[--m->sp];
			m->mem[a & 1023] = b;
			break;
		case I_CALL: m->rstack[m->rsp++] = pc + 1; pc = (int)code[pc]; break;
		case I_RET: pc = m->rstack[--m->rsp]; break;
		case I_OUT: m->out_count++; m->out_sum += m->stack[--m->sp]; break;
		case I_INC: m->stack[m->sp - 1]++; break;
		case I_DEC: m->stack[m->sp - 1]--; break;
		case I_NOP: break;
		default: return 2;
		}
	}
}

/* Sieve of Eratosthenes up to n (mem[i] = 1 marks composite), outputs primes. */
static const long sieve[] = {
	/* 0: i = 2 */ I_PUSH, 2,
	/* 2: loop: if !(i < N) halt */ I_DUP, I_PUSH, 0 /* N patched */, I_LT, I_JZ, 40,
	/* 8: if mem[i] skip */ I_DUP, I_LOAD, I_JNZ, 37,
	/* 12: prime: out i; j = i*i */ I_DUP, I_OUT, I_DUP, I_DUP, I_MUL,
	/* 17: inner: if !(j < N) done */ I_DUP, I_PUSH, 0 /* N patched */, I_LT, I_JZ, 36,
	/* 23: mem[j] = 1 */ I_PUSH, 1, I_OVER, I_STORE,
	/* 27: j += i */ I_OVER, I_ADD, I_NOP, I_NOP, I_NOP, I_NOP, I_JMP, 17,
	/* 35: (unused) */ I_NOP,
	/* 36: drop j */ I_POP,
	/* 37: i++ */ I_INC, I_JMP, 2,
	/* 40: */ I_POP, I_HALT,
};

/* Collatz length of n, via a subroutine; outputs lengths for n = 1..k. */
static const long collatz[] = {
	/* 0: n = 1 */ I_PUSH, 1,
	/* 2: loop */ I_DUP, I_PUSH, 0 /* k patched */, I_LT, I_JZ, 14,
	/* 8: */ I_DUP, I_CALL, 16, I_OUT, I_INC, I_JMP,
	/* 14: */ 2, I_HALT,
	/* 16: len(n): ( n -- len ) count in mem[0] */ I_PUSH, 0, I_PUSH, 0, I_STORE,
	/* 21: while n != 1 */ I_DUP, I_PUSH, 1, I_EQ, I_JNZ, 56,
	/* 27: count++ */ I_PUSH, 0, I_LOAD, I_INC, I_PUSH, 0, I_STORE,
	/* 34: odd? */ I_DUP, I_PUSH, 2, I_MOD, I_JZ, 50,
	/* 40: n = 3n+1 */ I_PUSH, 3, I_MUL, I_INC, I_JMP, 21, I_NOP, I_NOP, I_NOP, I_NOP,
	/* 50: n /= 2 */ I_PUSH, 2, I_DIV, I_JMP, 21, I_NOP,
	/* 56: replace n by count */ I_POP, I_PUSH, 0, I_LOAD, I_RET,
};

int main(void)
{
	uint32_t st = corpus_seed();
	static struct vm m;
	long prog1[sizeof sieve / sizeof sieve[0]];
	long prog2[sizeof collatz / sizeof collatz[0]];
	for (unsigned i = 0; i < sizeof sieve / sizeof sieve[0]; i++)
		prog1[i] = sieve[i];
	for (unsigned i = 0; i < sizeof collatz / sizeof collatz[0]; i++)
		prog2[i] = collatz[i];
	prog1[4] = prog1[19] = 100 + (long)(st % 7u);
	prog2[4] = 20 + (long)(st % 5u);
	int r1 = run(&m, prog1, 0);
	long primes = m.out_count, psum = m.out_sum;
	m.sp = m.rsp = 0;
	m.out_count = m.out_sum = 0;
	int r2 = run(&m, prog2, 0);
	printf("interp: r=%d,%d primes=%ld psum=%ld collatz_n=%ld collatz_sum=%ld steps=%ld\n", r1, r2,
	       primes, psum, m.out_count, m.out_sum, m.steps);
	return 0;
}
