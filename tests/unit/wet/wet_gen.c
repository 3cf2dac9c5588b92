/* SPDX-License-Identifier: MIT */
/*
 * wet_gen.c — the test streams of wet_gen.h.  The interpreter runs a tiny
 * stack program (nested loops summing and multiplying) and emits every
 * value an instruction produces, in execution order: what a WET's value
 * labels look like when flattened.
 */
#include "wet_gen.h"

uint64_t wet_gen_rand(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15u;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

const char *wet_gen_name(enum wet_gen_kind k)
{
	static const char *const names[GEN_NKINDS] = {
		"random", "constant", "strided", "periodic", "array-walk", "interpreter", "small-random",
	};
	return k < GEN_NKINDS ? names[k] : "?";
}

/* The addresses one load touches: b[j][i] of a 48x64 array of 8-byte
 * elements walked column by column (stride 512, a jump back per column),
 * the walk repeated. */
static void array_walk(uint64_t *v, size_t n)
{
	const uint64_t b = 0x55d0c3a81000u;
	size_t k = 0;

	while (k < n)
		for (uint64_t i = 0; i < 64 && k < n; i++)
			for (uint64_t j = 0; j < 48 && k < n; j++)
				v[k++] = b + (j * 64 + i) * 8;
}

enum op { PUSH, ADD, MUL, DUP, LOAD, STORE, JNZ_DEC, HALT };
struct insn {
	enum op op;
	int64_t arg;
};

static void interpreter(uint64_t seed, uint64_t *v, uint32_t *pcs, size_t n)
{
	/* r0 = outer count, r1 = inner count, r2 = acc:
	 *   loop: r1 = 7; inner: r2 = r2 * 3 + r1; r1--; jnz inner;
	 *         r2 += 1000003; r0--; jnz loop */
	static const struct insn prog[] = {
		{PUSH, 7},  {STORE, 1}, {LOAD, 2},    {PUSH, 3}, {MUL, 0},	{LOAD, 1},
		{ADD, 0},   {STORE, 2}, {JNZ_DEC, 1}, {LOAD, 2}, {PUSH, 1000003}, {ADD, 0},
		{STORE, 2}, {JNZ_DEC, 0}, {HALT, 0},
	};
	uint64_t reg[3], stack[8];
	size_t k = 0;

	while (k < n) {
		size_t pc = 0, sp = 0;

		reg[0] = 3 + wet_gen_rand(&seed) % 40;
		reg[1] = 0;
		reg[2] = wet_gen_rand(&seed) % 1000;
		while (k < n && prog[pc].op != HALT) {
			const struct insn *in = &prog[pc++];
			uint64_t out;

			switch (in->op) {
			case PUSH:
				out = stack[sp++] = (uint64_t)in->arg;
				break;
			case ADD:
				sp--;
				out = stack[sp - 1] += stack[sp];
				break;
			case MUL:
				sp--;
				out = stack[sp - 1] *= stack[sp];
				break;
			case DUP:
				out = stack[sp] = stack[sp - 1];
				sp++;
				break;
			case LOAD:
				out = stack[sp++] = reg[in->arg];
				break;
			case STORE:
				out = reg[in->arg] = stack[--sp];
				break;
			case JNZ_DEC:
				out = --reg[in->arg];
				if (out != 0)
					pc = in->arg == 1 ? 2 : 0;
				break;
			default:
				out = 0;
			}
			if (pcs)
				pcs[k] = (uint32_t)(in - prog);
			v[k++] = (uint64_t)out;
		}
	}
}

void wet_gen_interpreter(uint64_t seed, uint64_t *v, uint32_t *pcs, size_t n)
{
	interpreter(seed * 2654435761u + 1, v, pcs, n);
}

void wet_gen_fill(enum wet_gen_kind kind, uint64_t seed, uint64_t *v, size_t n)
{
	uint64_t s = seed * 2654435761u + 1;

	switch (kind) {
	case GEN_RANDOM:
		for (size_t i = 0; i < n; i++)
			v[i] = wet_gen_rand(&s);
		break;
	case GEN_CONSTANT:
		for (size_t i = 0; i < n; i++)
			v[i] = 0xdeadbeef00u + seed;
		break;
	case GEN_STRIDED:
		for (size_t i = 0; i < n; i++)
			v[i] = 0x400000u + seed - 24 * (uint64_t)i;
		break;
	case GEN_PERIODIC: {
		uint64_t pat[13];

		for (size_t i = 0; i < 13; i++)
			pat[i] = wet_gen_rand(&s) % 100000;
		for (size_t i = 0; i < n; i++)
			v[i] = pat[i % 13];
		break;
	}
	case GEN_ARRAY_WALK:
		array_walk(v, n);
		break;
	case GEN_INTERPRETER:
		interpreter(s, v, NULL, n);
		break;
	case GEN_SMALL_RANDOM:
	default:
		for (size_t i = 0; i < n; i++)
			v[i] = wet_gen_rand(&s) % 16;
		break;
	}
}
