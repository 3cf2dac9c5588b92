/* SPDX-License-Identifier: MIT */
/* ir_counts.c — counting mode's runtime interface (see ir_counts.h). */
#include "instrument/ir_counts.h"

#include <stdlib.h>
#include <string.h>

#include "wpp/trace_abi.h"

/* The allocation happens once per thread and TU. */
#define COLD_WEIGHT 1
#define HOT_WEIGHT  1000000

static void add_fn_attr(LLVMContextRef ctx, LLVMValueRef f, const char *attr)
{
	unsigned kind = LLVMGetEnumAttributeKindForName(attr, strlen(attr));
	LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
				LLVMCreateEnumAttribute(ctx, kind, 0));
}

static LLVMValueRef get_or_add_fn(LLVMModuleRef m, const char *name, LLVMTypeRef ty)
{
	LLVMValueRef f = LLVMGetNamedFunction(m, name);
	return f ? f : LLVMAddFunction(m, name, ty);
}

/* __wpp_count_base(): `b = tls; if (!b) b = __wpp_count_alloc(&desc, &tls);`
 * as an always_inline helper, so the branch and the cold call land in the
 * caller when the plugin inlines it (the pass itself never splits blocks
 * at function entry). */
static LLVMValueRef build_base_helper(struct wpp_counts *k)
{
	struct wpp_probes *p = k->p;
	LLVMValueRef f = wpp_probes_inline_helper(p, "__wpp_count_base", k->base_fn);
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(p->ctx, f, "entry");
	LLVMBasicBlockRef cold = LLVMAppendBasicBlockInContext(p->ctx, f, "alloc");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(p->ctx, f, "done");
	LLVMBuilderRef b = LLVMCreateBuilderInContext(p->ctx);
	LLVMPositionBuilderAtEnd(b, entry);
	LLVMValueRef base = LLVMBuildLoad2(b, p->ptr, k->tls, "base");
	LLVMValueRef none = LLVMBuildIsNull(b, base, "none");
	wpp_probes_branch_weights(p, LLVMBuildCondBr(b, none, cold, done), COLD_WEIGHT, HOT_WEIGHT);
	LLVMPositionBuilderAtEnd(b, cold);
	LLVMValueRef args[2] = {k->desc, k->tls};
	LLVMBuildRet(b, LLVMBuildCall2(b, k->alloc_fn, k->alloc, args, 2, "fresh"));
	LLVMPositionBuilderAtEnd(b, done);
	LLVMBuildRet(b, base);
	LLVMDisposeBuilder(b);
	return f;
}

/* __wpp_count_hash has the preserve_most convention: its call must not go
 * through a lazily bound PLT entry, whose resolver clobbers registers the
 * caller counts on (r10: xz's decoder computed garbage after the first
 * call).  As for __wpp_flush (ir_probes.c), each linked module gets one
 * hidden stub, called directly, that jumps through the GOT entry bound at
 * load time. */
static LLVMValueRef build_hash_stub(struct wpp_counts *k)
{
	struct wpp_probes *p = k->p;
	/* declared, so the GOT entry the stub jumps through exists */
	LLVMValueRef target = get_or_add_fn(p->mod, WPP_SYM_COUNT_HASH, k->hash_fn);
	LLVMSetFunctionCallConv(target, LLVMPreserveMostCallConv);
	/* not cold: every path end of a hashed function that misses the
	 * inline probe calls it */
	return wpp_probes_got_stub(p, "__wpp_count_hash_stub", WPP_SYM_COUNT_HASH, k->hash_fn, 0);
}

static LLVMValueRef at_offset(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef ptr,
			      uint64_t off)
{
	LLVMValueRef o = LLVMConstInt(p->i64, off, 0);
	return LLVMBuildInBoundsGEP2(b, LLVMInt8TypeInContext(p->ctx), ptr, &o, 1, "");
}

/* __wpp_count_probe(fidw, id): the inline probe of trace_abi.h ("Counting
 * mode"): a hit at the home slot is a handful of instructions and no call;
 * everything else calls the hash (through its stub).  busy is set around
 * the add, as the runtime's own fast path does, so a signal handler that
 * counts meanwhile leaves the table alone. */
