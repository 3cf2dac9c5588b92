// SPDX-License-Identifier: MIT
// tpp_eh.cpp — C++ exceptions under -fwpp-mode=tpp (tests/e2e/tpp-mode.sh):
// invokes whose unwind edges land in landing pads, hot and cold ones (an
// exception on 1 of 97 calls, another on 1 of 3), in loops, nested
// try blocks and destructors run during unwinding (seldom: unwind edges
// cold at 5 %).  Deterministic.
#include <cstdio>
#include <stdexcept>

static volatile unsigned sink;

struct Guard {
	unsigned *n;
	~Guard() { ++*n; }
};

__attribute__((noinline)) static unsigned step(unsigned i)
{
	if (i % 97 == 0)
		throw std::runtime_error("rare");
	if (i % 3 == 1)
		throw 7;
	return i * 2654435761u;
}

__attribute__((noinline)) static unsigned guarded(unsigned i, unsigned *dtors)
{
	Guard g{dtors};
	unsigned v = step(i);
	return v ^ (v >> 7);
}

/* its unwind edges are cold at 5 %: the invoke poisons, the normal edge
 * restores the register */
__attribute__((noinline)) static unsigned seldom(unsigned i, unsigned *dtors)
{
	Guard g{dtors};
	if (i % 211 == 5)
		throw std::runtime_error("seldom");
	unsigned v = i % 2 ? step(3 * i + 2) : step(3 * i);
	return v + 1;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? 4000 : 2000, rare = 0, often = 0, dtors = 0, acc = 0;
	(void)argv;
	for (unsigned i = 0; i < n; i++) {
		try {
			try {
				acc += guarded(i, &dtors);
			} catch (int k) {
				often += k;
				if (i % 11 == 0)
					throw;
			}
		} catch (const std::exception &) {
			rare++;
		} catch (...) {
			acc ^= i;
		}
		try {
			acc += seldom(i, &dtors);
		} catch (...) {
			rare++;
		}
	}
	sink = acc;
	std::printf("%u %u %u %u\n", rare, often, dtors, acc);
	return 0;
}
