// SPDX-License-Identifier: MIT
// ir_dual.cpp — the plain copies of dual builds (contract: ir_dual.h).
//
// Runs on the instrumented function, with the path register and the other
// slots of the pass still allocas, before the record helpers are inlined:
// so what the pass added is recognisable (calls of internal __wpp_*
// helpers, stores to allocas tagged !wpp.reg) and a clone of the function
// stripped of it is the function as it was, block for block.  The clone is
// made of the instrumented blocks (not of the function before the pass) so
// that every path start of the instrumented copy has a block of its own
// twin in the plain one to switch from.
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Constants.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "llvm/Transforms/Utils/SSAUpdater.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include "instrument/ir_dual.h"
#include "wpp/trace_abi.h"

using namespace llvm;

namespace {

// Branch weights of a flag test: no collector is the case to lay out for,
// but a recorded run runs the instrumented side, which the register
// allocator serves worse the colder it looks.  At 1 in 2^30 the guided
// builds cost least unrecorded (bzip2 1.031x plain in instructions) and
// most recorded (lua 1.543x, against 1.266x for the build without plain
// copies); at 1 in 2^11, 1.059x and 1.439x; at 1 to 1 the plain copy's
// loops spill (bzip2 dual 1.075x).  2^11 keeps every program far below
// PGO's cost unrecorded and takes 5-8 % off a recording
// (docs/benchmarks.md, "Dual builds by default with a profile").
// WPP_DUAL_OFF_LOG2=N (0-30) gives the A/B builds.
constexpr unsigned OFF_LOG2 = 11;

struct Point {
	BasicBlock *at; // instrumented block that begins with a restart store
	bool back;	// a back edge leads to it
	bool forced;	// a computed goto's target: always tested (make_dual)
};

bool is_pass_slot(const Value *p)
{
	const auto *a = dyn_cast<AllocaInst>(p);
	return a && a->getMetadata("wpp.reg");
}

// What the pass put into the function: record helper calls and stores to
// its slots.  Everything else (calls of __wpp_flush_all too) is the program.
bool is_pass_code(const Instruction &I)
{
	if (const auto *s = dyn_cast<StoreInst>(&I))
		return is_pass_slot(s->getPointerOperand());
	const auto *c = dyn_cast<CallInst>(&I);
	const Function *f = c ? c->getCalledFunction() : nullptr;
	return f && f->hasInternalLinkage() && f->getName().starts_with("__wpp_");
}

// Removes the pass's code from the plain blocks, and what only fed it (the
// loads of the register, the cursor and the fid words).
void strip(ArrayRef<BasicBlock *> plain)
{
	SmallVector<Instruction *, 64> pass;
	for (BasicBlock *bb : plain)
		for (Instruction &I : *bb)
			if (is_pass_code(I))
				pass.push_back(&I);
	SmallVector<WeakTrackingVH, 64> fed;
	for (Instruction *I : pass) {
		for (Value *op : I->operands())
			if (isa<Instruction>(op))
				fed.push_back(op);
		I->eraseFromParent();
	}
	for (WeakTrackingVH &v : fed)
		if (v)
			RecursivelyDeleteTriviallyDeadInstructions(v);
}

using Edge = std::pair<const BasicBlock *, const BasicBlock *>;

// An A/B switch in the compiler's environment (docs/benchmarks.md's
// builds): on when set to anything but "" or "0".
bool env_switch(const char *name)
{
	const char *v = getenv(name);
	return v && *v && strcmp(v, "0");
}

// The members of cycles among nodes (SCCs with two nodes or a self loop),
// leaving out `cut` and the edges in `skip` (Tarjan).
struct Cycles {
	DenseMap<BasicBlock *, unsigned> index, low, comp; // comp: its SCC's number
	DenseSet<BasicBlock *> on_stack, in_cycle;
	SmallVector<BasicBlock *, 64> stack;
	const DenseSet<BasicBlock *> &nodes, &cut;
	const DenseSet<Edge> &skip;
	unsigned next = 0;