static LLVMValueRef build_probe_helper(struct wpp_counts *k)
{
	struct wpp_probes *p = k->p;
	LLVMValueRef f = wpp_probes_inline_helper(p, "__wpp_count_probe", k->hash_fn);
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(p->ctx, f, "entry");
	LLVMBasicBlockRef open = LLVMAppendBasicBlockInContext(p->ctx, f, "open");
	LLVMBasicBlockRef probe = LLVMAppendBasicBlockInContext(p->ctx, f, "probe");
	LLVMBasicBlockRef bump = LLVMAppendBasicBlockInContext(p->ctx, f, "bump");
	LLVMBasicBlockRef miss = LLVMAppendBasicBlockInContext(p->ctx, f, "miss");
	LLVMBasicBlockRef slow = LLVMAppendBasicBlockInContext(p->ctx, f, "slow");
	LLVMBuilderRef b = LLVMCreateBuilderInContext(p->ctx);
	LLVMValueRef fidw = LLVMGetParam(f, 0), id = LLVMGetParam(f, 1);
	LLVMValueRef zero = LLVMConstInt(p->i64, 0, 0);

	LLVMPositionBuilderAtEnd(b, entry);
	LLVMValueRef t = LLVMBuildLoad2(b, p->ptr, k->self, "t");
	LLVMBuildCondBr(b, LLVMBuildIsNull(b, t, ""), slow, open);

	LLVMPositionBuilderAtEnd(b, open);
	LLVMValueRef busyp = at_offset(p, b, t, WPP_COUNT_BUSY_OFFSET);
	LLVMValueRef busy = LLVMBuildLoad2(b, p->i32, busyp, "busy");
	LLVMSetVolatile(busy, 1);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, busy, LLVMConstInt(p->i32, 0, 0), ""), probe,
			slow);

	/* busy first, then the table's capacity and address, all volatile so
	 * they stay in this order: a handler that ran before busy was set may
	 * have grown the table, and both are read after it */
	LLVMPositionBuilderAtEnd(b, probe);
	LLVMSetVolatile(LLVMBuildStore(b, LLVMConstInt(p->i32, 1, 0), busyp), 1);
	LLVMValueRef cap =
	    LLVMBuildLoad2(b, p->i64, at_offset(p, b, t, WPP_COUNT_HASH_CAP_OFFSET), "cap");
	LLVMSetVolatile(cap, 1);
	LLVMValueRef e = LLVMBuildLoad2(b, p->ptr, at_offset(p, b, t, WPP_COUNT_HASH_OFFSET), "e");
	LLVMSetVolatile(e, 1);
	LLVMBasicBlockRef look = LLVMAppendBasicBlockInContext(p->ctx, f, "look");
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, cap, zero, ""), miss, look);

	LLVMPositionBuilderAtEnd(b, look);
	LLVMValueRef h = LLVMBuildMul(b, LLVMBuildXor(b, id, fidw, ""),
				      LLVMConstInt(p->i64, WPP_COUNT_HASH_MUL, 0), "");
	h = LLVMBuildXor(b, h, LLVMBuildLShr(b, h, LLVMConstInt(p->i64, 29, 0), ""), "");
	LLVMValueRef slot =
	    LLVMBuildAnd(b, h, LLVMBuildSub(b, cap, LLVMConstInt(p->i64, 1, 0), ""), "slot");
	LLVMValueRef off = LLVMBuildMul(b, slot, LLVMConstInt(p->i64, 24, 0), "");
	LLVMValueRef ent =
	    LLVMBuildInBoundsGEP2(b, LLVMInt8TypeInContext(p->ctx), e, &off, 1, "ent");
	LLVMValueRef kf = LLVMBuildLoad2(b, p->i64, ent, "");
	LLVMValueRef ki = LLVMBuildLoad2(b, p->i64, at_offset(p, b, ent, 8), "");
	LLVMValueRef hit = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, kf, fidw, ""),
					LLVMBuildICmp(b, LLVMIntEQ, ki, id, ""), "hit");
	LLVMBuildCondBr(b, hit, bump, miss);

	LLVMPositionBuilderAtEnd(b, bump);
	LLVMValueRef cp = at_offset(p, b, ent, 16);
	LLVMValueRef c = LLVMBuildLoad2(b, p->i64, cp, "");
	LLVMBuildStore(b, LLVMBuildAdd(b, c, LLVMConstInt(p->i64, 1, 0), ""), cp);
	LLVMSetVolatile(LLVMBuildStore(b, LLVMConstInt(p->i32, 0, 0), busyp), 1);
	LLVMBuildRetVoid(b);

	LLVMPositionBuilderAtEnd(b, miss);
	LLVMSetVolatile(LLVMBuildStore(b, LLVMConstInt(p->i32, 0, 0), busyp), 1);
	LLVMBuildBr(b, slow);

	LLVMPositionBuilderAtEnd(b, slow);
	LLVMValueRef args[2] = {fidw, id};
	LLVMValueRef call = LLVMBuildCall2(b, k->hash_fn, k->hash, args, 2, "");
	LLVMSetInstructionCallConv(call, LLVMPreserveMostCallConv);
	LLVMBuildRetVoid(b);
	LLVMDisposeBuilder(b);
	return f;
}

