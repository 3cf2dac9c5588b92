// SPDX-License-Identifier: MIT
// plugin_shim.cpp — registers the C pass (wpp_pass.h) with clang's new pass
// manager at OptimizerLast (runs at -O0 too), then: builds dual builds'
// plain copies (ir_dual.h), inlines the record
// helpers, promotes the path-register alloca to SSA (only ours, so -O0 code
// keeps its user variables in memory), and at -O1+ cleans up.
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Transforms/IPO/AlwaysInliner.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"

#include "instrument/ir_dual.h"
#include "instrument/wpp_pass.h"

using namespace llvm;

namespace {
struct WppInstrument : PassInfoMixin<WppInstrument> {
	PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
		wpp_instrument_module(wrap(&M));
		return PreservedAnalyses::none();
	}
	static bool isRequired() { return true; }
};

// Dual builds' plain copies (ir_dual.h): while the pass's slots are still
// allocas and its records still calls.
struct WppDual : PassInfoMixin<WppDual> {
	PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
		return wpp_dual_module(wrap(&M)) ? PreservedAnalyses::none()
						 : PreservedAnalyses::all();
	}
	static bool isRequired() { return true; }
};

// Promotes allocas tagged !wpp.reg; required so it also runs on optnone.
struct WppPromoteRegister : PassInfoMixin<WppPromoteRegister> {
	PreservedAnalyses run(Function &F, FunctionAnalysisManager &FAM) {
		if (F.isDeclaration())
			return PreservedAnalyses::all();
		SmallVector<AllocaInst *, 2> regs;
		for (Instruction &I : F.getEntryBlock())
			if (auto *A = dyn_cast<AllocaInst>(&I))
				if (A->getMetadata("wpp.reg") && isAllocaPromotable(A))
					regs.push_back(A);
		if (regs.empty())
			return PreservedAnalyses::all();
		PromoteMemToReg(regs, FAM.getResult<DominatorTreeAnalysis>(F));
		PreservedAnalyses PA;
		PA.preserveSet<CFGAnalyses>();
		return PA;
	}
	static bool isRequired() { return true; }
};
} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
	return {LLVM_PLUGIN_API_VERSION, "wpptrace", "0.1", [](PassBuilder &PB) {
			PB.registerOptimizerLastEPCallback([](ModulePassManager &MPM, OptimizationLevel L) {
				MPM.addPass(WppInstrument());
				MPM.addPass(WppDual());
				MPM.addPass(AlwaysInlinerPass(/*InsertLifetimeIntrinsics=*/false));
				MPM.addPass(createModuleToFunctionPassAdaptor(WppPromoteRegister()));
				if (L != OptimizationLevel::O0) {
					FunctionPassManager FPM;
					FPM.addPass(InstCombinePass());
					FPM.addPass(SimplifyCFGPass());
					MPM.addPass(createModuleToFunctionPassAdaptor(std::move(FPM)));
				}
			});
		}};
}