	Cycles(const DenseSet<BasicBlock *> &n, const DenseSet<BasicBlock *> &c,
	       const DenseSet<Edge> &s)
	    : nodes(n), cut(c), skip(s)
	{
		for (BasicBlock *bb : nodes)
			if (!cut.count(bb) && !index.count(bb))
				visit(bb);
	}
	bool counts(BasicBlock *bb) const { return nodes.count(bb) && !cut.count(bb); }
	void visit(BasicBlock *v)
	{
		index[v] = low[v] = next++;
		stack.push_back(v);
		on_stack.insert(v);
		bool self = false;
		for (BasicBlock *w : successors(v)) {
			if (!counts(w) || skip.count({v, w}))
				continue;
			self |= w == v;
			if (!index.count(w)) {
				visit(w);
				low[v] = std::min(low[v], low[w]);
			} else if (on_stack.count(w)) {
				low[v] = std::min(low[v], index[w]);
			}
		}
		if (low[v] != index[v])
			return;
		SmallVector<BasicBlock *, 8> scc;
		BasicBlock *w;
		do {
			w = stack.pop_back_val();
			on_stack.erase(w);
			scc.push_back(w);
		} while (w != v);
		if (scc.size() > 1 || self)
			in_cycle.insert(scc.begin(), scc.end());
		for (BasicBlock *m : scc)
			comp[m] = index[v];
	}
};

// Whether an instruction of a loop's body could keep it from ending, or
// make its running time matter to a collector: a call (other than an
// intrinsic that returns, which never records), a volatile or atomic access.
bool may_not_progress(const Instruction &I)
{
	if (const auto *c = dyn_cast<CallBase>(&I)) {
		const Function *f = c->getCalledFunction();
		if (!f || !f->isIntrinsic() || !c->willReturn())
			return true;
		const auto *m = dyn_cast<MemIntrinsic>(c);
		return m && m->isVolatile();
	}
	return I.isVolatile() || I.isAtomic();
}

// Whether loop L (and every loop in it) must end, calling nothing and
// touching nothing volatile or atomic: such a loop needs no flag test of
// its own, a frame in it switches at the first test after it (the
// enclosing loop's, or the next path start on a loop), a bounded time
// later.  It ends when its trip count has a bound (scalar evolution: a
// counted loop, `while (lo <= hi) lo++`) or by C's forward-progress rule
// (C11 6.8.5p6, LLVM's mustprogress: clang tags every loop whose condition
// is not a constant; such a loop that calls nothing and touches nothing
// volatile or atomic may be assumed to terminate).
struct Progress {
	const LoopInfo &li;
	ScalarEvolution &se;
	bool fn_tagged; // the function is mustprogress: every loop is