/* __wpp_ppp_count(base, first, table, interval, fid_slot, ppp, bl, keys,
 * log2): the path end of trace_abi.h's "Preferential path counting".
 * Both tests are expected to pass (an interesting path); the residual way
 * is a cached function's path end (key bl + 1) into the function's path
 * cache at slot keys, of 2^log2 pairs, or, with none (log2 0), the
 * hashed function's probe.  log2 is a constant: one way is folded away. */
static LLVMValueRef build_ppp_helper(struct wpp_counts *k)
{
	struct wpp_probes *p = k->p;
	LLVMTypeRef params[9] = {p->ptr, p->i64, p->ptr, p->i64, p->ptr,
				 p->i64, p->i64, p->i64, p->i64};
	k->ppp_fn = LLVMFunctionType(p->voidty, params, 9, 0);
	LLVMValueRef f = wpp_probes_inline_helper(p, "__wpp_ppp_count", k->ppp_fn);
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(p->ctx, f, "entry");
	LLVMBasicBlockRef check = LLVMAppendBasicBlockInContext(p->ctx, f, "check");
	LLVMBasicBlockRef bump = LLVMAppendBasicBlockInContext(p->ctx, f, "bump");
	LLVMBasicBlockRef resid = LLVMAppendBasicBlockInContext(p->ctx, f, "residual");
	LLVMBuilderRef b = LLVMCreateBuilderInContext(p->ctx);
	LLVMValueRef base = LLVMGetParam(f, 0), first = LLVMGetParam(f, 1);
	LLVMValueRef table = LLVMGetParam(f, 2), interval = LLVMGetParam(f, 3);
	LLVMValueRef fid_slot = LLVMGetParam(f, 4), ppp = LLVMGetParam(f, 5);
	LLVMValueRef bl = LLVMGetParam(f, 6), keys = LLVMGetParam(f, 7);
	LLVMValueRef log2 = LLVMGetParam(f, 8);
	LLVMBasicBlockRef cache = LLVMAppendBasicBlockInContext(p->ctx, f, "cache");
	LLVMBasicBlockRef probe = LLVMAppendBasicBlockInContext(p->ctx, f, "probe");

	LLVMPositionBuilderAtEnd(b, entry);
	LLVMValueRef in = LLVMBuildICmp(b, LLVMIntULT, ppp, interval, "in");
	wpp_probes_branch_weights(p, LLVMBuildCondBr(b, in, check, resid), HOT_WEIGHT, COLD_WEIGHT);

	LLVMPositionBuilderAtEnd(b, check);
	LLVMValueRef at = LLVMBuildInBoundsGEP2(b, p->i64, table, &ppp, 1, "");
	LLVMValueRef want = LLVMBuildLoad2(b, p->i64, at, "want");
	LLVMValueRef same = LLVMBuildICmp(b, LLVMIntEQ, want, bl, "same");
	wpp_probes_branch_weights(p, LLVMBuildCondBr(b, same, bump, resid), HOT_WEIGHT,
				  COLD_WEIGHT);

	LLVMPositionBuilderAtEnd(b, bump);
	wpp_emit_count_array(k, b, base, 0, LLVMBuildAdd(b, ppp, first, ""));
	LLVMBuildRetVoid(b);

	LLVMPositionBuilderAtEnd(b, resid);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, log2, LLVMConstInt(p->i64, 0, 0), ""), probe,
			cache);

	LLVMPositionBuilderAtEnd(b, cache);
	LLVMValueRef key = LLVMBuildAdd(b, bl, LLVMConstInt(p->i64, 1, 0), "key");
	LLVMValueRef cargs[5] = {base, keys, fid_slot, key, log2};
	LLVMBuildCall2(b, k->cache_fn, k->cache_helper, cargs, 5, "");
	LLVMBuildRetVoid(b);

	LLVMPositionBuilderAtEnd(b, probe);
	LLVMValueRef fidw = LLVMBuildLoad2(b, p->i64, fid_slot, "fidw");
	LLVMValueRef args[2] = {fidw, bl};
	LLVMBuildCall2(b, k->hash_fn, k->probe_helper, args, 2, "");
	LLVMBuildRetVoid(b);
	LLVMDisposeBuilder(b);
	return f;
}

