#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen.py SEED — a random C program for tests/e2e/dual-random.sh.

Random CFGs: functions of nested loops (for, while, do), if/else chains,
switches, forward and backward gotos, early returns, calls down an acyclic
call graph (plus bounded self-recursion) and, in some functions, a
computed-goto dispatch loop.  Everything is driven by a PRNG of the seed
and the program's argv[1], and the program prints a checksum of all it
computed: a miscompiled copy or a wrong switch between copies changes it.

With argv[2] = "toggle" the program also switches its dual build's flags
(docs/runtime.md, "Dual builds") off and on at PRNG-chosen points inside
its loops, through the array the runtime publishes in `__wpp_registry`:
frames then leave and re-enter the instrumented copies mid-loop.
"""
import random
import sys

rng = random.Random(int(sys.argv[1]))
NFUNCS = rng.randint(3, 6)
out = []


def emit(depth, line):
    out.append("\t" * depth + line)


def expr(vars_):
    a, b = rng.choice(vars_), rng.choice(vars_)
    op = rng.choice(["+", "-", "^", "*", "&", "|"])
    k = rng.randint(1, 97)
    return f"(({a} {op} {b}) + {k}u)"


def cond(vars_):
    a = rng.choice(vars_)
    return f"(({a} >> {rng.randint(0, 5)}) % {rng.randint(2, 7)}u == {rng.randint(0, 1)}u)"


class Fn:
    def __init__(self, idx):
        self.idx = idx
        self.labels = 0
        self.loops = 0


def stmt(fn, depth, vars_, budget, in_loop):
    kinds = ["assign", "assign", "if"]
    if budget > 1:
        kinds += ["for", "while", "do", "switch"]
    if in_loop:
        kinds += ["break", "continue", "toggle"]
    if fn.idx + 1 < NFUNCS:
        kinds += ["call"]
    if fn.idx == NFUNCS - 1:
        kinds += ["recurse"]
    kinds += ["ret"] if rng.random() < 0.1 else []
    k = rng.choice(kinds)
    v = rng.choice(vars_)
    if k == "assign":
        emit(depth, f"{v} = {expr(vars_)};")
    elif k == "if":
        emit(depth, f"if {cond(vars_)} {{")
        block(fn, depth + 1, vars_, budget - 1, in_loop)
        if rng.random() < 0.5:
            emit(depth, "} else {")
            block(fn, depth + 1, vars_, budget - 1, in_loop)
        emit(depth, "}")
    elif k in ("for", "while", "do"):
        fn.loops += 1
        i = f"i{fn.loops}"
        n = rng.randint(1, 5)
        emit(depth, "{")
        emit(depth + 1, f"unsigned {i} = 0;")
        if k == "for":
            emit(depth + 1, f"for ({i} = 0; {i} < {n}u + ({v} & 3u) && ++steps < STEPS; {i}++) {{")
        elif k == "while":
            emit(depth + 1, f"while ({i}++ < {n}u + ({v} & 1u) && ++steps < STEPS) {{")
        else:
            emit(depth + 1, "do {")
        block(fn, depth + 2, vars_ + [i], budget - 1, True)
        if k == "do":
            emit(depth + 1, f"}} while (++{i} < {n}u && ++steps < STEPS);")
        else:
            emit(depth + 1, "}")
        emit(depth, "}")
    elif k == "switch":
        emit(depth, f"switch ({v} % 5u) {{")
        for c in range(rng.randint(2, 4)):
            emit(depth, f"case {c}:")
            block(fn, depth + 1, vars_, budget - 1, in_loop)
            if rng.random() < 0.7:
                emit(depth + 1, "break;")
        emit(depth, "default:")
        emit(depth + 1, f"{v} += 7u;")
        emit(depth, "}")
    elif k == "break":
        emit(depth, f"if {cond(vars_)} break;")
    elif k == "continue":
        emit(depth, f"if {cond(vars_)} continue;")
    elif k == "toggle":
        emit(depth, f"if (((seed += 0x9e3779b9u) >> 7) % 5u == 0u) toggle();")
    elif k == "call":
        callee = rng.randint(fn.idx + 1, NFUNCS - 1)
        emit(depth, f"{v} += f{callee}({rng.choice(vars_)}, {rng.choice(vars_)}, depth);")
    elif k == "recurse":
        emit(depth, f"if (depth < 3u) {v} += f{fn.idx}({v}, {rng.choice(vars_)}, depth + 1u);")
    elif k == "ret":
        emit(depth, f"if {cond(vars_)} return {v};")


def block(fn, depth, vars_, budget, in_loop):
    for _ in range(rng.randint(1, 3)):
        stmt(fn, depth, vars_, budget, in_loop)


def function(idx):
    fn = Fn(idx)
    emit(0, f"static unsigned f{idx}(unsigned a, unsigned b, unsigned depth)")
    emit(0, "{")
    emit(1, "unsigned x = a ^ 0x5bd1e995u, y = b + depth;")
    emit(1, "sum += a;")
    vars_ = ["a", "b", "x", "y"]
    if rng.random() < 0.3:  # a backward goto loop
        emit(1, "unsigned g = 0;")
        emit(0, "again:")
        block(fn, 1, vars_ + ["g"], 2, False)
        emit(1, f"if (++g < {rng.randint(2, 5)}u && {cond(vars_)}) goto again;")
    if rng.random() < 0.4:  # a computed-goto interpreter loop
        ops = rng.randint(2, 4)
        emit(1, f"static const void *const tab[{ops}] = {{" +
             ", ".join(f"&&op{j}" for j in range(ops)) + "};")
        emit(1, "unsigned pc = 0;")
        emit(1, f"goto *tab[(x + pc) % {ops}u];")
        for j in range(ops):
            emit(0, f"op{j}:")
            block(fn, 1, vars_, 2, False)
            emit(1, f"if (++pc < {rng.randint(3, 12)}u) goto *tab[(y ^ pc) % {ops}u];")
            emit(1, "goto done;")
        emit(0, "done:")
    block(fn, 1, vars_, 3, False)
    emit(1, "sum = sum * 31u + x + y;")
    emit(1, "return x + y;")
    emit(0, "}")
    emit(0, "")


out.append('''#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/wpp_registry.h"

/* The runtime's registry, when linked (a weak reference: plain builds
 * have none). */
extern struct wpp_registry __wpp_registry __attribute__((weak));
/* fuel: calls left in this round; steps: loop trips in it (bounds the
 * trace) */
static unsigned sum, seed, fuel, steps;
#define STEPS 3000u
static int toggling, on = 1;

/* Flips every dual flag of the process (the test's stand-in for a
 * collector attaching and detaching). */
static void toggle(void)
{
	if (!toggling || !&__wpp_registry)
		return;
	on = !on;
	const unsigned long *f = (const unsigned long *)(unsigned long)__wpp_registry.dual_flags;
	for (unsigned i = 0; i < __wpp_registry.dual_count; i++)
		*(volatile unsigned char *)f[i] = (unsigned char)on;
}
''')
for i in range(NFUNCS):
    emit(0, f"static unsigned f{i}(unsigned a, unsigned b, unsigned depth);")
emit(0, "")
for i in range(NFUNCS - 1, -1, -1):
    function(i)
out.append('''int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 20;
	toggling = argc > 2 && strcmp(argv[2], "toggle") == 0;
	seed = n;
	for (unsigned k = 0; k < n; k++) {
		fuel = 300;
		steps = 0;
		sum += f0(k, k * 7u + 1u, 0);
	}
	printf("%u\\n", sum);
	return 0;
}''')
print("\n".join(out))