	bool tagged(const Loop *L) const
	{
		if (fn_tagged)
			return true;
		for (const BasicBlock *bb : L->blocks()) {
			if (li.getLoopFor(bb) != L) // a subloop's tag is its own
				continue;
			MDNode *id = bb->getTerminator()->getMetadata(LLVMContext::MD_loop);
			if (id && findOptionMDForLoopID(id, "llvm.loop.mustprogress"))
				return true;
		}
		return false;
	}
	bool ends(const Loop *L) const
	{
		for (const BasicBlock *bb : L->blocks())
			for (const Instruction &I : *bb)
				if (may_not_progress(I))
					return false;
		if (!tagged(L) && isa<SCEVCouldNotCompute>(se.getSymbolicMaxBackedgeTakenCount(L)))
			return false;
		for (const Loop *sub : L->getSubLoops())
			if (!ends(sub))
				return false;
		return true;
	}
};

// The back edges of the plain copy's loops that end by themselves: the
// cycles through them need no test.  WPP_DUAL_ALL_LOOPS=1 in the
// compiler's environment tests them all, as before (for A/B builds).
DenseSet<Edge> self_ending_back_edges(Function &F, const DenseSet<BasicBlock *> &plain)
{
	DenseSet<Edge> skip;
	if (env_switch("WPP_DUAL_ALL_LOOPS"))
		return skip;
	DominatorTree dt(F);
	LoopInfo li(dt);
	TargetLibraryInfoImpl tlii(Triple(F.getParent()->getTargetTriple()));
	TargetLibraryInfo tli(tlii, &F);
	AssumptionCache ac(F);
	ScalarEvolution se(F, tli, ac, dt, li);
	Progress pr{li, se, F.mustProgress()};
	for (Loop *top : li)
		for (Loop *L : top->getLoopsInPreorder()) {
			if (!plain.count(L->getHeader()) || !pr.ends(L))
				continue;
			for (BasicBlock *p : predecessors(L->getHeader()))
				if (L->contains(p))
					skip.insert({p, L->getHeader()});
		}
	return skip;
}

// Where the plain copy tests the flag besides its entry: every cycle of it
// must pass a test, or a loop would never switch.  Every cycle passes a
// path start (a cut edge restarts the register), so the starts after back
// edges are taken first and then the others on the cycles these leave.
// The cycles of loops that end by themselves are left out (above).
DenseSet<BasicBlock *> choose_tests(Function &F, ArrayRef<Point> points, ValueToValueMapTy &vm,
				    ArrayRef<BasicBlock *> plain)
{
	DenseSet<BasicBlock *> nodes(plain.begin(), plain.end()), tests;
	DenseSet<Edge> skip = self_ending_back_edges(F, nodes);
	Cycles all(nodes, tests, skip);
	for (const Point &p : points)
		if (p.forced || (p.back && all.in_cycle.count(cast<BasicBlock>(vm[p.at]))))
			tests.insert(cast<BasicBlock>(vm[p.at]));
	// One more test per cycle-holding component at a time, until none is
	// left: a test in every restart of a loop that calls would cost a test
	// per call.
	for (;;) {
		Cycles left(nodes, tests, skip);
		if (left.in_cycle.empty())
			return tests;
		DenseSet<unsigned> picked; // components given a test this time
		bool added = false;
		for (const Point &p : points) {
			auto *b = cast<BasicBlock>(vm[p.at]);
			if (p.back || tests.count(b) || !left.in_cycle.count(b) ||
			    !picked.insert(left.comp[b]).second)
				continue;
			tests.insert(b);
			added = true;
		}
		if (!added)
			return tests; // a cycle without a path start: none to test
	}
}

Value *flag_set(IRBuilder<> &b, GlobalVariable *flag)
{
	// Volatile, so that no pass (LLVM's LICM, MachineLICM, an LTO link)
	// hoists it out of a loop: a collector may set it any time.  Not an
	// atomic load: x86's instruction selection folds no atomic load, even
	// a monotonic one, into its use (`movzbl; test; jne`), but does fold
	// a volatile one (`cmpb $0, __wpp_on(%rip); jne`), one instruction
	// less per test; a volatile byte read racing the runtime's atomic
	// store reads the old or the new byte (LLVM: the target's load).
	LoadInst *l = b.CreateLoad(b.getInt8Ty(), flag, true, "wpp.on");
	l->setAlignment(Align(1));
	return b.CreateICmpNE(l, b.getInt8(0));
}

uint32_t off_weight()
{
	static uint32_t w;
	if (!w) {
		const char *v = getenv("WPP_DUAL_OFF_LOG2");
		char *end;
		unsigned long n = v && *v ? strtoul(v, &end, 10) : OFF_LOG2;
		if (v && *v && (*end || n > 30))
			n = OFF_LOG2;
		w = 1u << n;
	}
	return w;
}

void branch_on_flag(IRBuilder<> &b, GlobalVariable *flag, BasicBlock *on, BasicBlock *off)
{
	b.CreateCondBr(flag_set(b, flag), on, off,
		       MDBuilder(b.getContext()).createBranchWeights(1, off_weight()));
}

// An instrumentation value recomputed where the plain copy enters (the
// fid word and what is derived from it: loads of the pass's private
// globals, arithmetic on them).  nullptr: not recomputable.
Value *recompute(Value *v, IRBuilder<> &b, DenseMap<Value *, Value *> &done)
{
	if (isa<Constant>(v) || isa<Argument>(v))
		return v;
	if (Value *d = done.lookup(v))
		return d;
	auto *I = dyn_cast<Instruction>(v);
	if (!I)
		return nullptr;
	if (auto *l = dyn_cast<LoadInst>(I)) {
		auto *g = dyn_cast<GlobalVariable>(l->getPointerOperand());
		if (!g || g->isThreadLocal() || !l->isSimple())
			return nullptr;
	} else if (!isa<BinaryOperator>(I) && !isa<CastInst>(I)) {
		return nullptr;
	}
	Instruction *c = I->clone();
	for (unsigned k = 0; k < c->getNumOperands(); k++) {
		Value *op = recompute(c->getOperand(k), b, done);
		if (!op) {
			c->deleteValue();
			return nullptr;
		}
		c->setOperand(k, op);
	}
	b.Insert(c);
	done[v] = c;
	return c;
}

// An address or cast computed from one value by constants (a field's
// address, a pointer cast): as cheap to compute again where it is used as
// to keep, and free when it folds into the using load or store.
bool rematerializable(const Instruction *I)
{
	if (const auto *g = dyn_cast<GetElementPtrInst>(I)) {
		if (!g->hasAllConstantIndices())
			return false;
	} else if (!isa<CastInst>(I)) {
		return false;
	}
	return !isa<Constant>(I->getOperand(0));
}

// Before the SSA repair: the uses of cheap derived values (above) that
// their definition no longer dominates get a copy of their own, computed
// from the base, so that only the base is merged between the copies.
// Otherwise every field address of the frame that either copy computed
// before a loop becomes a phi at each merge (every handler of a computed
// goto loop) and stays alive in a register or a spill slot across it:
// plain code folds such an address into each load instead.  Returns how
// many uses were given a copy; `unused` gets the definitions left without
// a use, to delete once the SSA repair no longer needs them to tell an
// original value with a twin from one the pass added.
unsigned rematerialize(ArrayRef<BasicBlock *> inst, ValueToValueMapTy &vm, const DominatorTree &dt,
		       SmallVectorImpl<WeakVH> &unused)
{
	SmallVector<WeakVH, 64> work; // one may go before its turn comes
	for (BasicBlock *bb : inst)
		for (Instruction &I : *bb) {
			if (!rematerializable(&I))
				continue;
			work.push_back(&I);
			if (auto *twin = cast_or_null<Instruction>(vm.lookup(&I)))
				work.push_back(twin);
		}
	unsigned n = 0;
	while (!work.empty()) {
		auto *d = cast_or_null<Instruction>(work.pop_back_val());
		if (!d)
			continue;
		SmallVector<Use *, 8> far;
		for (Use &u : d->uses())
			if (!dt.dominates(d, u))
				far.push_back(&u);
		DenseMap<BasicBlock *, Instruction *> copy; // one per block
		for (Use *u : far) {
			auto *user = cast<Instruction>(u->getUser());
			BasicBlock *at = user->getParent();
			if (auto *phi = dyn_cast<PHINode>(user))
				at = phi->getIncomingBlock(*u);
			Instruction *&c = copy[at];
			if (c) {
				u->set(c);
				continue;
			}
			c = d->clone();
			c->insertBefore(at->getFirstInsertionPt());
			c->setName(d->getName());
			u->set(c);
			n++;
			// A chain of them (the address of a field of a field):
			// the copy's own operand may need one too.
			auto *op = dyn_cast<Instruction>(c->getOperand(0));
			if (op && rematerializable(op) && !dt.dominates(op, c->getOperandUse(0)))
				work.push_back(op);
		}
		if (d->use_empty())
			unused.push_back(d);
	}
	return n;
}

// Values whose definition no longer dominates their uses, now that the
// transfers enter the instrumented copy part-way (and computed gotos of
// the instrumented copy land in the plain one): each original value and
// its plain twin are one variable; a value the pass added (no twin) is
// recomputed in the transfer blocks.  Returns how many could be neither
// (0 unless the pass changed shape).
unsigned repair_ssa(ArrayRef<BasicBlock *> inst, ValueToValueMapTy &vm, const DominatorTree &dt,
		    ArrayRef<BasicBlock *> transfers)
{
	// Listed and recomputed before any rewriting: the updater's own phis
	// are not values to repair, and a recomputation copies the original
	// operands, not phis put in their place.
	struct Item {
		Instruction *def, *twin;
		SmallVector<Value *, 4> at; // per transfer, when no twin
		SmallVector<Use *, 8> uses;
	};
	// Only the uses the definition no longer dominates: the updater would
	// hand the others the definition back, and a value the pass added
	// would be recomputed for nothing (or not at all: a copy of a
	// derived value that rematerialize left at the end of a phi's block).
	auto add_uses = [&dt](Instruction *d, SmallVectorImpl<Use *> &out) {
		for (Use &u : d->uses())
			if (!dt.dominates(d, u))
				out.push_back(&u);
	};
	SmallVector<Item, 64> items;
	for (BasicBlock *bb : inst)
		for (Instruction &I : *bb) {
			Item it{&I, cast_or_null<Instruction>(vm.lookup(&I)), {}, {}};
			add_uses(&I, it.uses);
			if (it.twin)
				add_uses(it.twin, it.uses);
			if (!it.uses.empty())
				items.push_back(std::move(it));
		}
	unsigned lost = 0;
	SmallVector<DenseMap<Value *, Value *>, 8> done(transfers.size());
	for (Item &it : items) {
		if (it.twin)
			continue;
		for (size_t k = 0; k < transfers.size(); k++) {
			IRBuilder<> b(transfers[k]->getTerminator());
			Value *v = recompute(it.def, b, done[k]);
			if (!v) {
				if (getenv("WPP_DUAL_DEBUG"))
					errs() << "wppcc: dual: " << *it.def << "\n";
				lost++;
				v = PoisonValue::get(it.def->getType());
			}
			it.at.push_back(v);
		}
	}
	for (Item &it : items) {
		SSAUpdater ssa;
		ssa.Initialize(it.def->getType(), it.def->getName());
		ssa.AddAvailableValue(it.def->getParent(), it.def);
		if (it.twin)
			ssa.AddAvailableValue(it.twin->getParent(), it.twin);
		else
			for (size_t k = 0; k < transfers.size(); k++)
				ssa.AddAvailableValue(transfers[k], it.at[k]);
		for (Use *u : it.uses)
			ssa.RewriteUse(*u);
	}
	return lost;
}

// Computed gotos: a block address names one block, so both copies' indirect
// branches go to the plain target, whose test (forced) takes the
// instrumented copy there when the flag is set.  The plain target's phis
// take over the incoming values of the instrumented indirect branches.
void share_goto_targets(ArrayRef<BasicBlock *> targets, ValueToValueMapTy &vm)
{
	for (BasicBlock *t : targets) {
		auto *tp = cast<BasicBlock>(vm[t]);
		if (BlockAddress *ba = BlockAddress::lookup(t))
			ba->replaceAllUsesWith(BlockAddress::get(tp));
		SmallVector<BasicBlock *, 8> from;
		for (BasicBlock *u : predecessors(t))
			if (isa<IndirectBrInst>(u->getTerminator()))
				from.push_back(u);
		for (PHINode &phi : t->phis()) {
			auto *twin = cast<PHINode>(vm[&phi]);
			for (int j = (int)phi.getNumIncomingValues() - 1; j >= 0; j--) {
				BasicBlock *u = phi.getIncomingBlock(j);
				if (!isa<IndirectBrInst>(u->getTerminator()))
					continue;
				twin->addIncoming(phi.getIncomingValue(j), u);
				phi.removeIncomingValue(j, false);
			}
		}
		for (BasicBlock *u : from) {
			auto *ib = cast<IndirectBrInst>(u->getTerminator());
			for (unsigned k = 0; k < ib->getNumSuccessors(); k++)
				if (ib->getSuccessor(k) == t)
					ib->setSuccessor(k, tp);
		}
	}
}

// Whether the instrumented copy can be a function of its own that the
// entry's test tail-calls with the same arguments (see split_entry): no
// varargs to forward, no argument passed in the caller's frame.
bool can_split(const Function &F)
{
	if (F.isVarArg() || F.hasFnAttribute(Attribute::ReturnsTwice) ||
	    F.hasFnAttribute(Attribute::Naked))
		return false;
	for (const Argument &a : F.args())
		if (a.hasPassPointeeByValueCopyAttr() || a.hasPreallocatedAttr() ||
		    a.hasSwiftErrorAttr() || a.hasAttribute(Attribute::SwiftSelf) ||
		    a.hasAttribute(Attribute::SwiftAsync))
			return false;
	return true;
}

// A dual function whose plain copy tests the flag only at its entry: the
// instrumented copy moves to a private function of its own (`F.wpp`,
// entered only from the entry's test, by a tail call with the same
// arguments), and F keeps the test and the plain copy.  In one function
// the two copies share a prologue: it saves every callee-saved register
// either copy uses, before the test (bzip2's `mainGtU`: five pushes and
// pops on every call, where plain code saves one register in its rare
// loop only).  Apart, the plain copy's prologue is plain's, shrink-wrapped
// as plain's is.
void split_entry(Function &F, BasicBlock *dispatch)
{
	LLVMContext &ctx = F.getContext();
	ValueToValueMapTy vm;
	Function *fi = CloneFunction(&F, vm);
	fi->setName(F.getName() + ".wpp");
	fi->setLinkage(GlobalValue::InternalLinkage);
	fi->setVisibility(GlobalValue::DefaultVisibility);
	fi->setComdat(nullptr);
	fi->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
	// Its entry goes straight into the instrumented copy (the flag's load
	// is volatile: no dead code, it goes by hand).
	auto *test = cast<BranchInst>(cast<BasicBlock>(vm[dispatch])->getTerminator());
	auto *cond = cast<Instruction>(test->getCondition());
	auto *load = cast<LoadInst>(cond->getOperand(0));
	BranchInst::Create(test->getSuccessor(0), test);
	test->eraseFromParent();
	cond->eraseFromParent();
	load->eraseFromParent();
	removeUnreachableBlocks(*fi);
	// F's test tail-calls it.
	BasicBlock *traced = BasicBlock::Create(ctx, "wpp.traced", &F);
	SmallVector<Value *, 8> args;
	for (Argument &a : F.args())
		args.push_back(&a);
	CallInst *c = CallInst::Create(fi, args, "", traced);
	c->setTailCallKind(CallInst::TCK_MustTail);
	c->setCallingConv(F.getCallingConv());
	c->setAttributes(F.getAttributes().removeFnAttributes(ctx));
	if (DISubprogram *sp = F.getSubprogram())
		c->setDebugLoc(DILocation::get(ctx, sp->getScopeLine(), 0, sp));
	ReturnInst::Create(ctx, F.getReturnType()->isVoidTy() ? nullptr : c, traced);
	cast<BranchInst>(dispatch->getTerminator())->setSuccessor(0, traced);
	removeUnreachableBlocks(F);
}

bool make_dual(Function &F, GlobalVariable *flag)
{
	// Left single: asm goto, whose outputs on its indirect edges did not
	// survive the SSA repair (-O0, seen on tests/corpus/inline_asm.c).
	for (BasicBlock &bb : F)
		if (isa<CallBrInst>(bb.getTerminator()))
			return false;
	LLVMContext &ctx = F.getContext();
	Module &M = *F.getParent();
	BasicBlock *entry = &F.getEntryBlock();
	AllocaInst *cursor = nullptr;
	SmallVector<AllocaInst *, 2> zero;
	SmallVector<std::pair<Instruction *, bool>, 16> starts;
	for (BasicBlock &bb : F)
		for (Instruction &I : bb) {
			if (MDNode *n = I.getMetadata(WPP_DUAL_MD_START))
				starts.push_back(
				    {&I, !mdconst::extract<ConstantInt>(n->getOperand(0))->isZero()});
			auto *a = dyn_cast<AllocaInst>(&I);
			if (a && a->getMetadata(WPP_DUAL_MD_CUR))
				cursor = a;
			if (a && a->getMetadata(WPP_DUAL_MD_ZERO))
				zero.push_back(a);
		}
	GlobalVariable *tls = M.getNamedGlobal(WPP_SYM_CURSOR);
	if (!cursor || !tls)
		return false;
	// A computed goto's target restarts the register at its start (all its
	// in-edges are cuts): that is where the copies meet.  Without one,
	// leave the function single.
	SmallVector<BasicBlock *, 16> goto_targets;
	DenseSet<BasicBlock *> restarting;
	for (auto [st, back] : starts)
		restarting.insert(st->getParent());
	for (BasicBlock &bb : F)
		if (bb.hasAddressTaken()) {
			if (!restarting.count(&bb) || &bb == entry)
				return false;
			goto_targets.push_back(&bb);
		}

	// Each path start begins a block: the place to enter at.
	SmallVector<Point, 16> points;
	for (auto [st, back] : starts) {
		BasicBlock *bb = st->getParent();
		if (bb == entry)
			continue; // the entry's own test covers it
		bool forced = bb->hasAddressTaken();
		BasicBlock *at = st == &bb->front() ? bb : bb->splitBasicBlock(st, "wpp.start");
		points.push_back({at, back, forced});
	}

	// The new entry: both copies share the entry block's static allocas.
	BasicBlock *dispatch = BasicBlock::Create(ctx, "wpp.dual", &F, entry);
	for (auto it = entry->begin(); it != entry->end();) {
		Instruction &I = *it++;
		auto *a = dyn_cast<AllocaInst>(&I);
		if (a && isa<ConstantInt>(a->getArraySize())) // static: entry allocas
			I.moveBefore(*dispatch, dispatch->end());
	}
	SmallVector<BasicBlock *, 64> inst, plain;
	for (BasicBlock &bb : F)
		if (&bb != dispatch)
			inst.push_back(&bb);
	ValueToValueMapTy vm;
	for (BasicBlock *bb : inst) {
		BasicBlock *c = CloneBasicBlock(bb, vm, ".p", &F);
		vm[bb] = c;
		plain.push_back(c);
	}
	for (BasicBlock *c : plain)
		for (Instruction &I : *c) {
			RemapInstruction(&I, vm, RF_NoModuleLevelChanges | RF_IgnoreMissingLocals);
			RemapDbgRecordRange(&M, I.getDbgRecordRange(), vm,
					    RF_NoModuleLevelChanges | RF_IgnoreMissingLocals);
		}
	strip(plain);
	share_goto_targets(goto_targets, vm);
	IRBuilder<> b(dispatch);
	branch_on_flag(b, flag, entry, cast<BasicBlock>(vm[entry]));

	DenseSet<BasicBlock *> tests = choose_tests(F, points, vm, plain);
	SmallVector<BasicBlock *, 16> transfers;
	for (const Point &p : points) {
		auto *test = cast<BasicBlock>(vm[p.at]);
		if (!tests.count(test))
			continue;
		BasicBlock *rest = test->splitBasicBlock(test->begin(), test->getName() + ".off");
		test->getTerminator()->eraseFromParent();
		BasicBlock *enter = BasicBlock::Create(ctx, "wpp.enter", &F);
		b.SetInsertPoint(test);
		branch_on_flag(b, flag, enter, rest);
		// The instrumented copy's invariants at a path start: the cursor
		// slot holds the thread's cursor, no run is pending.
		b.SetInsertPoint(enter);
		b.CreateStore(b.CreateLoad(b.getPtrTy(), tls, "wpp.cur"), cursor);
		for (AllocaInst *z : zero)
			b.CreateStore(b.getInt64(0), z);
		b.CreateBr(p.at);
		transfers.push_back(enter);
	}
	if (transfers.empty()) {
		if (goto_targets.empty() && can_split(F) && !env_switch("WPP_DUAL_ONE_FUNCTION"))
			split_entry(F, dispatch);
		return true;
	}
	// The CFG is final: both repairs below add instructions only.
	DominatorTree dt(F);
	SmallVector<WeakVH, 64> unused;
	rematerialize(inst, vm, dt, unused);
	if (repair_ssa(inst, vm, dt, transfers))
		errs() << "wppcc: dual copy of " << F.getName()
		       << ": a value could not be carried over\n";
	for (WeakVH &v : unused)
		if (auto *I = cast_or_null<Instruction>(v); I && I->use_empty())
			I->eraseFromParent();
	return true;
}

} // namespace