/* __wpp_count_cached(base, keys, fid_slot, key, log2): the path end of
 * trace_abi.h's "A hashed function's path cache", key being id + 1 (a
 * cached function's register starts one above the path id), the cache
 * 2^log2 pairs: the pair the key's multiplicative hash names, its key
 * compared and its count (2^log2 slots on) counted on a hit; anything
 * else goes to the runtime, which claims the pair or counts in the hash.
 * log2 is a constant at every call: folded once inlined. */
static LLVMValueRef build_cache_helper(struct wpp_counts *k)
{
	struct wpp_probes *p = k->p;
	LLVMTypeRef mparams[5] = {p->i64, p->i64, p->ptr, p->i64, p->i64};
	k->miss_fn = LLVMFunctionType(p->voidty, mparams, 5, 0);
	LLVMValueRef target = get_or_add_fn(p->mod, WPP_SYM_COUNT_CACHE_MISS, k->miss_fn);
	LLVMSetFunctionCallConv(target, LLVMPreserveMostCallConv);
	/* not cold: the paths that lost their pair to another miss every time */
	k->cache_miss = wpp_probes_got_stub(p, "__wpp_count_cache_miss_stub",
					    WPP_SYM_COUNT_CACHE_MISS, k->miss_fn, 0);
	LLVMTypeRef params[5] = {p->ptr, p->i64, p->ptr, p->i64, p->i64};
	k->cache_fn = LLVMFunctionType(p->voidty, params, 5, 0);
	LLVMValueRef f = wpp_probes_inline_helper(p, "__wpp_count_cached", k->cache_fn);
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(p->ctx, f, "entry");
	LLVMBasicBlockRef bump = LLVMAppendBasicBlockInContext(p->ctx, f, "bump");
	LLVMBasicBlockRef miss = LLVMAppendBasicBlockInContext(p->ctx, f, "miss");
	LLVMBuilderRef b = LLVMCreateBuilderInContext(p->ctx);
	LLVMValueRef base = LLVMGetParam(f, 0), keys = LLVMGetParam(f, 1);
	LLVMValueRef fid_slot = LLVMGetParam(f, 2), key = LLVMGetParam(f, 3);
	LLVMValueRef log2 = LLVMGetParam(f, 4);

	LLVMPositionBuilderAtEnd(b, entry);
	LLVMValueRef npairs = LLVMBuildShl(b, LLVMConstInt(p->i64, 1, 0), log2, "npairs");
	LLVMValueRef h = LLVMBuildMul(b, key, LLVMConstInt(p->i64, WPP_COUNT_HASH_MUL, 0), "");
	LLVMValueRef shift = LLVMBuildSub(b, LLVMConstInt(p->i64, 64, 0), log2, "");
	LLVMValueRef pair = LLVMBuildLShr(b, h, shift, "pair");
	LLVMValueRef at = LLVMBuildAdd(b, pair, keys, "");
	LLVMValueRef keyp = LLVMBuildInBoundsGEP2(b, p->i64, base, &at, 1, "wpp.key");
	LLVMValueRef held = LLVMBuildLoad2(b, p->i64, keyp, "held");
	LLVMValueRef hit = LLVMBuildICmp(b, LLVMIntEQ, held, key, "hit");
	wpp_probes_branch_weights(p, LLVMBuildCondBr(b, hit, bump, miss), HOT_WEIGHT, COLD_WEIGHT);

	/* base and slot, not addresses: a hit's compare and add address base
	 * + slot directly (keys and counts apart, so no scaling beyond 8),
	 * and no address is computed for a miss that does not happen */
	LLVMPositionBuilderAtEnd(b, bump);
	wpp_emit_count_array(k, b, base, 0, LLVMBuildAdd(b, at, npairs, ""));
	LLVMBuildRetVoid(b);

	LLVMPositionBuilderAtEnd(b, miss);
	LLVMValueRef fidw = LLVMBuildLoad2(b, p->i64, fid_slot, "fidw");
	LLVMValueRef args[5] = {fidw, key, base, at, npairs};
	LLVMValueRef call = LLVMBuildCall2(b, k->miss_fn, k->cache_miss, args, 5, "");
	LLVMSetInstructionCallConv(call, LLVMPreserveMostCallConv);
	LLVMBuildRetVoid(b);
	LLVMDisposeBuilder(b);
	return f;
}

