/* SPDX-License-Identifier: MIT */
/*
 * kslab_act.c — routing path records to their activation's k-SF stream
 * (see kslab_act.h).
 *
 * Invariant: a->depth live activations; the innermost is the k-SF's current
 * stream and the others are its suspended streams, in the same order
 * (kslab_depth(s) == depth - 1 whenever depth > 0).
 */
#include "analysis/kpaths/kslab_act.h"

#include <stdlib.h>

void kact_init(struct kact *a, struct kslab *s)
{
	*a = (struct kact){.s = s};
	kslab_drop_all(s);
}

void kact_fini(struct kact *a)
{
	free(a->fids);
	a->fids = NULL;
	a->depth = a->cap = 0;
}

/* A new innermost activation of fid, its stream empty. */
static int enter(struct kact *a, uint32_t fid)
{
	if (a->depth == a->cap) {
		uint32_t ncap = a->cap ? a->cap * 2 : 64;
		uint32_t *nf;
		if (ncap <= a->cap || !(nf = realloc(a->fids, ncap * sizeof(*nf))))
			return -1;
		a->fids = nf;
		a->cap = ncap;
	}
	if (a->depth == 0)
		kslab_mark(a->s); /* the first activation uses the current stream */
	else if (kslab_push(a->s) < 0)
		return -1;
	a->fids[a->depth++] = fid;
	return 0;
}

static void leave(struct kact *a)
{
	a->depth--;
	if (a->depth == 0)
		kslab_mark(a->s);
	else
		kslab_pop(a->s);
}

/* Make the innermost live activation of fid the current one, unwinding
 * those above it; if none is live, start one: on top when the record may
 * be a callee's first (kinds unknown), else below everything (kslab_act.h). */
static int resume(struct kact *a, uint32_t fid, unsigned flags)
{
	uint32_t i = a->depth;

	while (i > 0 && a->fids[i - 1] != fid)
		i--;
	if (i == 0 && !(flags & KACT_UNKNOWN)) {
		a->unwound += a->depth;
		a->depth = 0;
		kslab_drop_all(a->s);
	}
	if (i == 0)
		return enter(a, fid);
	while (a->depth > i) {
		leave(a);
		a->unwound++;
	}
	return 0;
}

int kact_item(struct kact *a, uint32_t fid, uint64_t value, unsigned flags)
{
	int rc;

	if (flags & KACT_ENTRY)
		rc = enter(a, fid);
	else if (a->depth && a->fids[a->depth - 1] == fid)
		rc = 0; /* the common case: the innermost activation continues */
	else
		rc = resume(a, fid, flags);
	if (rc < 0 || kslab_item(a->s, fid, value) < 0)
		return -1;
	if (flags & KACT_RETURN)
		leave(a);
	return 0;
}

int kact_item_run(struct kact *a, uint32_t fid, uint64_t value, unsigned flags, uint64_t times)
{
	if (times == 0)
		return 0;
	if (flags & (KACT_ENTRY | KACT_RETURN)) {
		for (uint64_t i = 0; i < times; i++)
			if (kact_item(a, fid, value, flags) < 0)
				return -1;
		return 0;
	}
	if (kact_item(a, fid, value, flags) < 0)
		return -1;
	return kslab_item_run(a->s, fid, value, times - 1);
}

void kact_mark(struct kact *a)
{
	a->depth = 0;
	kslab_drop_all(a->s);
}