extern "C" unsigned wpp_dual_module(LLVMModuleRef m)
{
	Module &M = *unwrap(m);
	LLVMContext &ctx = M.getContext();
	Type *i8 = Type::getInt8Ty(ctx);
	GlobalVariable *flag = nullptr;
	unsigned n = 0;
	SmallVector<Function *, 64> fns;
	for (Function &F : M)
		if (F.getMetadata(WPP_DUAL_MD_FN))
			fns.push_back(&F);
	for (Function *F : fns) {
		F->setMetadata(WPP_DUAL_MD_FN, nullptr);
		if (!flag)
			flag = new GlobalVariable(M, i8, false, GlobalValue::PrivateLinkage,
						  ConstantInt::get(i8, 0), WPP_DUAL_FLAG);
		n += make_dual(*F, flag);
	}
	if (!n)
		return 0;
	// The runtime learns the flag from a constructor of its own.
	FunctionType *regty = FunctionType::get(Type::getVoidTy(ctx), {PointerType::get(ctx, 0)}, false);
	FunctionCallee reg = M.getOrInsertFunction(WPP_DUAL_REGISTER, regty);
	Function *ctor =
	    Function::Create(FunctionType::get(Type::getVoidTy(ctx), false),
			     GlobalValue::InternalLinkage, "__wpp_dual_ctor", M);
	IRBuilder<> b(BasicBlock::Create(ctx, "entry", ctor));
	b.CreateCall(reg, {flag});
	b.CreateRetVoid();
	appendToGlobalCtors(M, ctor, 0);
	return n;
}