uint32_t wpp_counts_cache_limit(void)
{
	const char *v = getenv("WPP_COUNT_CACHE_PAIRS");
	if (!v || !*v)
		return WPP_COUNT_CACHE_PAIRS;
	unsigned long long n = strtoull(v, NULL, 10);
	/* a power of two the shift can name; anything else: no caches */
	if (n < 2 || n > WPP_COUNT_CACHE_MAX_PAIRS || (n & (n - 1)))
		return 0;
	return (uint32_t)n;
}

uint64_t wpp_counts_array_limit(void)
{
	const char *v = getenv("WPP_COUNT_ARRAY_MAX_PATHS");
	return v && *v ? strtoull(v, NULL, 10) : WPP_COUNT_ARRAY_MAX_PATHS;
}

void wpp_counts_init(struct wpp_counts *k, struct wpp_probes *p, int ppp)
{
	memset(k, 0, sizeof(*k));
	k->p = p;
	k->max_array_paths = wpp_counts_array_limit();
	k->cache_pairs = wpp_counts_cache_limit();
	k->tls = LLVMAddGlobal(p->mod, p->ptr, "__wpp_count_tls");
	LLVMSetLinkage(k->tls, LLVMInternalLinkage);
	LLVMSetInitializer(k->tls, LLVMConstNull(p->ptr));
	/* Internal, so the code generator picks local-exec in executables and
	 * local-dynamic in shared objects (no GOT load, no call per access
	 * where the object allows it). */
	LLVMSetThreadLocal(k->tls, 1);
	LLVMSetAlignment(k->tls, 8);
	/* the seventh field (ppp_slots) is read only when abi_version says
	 * WPP_COUNT_DESC_PPP or _CACHED, the eighth (cached) only for
	 * _CACHED; a counting unit leaves them NULL */
	LLVMTypeRef fields[8] = {p->i32, p->i32, p->i64, p->ptr, p->ptr, p->ptr, p->ptr, p->ptr};
	k->desc = LLVMAddGlobal(p->mod, LLVMStructTypeInContext(p->ctx, fields, 8, 0),
				"__wpp_count_desc");
	LLVMSetLinkage(k->desc, LLVMPrivateLinkage);
	LLVMSetAlignment(k->desc, 8);
	LLVMTypeRef aparams[2] = {p->ptr, p->ptr};
	k->alloc_fn = LLVMFunctionType(p->ptr, aparams, 2, 0);
	k->alloc = get_or_add_fn(p->mod, WPP_SYM_COUNT_ALLOC, k->alloc_fn);
	add_fn_attr(p->ctx, k->alloc, "nounwind");
	add_fn_attr(p->ctx, k->alloc, "cold");
	LLVMTypeRef hparams[2] = {p->i64, p->i64};
	k->hash_fn = LLVMFunctionType(p->voidty, hparams, 2, 0);
	/* preserve_most, like __wpp_flush: the call costs the hashed
	 * function's hot code no spills of caller-saved registers. */
	k->hash = build_hash_stub(k);
	k->self = LLVMGetNamedGlobal(p->mod, WPP_SYM_COUNT_SELF);
	if (!k->self) {
		k->self = LLVMAddGlobal(p->mod, p->ptr, WPP_SYM_COUNT_SELF);
		LLVMSetLinkage(k->self, LLVMExternalLinkage);
	}
	LLVMSetThreadLocal(k->self, 1);
	LLVMSetThreadLocalMode(k->self, LLVMInitialExecTLSModel);
	k->probe_helper = build_probe_helper(k);
	k->base_fn = LLVMFunctionType(p->ptr, NULL, 0, 0);
	k->base_helper = build_base_helper(k);
	k->cache_helper = build_cache_helper(k);
	if (ppp)
		k->ppp_helper = build_ppp_helper(k);
}

