/* SPDX-License-Identifier: MIT */
#include "costs/cost_scale.h"

uint64_t cost_scale(uint64_t count, uint64_t enabled, uint64_t running)
{
	if (running == 0)
		return 0;
	if (running >= enabled)
		return count;
	unsigned __int128 v = (unsigned __int128)count * enabled / running;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}
