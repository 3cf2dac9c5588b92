/* SPDX-License-Identifier: MIT */
/*
 * ir_branch_weights.h — measured branch weights for code generation
 * (wppcc --wpp-profile).
 *
 * The pass runs at the end of the optimizer, so what is left to steer is
 * code generation: block layout, and where the register allocator puts
 * spills and copies.  Both follow branch probabilities, which without a
 * profile are LLVM's static guesses.  A traced loop holds more live values
 * than the plain one (path register, cursor, fid word, run state), so where
 * the spills go decides much of what tracing costs; with the training
 * run's edge counts as !prof branch_weights, they go to the blocks that
 * ran least, as the increments do (placement.h).  Path ids do not depend
 * on any of this: numbering never looks at weights.
 */
#ifndef WPP_INSTRUMENT_IR_BRANCH_WEIGHTS_H
#define WPP_INSTRUMENT_IR_BRANCH_WEIGHTS_H

#include <stdint.h>

#include "instrument/dag.h"
#include "instrument/ir_cfg.h"

/* Gives every br/switch with two or more successors, in a block the
 * training run left (its out-edges' counts sum to more than 0), weights
 * proportional to the measured count of each successor edge, plus one (as
 * clang's own -fprofile-instr-use does, so a never-taken edge stays
 * possible); a successor named by several switch cases shares its edge's
 * count among them.  count[e] is the measured count of DAG edge e of d.
 * Call before any edge is split.  Returns the number of terminators
 * weighted. */
uint32_t wpp_ir_measured_branch_weights(const struct wpp_ir_cfg *c, const struct wpp_dag *d,
					const uint64_t *count);

#endif