void wpp_counts_free(struct wpp_counts *k)
{
	free(k->first);
	free(k->ppp_tables);
	free(k->cached);
	k->first = NULL;
	k->ppp_tables = NULL;
	k->cached = NULL;
	k->nfirst = k->cap = k->nppp = k->ncached = 0;
}

/* Room for one more function; its slot range [at, at + nslots), no table. */
static uint64_t add_range(struct wpp_counts *k, uint64_t nslots)
{
	if (k->nfirst + 2 > k->cap) {
		uint32_t cap = k->cap ? 2 * k->cap : 64;
		uint64_t *grown = realloc(k->first, cap * sizeof(*grown));
		if (grown && !k->first)
			grown[0] = 0;
		if (grown)
			k->first = grown;
		LLVMValueRef *tables = grown ? realloc(k->ppp_tables, cap * sizeof(*tables)) : NULL;
		if (tables)
			k->ppp_tables = tables;
		uint8_t *cached = tables ? realloc(k->cached, cap) : NULL;
		if (!cached)
			abort(); /* the function is already being rewritten */
		k->cached = cached;
		k->cap = cap;
	}
	uint64_t at = k->first[k->nfirst];
	k->ppp_tables[k->nfirst] = NULL;
	k->cached[k->nfirst] = 0;
	k->first[++k->nfirst] = at + nslots;
	return at;
}

int wpp_counts_would_hash(const struct wpp_counts *k, uint64_t npaths)
{
	uint64_t used = k->first ? k->first[k->nfirst] : 0;
	return npaths > k->max_array_paths || npaths > WPP_COUNT_TU_MAX_SLOTS - used;
}

uint64_t wpp_counts_add_function(struct wpp_counts *k, uint64_t npaths)
{
	int hashed = wpp_counts_would_hash(k, npaths);
	uint64_t at = add_range(k, hashed ? 0 : npaths);
	return hashed ? UINT64_MAX : at;
}

/* log2 of the pairs of a cache for a function of npaths paths: enough
 * for them all (2 at least), WPP_COUNT_CACHE_PAIRS at most; 0 when caches
 * are off or the TU has no room for one after `before` more slots. */
static unsigned cache_log2(const struct wpp_counts *k, uint64_t npaths, uint64_t before)
{
	uint64_t used = k->first ? k->first[k->nfirst] : 0;
	unsigned log2 = 1;
	if (!k->cache_pairs)
		return 0;
	while ((UINT64_C(1) << log2) < k->cache_pairs && (UINT64_C(1) << log2) < npaths)
		log2++;
	uint64_t room = WPP_COUNT_TU_MAX_SLOTS - used;
	return before <= room && (UINT64_C(2) << log2) <= room - before ? log2 : 0;
}

unsigned wpp_counts_cache_log2(const struct wpp_counts *k)
{
	return cache_log2(k, UINT64_MAX, 0);
}

uint64_t wpp_counts_add_cached_function(struct wpp_counts *k, unsigned *log2)
{
	/* keys, then counts */
	if (!(*log2 = cache_log2(k, UINT64_MAX, 0)))
		return UINT64_MAX;
	uint64_t at = add_range(k, UINT64_C(2) << *log2);
	k->cached[k->nfirst - 1] = (uint8_t)*log2;
	k->ncached++;
	return at;
}

uint64_t wpp_counts_add_ppp_function(struct wpp_counts *k, uint64_t interval,
				     const uint64_t *slot_bl, LLVMValueRef *table, uint64_t npaths,
				     uint64_t *keys, unsigned *log2)
{
	struct wpp_probes *p = k->p;
	/* the residual paths' cache after the interval */
	uint64_t at = wpp_counts_add_split_function(k, interval, npaths, keys, log2);
	LLVMValueRef *vals = malloc(((size_t)interval + 1) * sizeof(*vals));
	if (!vals)
		abort();
	for (uint64_t i = 0; i < interval; i++)
		vals[i] = LLVMConstInt(p->i64, slot_bl[i], 0);
	LLVMValueRef arr = LLVMConstArray2(p->i64, vals, interval);
	free(vals);
	LLVMValueRef g = LLVMAddGlobal(p->mod, LLVMTypeOf(arr), "__wpp_ppp_slots");
	LLVMSetLinkage(g, LLVMPrivateLinkage);
	LLVMSetInitializer(g, arr);
	LLVMSetGlobalConstant(g, 1);
	LLVMSetAlignment(g, 8);
	k->ppp_tables[k->nfirst - 1] = g;
	k->nppp++;
	*table = g;
	return at;
}

uint64_t wpp_counts_add_split_function(struct wpp_counts *k, uint64_t nfront, uint64_t nkeys,
				       uint64_t *keys, unsigned *log2)
{
	*log2 = cache_log2(k, nkeys, nfront);
	uint64_t at = add_range(k, nfront + (*log2 ? UINT64_C(2) << *log2 : 0));
	*keys = at + nfront;
	if (*log2) {
		k->cached[k->nfirst - 1] = (uint8_t)*log2;
		k->ncached++;
	}
	return at;
}

LLVMValueRef wpp_emit_count_base(struct wpp_counts *k, LLVMBuilderRef b)
{
	return LLVMBuildCall2(b, k->base_fn, k->base_helper, NULL, 0, "wpp.counts");
}

void wpp_emit_count_array_add(struct wpp_counts *k, LLVMBuilderRef b, LLVMValueRef base,
			      uint64_t first, LLVMValueRef id, LLVMValueRef n)
{
	struct wpp_probes *p = k->p;
	LLVMValueRef idx = first ? LLVMBuildAdd(b, id, LLVMConstInt(p->i64, first, 0), "") : id;
	LLVMValueRef slot = LLVMBuildInBoundsGEP2(b, p->i64, base, &idx, 1, "wpp.slot");
	/* a plain add to memory: one instruction at -O1 and above, so a
	 * signal handler counting on the same thread cannot split it */
	LLVMValueRef old = LLVMBuildLoad2(b, p->i64, slot, "");
	LLVMBuildStore(b, LLVMBuildAdd(b, old, n, ""), slot);
}

void wpp_emit_count_array(struct wpp_counts *k, LLVMBuilderRef b, LLVMValueRef base, uint64_t first,
			  LLVMValueRef id)
{
	wpp_emit_count_array_add(k, b, base, first, id, LLVMConstInt(k->p->i64, 1, 0));
}

void wpp_emit_count_hash(struct wpp_counts *k, LLVMBuilderRef b, LLVMValueRef fidw, LLVMValueRef id)
{
	LLVMValueRef args[2] = {fidw, id};
	LLVMBuildCall2(b, k->hash_fn, k->probe_helper, args, 2, "");
}

void wpp_emit_count_cached(struct wpp_counts *k, LLVMBuilderRef b, LLVMValueRef base, uint64_t keys,
			   unsigned log2, LLVMValueRef fid_slot, LLVMValueRef key)
{
	LLVMValueRef args[5] = {base, LLVMConstInt(k->p->i64, keys, 0), fid_slot, key,
				LLVMConstInt(k->p->i64, log2, 0)};
	LLVMBuildCall2(b, k->cache_fn, k->cache_helper, args, 5, "");
}

void wpp_emit_count_ppp(struct wpp_counts *k, LLVMBuilderRef b, LLVMValueRef base, uint64_t first,
			LLVMValueRef table, uint64_t interval, uint64_t keys, unsigned log2,
			LLVMValueRef fid_slot, LLVMValueRef ppp, LLVMValueRef bl)
{
	struct wpp_probes *p = k->p;
	LLVMValueRef args[9] = {base,
				LLVMConstInt(p->i64, first, 0),
				table,
				LLVMConstInt(p->i64, interval, 0),
				fid_slot,
				ppp,
				bl,
				LLVMConstInt(p->i64, keys, 0),
				LLVMConstInt(p->i64, log2, 0)};
	LLVMBuildCall2(b, k->ppp_fn, k->ppp_helper, args, 9, "");
}

void wpp_counts_finish(struct wpp_counts *k)
{
	struct wpp_probes *p = k->p;
	uint32_t n = k->nfirst;
	LLVMValueRef *vals = malloc(((size_t)n + 1) * sizeof(*vals));
	if (!vals)
		abort();
	for (uint32_t i = 0; i <= n; i++)
		vals[i] = LLVMConstInt(p->i64, k->first ? k->first[i] : 0, 0);
	LLVMValueRef arr = LLVMConstArray2(p->i64, vals, (uint64_t)n + 1);
	free(vals);
	LLVMValueRef first = LLVMAddGlobal(p->mod, LLVMTypeOf(arr), "__wpp_count_first");
	LLVMSetLinkage(first, LLVMPrivateLinkage);
	LLVMSetInitializer(first, arr);
	LLVMSetGlobalConstant(first, 1);
	LLVMSetAlignment(first, 8);
	/* PPP: one table pointer per function, NULL for those that count by
	 * Ball-Larus id */
	LLVMValueRef tables = LLVMConstNull(p->ptr);
	if (k->nppp) {
		LLVMValueRef *ptrs = malloc(((size_t)n + 1) * sizeof(*ptrs));
		if (!ptrs)
			abort();
		for (uint32_t i = 0; i < n; i++)
			ptrs[i] = k->ppp_tables[i] ? k->ppp_tables[i] : LLVMConstNull(p->ptr);
		LLVMValueRef parr = LLVMConstArray2(p->ptr, ptrs, n);
		free(ptrs);
		tables = LLVMAddGlobal(p->mod, LLVMTypeOf(parr), "__wpp_ppp_tables");
		LLVMSetLinkage(tables, LLVMPrivateLinkage);
		LLVMSetInitializer(tables, parr);
		LLVMSetGlobalConstant(tables, 1);
		LLVMSetAlignment(tables, 8);
	}
	/* path caches: one flag per function */
	LLVMValueRef cached = LLVMConstNull(p->ptr);
	if (k->ncached) {
		LLVMValueRef carr = LLVMConstStringInContext(p->ctx, (const char *)k->cached, n, 1);
		cached = LLVMAddGlobal(p->mod, LLVMTypeOf(carr), "__wpp_count_cached");
		LLVMSetLinkage(cached, LLVMPrivateLinkage);
		LLVMSetInitializer(cached, carr);
		LLVMSetGlobalConstant(cached, 1);
	}
	uint32_t version = k->ncached ? WPP_COUNT_DESC_CACHED
			   : k->nppp  ? WPP_COUNT_DESC_PPP
				      : WPP_ABI_VERSION;
	LLVMValueRef fields[8] = {
	    LLVMConstInt(p->i32, version, 0),
	    LLVMConstInt(p->i32, n, 0),
	    LLVMConstInt(p->i64, k->first ? k->first[n] : 0, 0),
	    p->fid_base_slot,
	    first,
	    LLVMConstNull(p->ptr),
	    tables,
	    cached,
	};
	LLVMSetInitializer(k->desc, LLVMConstStructInContext(p->ctx, fields, 8, 0));
}
