/* SPDX-License-Identifier: MIT */
/*
 * wet_segment.c — the bidirectional predictor coder of one segment
 * (wet_segment.h): FCM and DFCM with a table per side, last-n and last-n
 * stride with one move-to-front list whose updates the backward step
 * undoes.  Each step is a constant number of table or list operations and
 * one pop and one push of a code.
 */
#include "analysis/wet/wet_segment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEN_BITS 6 /* a miss's payload length, minus one */

int wet_method_check(const struct wet_method *m)
{
	switch (m->kind) {
	case WET_FCM:
	case WET_DFCM:
		if (m->size < 1 || m->size > 3)
			return -1;
		return m->table_bits >= 1 && m->table_bits <= WET_MAX_TABLE_BITS ? 0 : -1;
	case WET_LAST_N:
	case WET_LAST_N_STRIDE:
		if (m->size != 1 && m->size != 4 && m->size != 16)
			return -1;
		return m->table_bits == 0 ? 0 : -1;
	case WET_VERBATIM:
		return m->size == 1 && m->table_bits == 0 ? 0 : -1;
	default:
		return -1;
	}
}

unsigned wet_method_window(const struct wet_method *m)
{
	switch (m->kind) {
	case WET_FCM:
		return m->size;
	case WET_DFCM:
		return m->size + 1u;
	default:
		return 1;
	}
}

const char *wet_method_name(const struct wet_method *m, char *buf, unsigned len)
{
	static const char *const kinds[WET_NKINDS] = {"fcm", "dfcm", "last", "last", "verbatim"};

	if (wet_method_check(m) < 0)
		snprintf(buf, len, "invalid");
	else
		snprintf(buf, len, "%s%.0u%s", kinds[m->kind],
			 m->kind == WET_VERBATIM ? 0 : m->size,
			 m->kind == WET_LAST_N_STRIDE ? "-stride" : "");
	return buf;
}

uint64_t wet_seg_current(const struct wet_method *m, const struct wet_seg *seg)
{
	return seg->win[wet_method_window(m) - 1];
}

static int is_table_kind(const struct wet_method *m)
{
	return m->kind == WET_FCM || m->kind == WET_DFCM;
}

static unsigned list_index_bits(const struct wet_method *m)
{
	return m->size == 16 ? 4 : m->size == 4 ? 2 : 0;
}

static uint64_t zigzag(uint64_t d)
{
	return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

/* --- codes ------------------------------------------------------------
 *
 * Pushed payload first, tag last (on top), so a pop reads the tag first:
 *   hit   [position: index_bits] 1
 *   miss  [difference: len bits] [len - 1: 6 bits] 0 0
 *   run   [r: rlen bits] [rlen - 1: 5 bits] 1 0     r >= RUN_MIN hits at 0
 * A run stands for r hits at position 0 (every hit of FCM/DFCM): what a
 * constant, a stride or a loop's timestamps code to.  Hits at 0 form a run
 * exactly when RUN_MIN or more are adjacent on a stack, so the codes stay
 * a function of the values (the serialized form is canonical) while a
 * push or pop of one hit stays O(1).
 */

#define RUN_MIN	     12 /* from here a run code is no longer than the hits */
#define RUN_LEN_BITS 5

static int push_single_hit(struct wet_bits *b, uint64_t index, unsigned index_bits)
{
	if (index_bits && wet_bits_push(b, index, index_bits) < 0)
		return -1;
	return wet_bits_push(b, 1, 1);
}

static unsigned bit_length(uint64_t v)
{
	return v ? 64 - (unsigned)__builtin_clzll(v) : 1;
}

static int push_run(struct wet_bits *b, uint64_t r)
{
	unsigned len = bit_length(r);

	if (wet_bits_push(b, r, len) < 0 || wet_bits_push(b, len - 1, RUN_LEN_BITS) < 0)
		return -1;
	return wet_bits_push(b, 1, 2); /* tag bits 0 then 1: the run tag */
}

/* Pop a run code known to be on top: its count. */
static int pop_run(struct wet_bits *b, uint64_t *r)
{
	uint64_t tag, len;

	if (wet_bits_pop(b, 2, &tag) < 0 || wet_bits_pop(b, RUN_LEN_BITS, &len) < 0 ||
	    wet_bits_pop(b, (unsigned)len + 1, r) < 0)
		return -1;
	return 0;
}

/* Write the side's pending hits as codes, merged with the hits at position
 * 0 already on top, so the bits are what pushing hit after hit would
 * give: a run from RUN_MIN adjacent hits, single hits below that.  O(1):
 * fewer than RUN_MIN single hits can be adjacent. */
static int settle(struct wet_side *side, unsigned index_bits)
{
	struct wet_bits *b = &side->bits;
	uint64_t total = side->run, top, r;

	if (!total)
		return 0;
	side->run = 0;
	if (wet_bits_peek(b, 2, &top) == 0 && top == 1) {
		if (pop_run(b, &r) < 0)
			return -1;
		return push_run(b, r + total);
	}
	while (wet_bits_peek(b, index_bits + 1, &top) == 0 && top == UINT64_C(1) << index_bits) {
		if (wet_bits_pop(b, index_bits + 1, &top) < 0)
			return -1;
		total++;
	}
	if (total >= RUN_MIN)
		return push_run(b, total);
	while (total--)
		if (push_single_hit(b, 0, index_bits) < 0)
			return -1;
	return 0;
}

/* A hit at position 0 only counts: a step through a run touches no bits. */
static int push_hit(struct wet_side *side, uint64_t index, unsigned index_bits)
{
	if (!index) {
		side->run++;
		return 0;
	}
	if (settle(side, index_bits) < 0)
		return -1;
	return push_single_hit(&side->bits, index, index_bits);
}

static int push_miss(struct wet_side *side, uint64_t z, unsigned index_bits)
{
	struct wet_bits *b = &side->bits;
	unsigned len = bit_length(z);

	if (settle(side, index_bits) < 0)
		return -1;
	if (wet_bits_push(b, z, len) < 0 || wet_bits_push(b, len - 1, LEN_BITS) < 0)
		return -1;
	return wet_bits_push(b, 0, 2);
}

/* Pop one code: 1 = hit (*val = its position), 0 = miss (*val = payload),
 * -1 = no code or a malformed one. */
static int pop_code(struct wet_side *side, unsigned index_bits, uint64_t *val)
{
	struct wet_bits *b = &side->bits;
	uint64_t tag, len;

	*val = 0;
	if (side->run) {
		side->run--;
		return 1;
	}
	if (wet_bits_peek(b, 2, &tag) == 0 && tag == 1) {
		/* A run: one hit leaves, the rest are pending. */
		if (pop_run(b, val) < 0 || *val < RUN_MIN || *val > UINT32_MAX)
			return -1; /* never written: the stack is damaged */
		side->run = (uint32_t)(*val - 1);
		*val = 0;
		return 1;
	}
	if (wet_bits_pop(b, 1, &tag) < 0)
		return -1;
	if (tag)
		return index_bits && wet_bits_pop(b, index_bits, val) < 0 ? -1 : 1;
	if (wet_bits_pop(b, 1, &tag) < 0 || wet_bits_pop(b, LEN_BITS, &len) < 0 ||
	    wet_bits_pop(b, (unsigned)len + 1, val) < 0)
		return -1;
	return 0;
}

int wet_seg_settle(const struct wet_method *m, struct wet_seg *seg)
{
	unsigned index_bits = list_index_bits(m);

	if (settle(&seg->left, index_bits) < 0 || settle(&seg->right, index_bits) < 0)
		return -1;
	return 0;
}

/* --- FCM and DFCM: one table per side ----------------------------------- */

static uint32_t context_slot(const uint64_t *sym, unsigned k, unsigned bits)
{
	uint64_t h = 0x243f6a8885a308d3u;

	for (unsigned i = 0; i < k; i++) {
		h = (h ^ sym[i]) * 0x9e3779b97f4a7c15u;
		h ^= h >> 29;
	}
	return (uint32_t)(h >> (64 - bits));
}

/* The slot and base predicting the value right of the window (left context,
 * nearest value first).  FCM codes the value itself (base 0), DFCM the
 * stride from the nearest value. */
static uint32_t left_context(const struct wet_method *m, const uint64_t *win, uint64_t *base)
{
	unsigned w = wet_method_window(m);
	uint64_t sym[WET_MAX_WINDOW];

	if (m->kind == WET_FCM) {
		for (unsigned i = 0; i < w; i++)
			sym[i] = win[w - 1 - i];
		*base = 0;
		return context_slot(sym, w, m->table_bits);
	}
	for (unsigned i = 0; i + 1 < w; i++)
		sym[i] = win[w - 1 - i] - win[w - 2 - i];
	*base = win[w - 1];
	return context_slot(sym, w - 1, m->table_bits);
}

/* The same for the value left of the window (right context). */
static uint32_t right_context(const struct wet_method *m, const uint64_t *win, uint64_t *base)
{
	unsigned w = wet_method_window(m);
	uint64_t sym[WET_MAX_WINDOW];

	if (m->kind == WET_FCM) {
		*base = 0;
		return context_slot(win, w, m->table_bits);
	}
	for (unsigned i = 0; i + 1 < w; i++)
		sym[i] = win[i] - win[i + 1];
	*base = win[0];
	return context_slot(sym, w - 1, m->table_bits);
}

/* Code sym against tab[slot]; the table keeps sym, the code keeps what the
 * table held, so table_decode undoes this exactly. */
static int table_encode(uint64_t *tab, uint32_t slot, uint64_t sym, struct wet_side *b)
{
	uint64_t held = tab[slot];

	if (held == sym)
		return push_hit(b, 0, 0);
	tab[slot] = sym;
	return push_miss(b, zigzag(held - sym), 0);
}

static int table_decode(uint64_t *tab, uint32_t slot, struct wet_side *b, uint64_t *sym)
{
	uint64_t z;
	int r = pop_code(b, 0, &z);

	if (r < 0)
		return -1;
	*sym = tab[slot];
	if (r == 0)
		tab[slot] = *sym + unzigzag(z);
	return 0;
}

static int table_forward(const struct wet_method *m, struct wet_seg *seg, struct wet_state *st,
			 const uint64_t *raw)
{
	unsigned w = wet_method_window(m);
	uint64_t base, sym, x, leaving = seg->win[0];
	uint32_t slot = left_context(m, seg->win, &base);

	if (raw) {
		x = *raw;
	} else {
		if (table_decode(st->right_tab, slot, &seg->right, &sym) < 0)
			return -1;
		x = base + sym;
	}
	memmove(seg->win, seg->win + 1, (w - 1) * sizeof(seg->win[0]));
	seg->win[w - 1] = x;
	seg->pos++;
	if (seg->pos - 1 < w) /* the value leaving the window was padding */
		return 0;
	slot = right_context(m, seg->win, &base);
	return table_encode(st->left_tab, slot, leaving - base, &seg->left);
}

static int table_backward(const struct wet_method *m, struct wet_seg *seg, struct wet_state *st)
{
	unsigned w = wet_method_window(m);
	uint64_t base, sym, entering = 0, leaving = seg->win[w - 1];
	uint32_t slot;

	if (seg->pos >= w + 1) {
		slot = right_context(m, seg->win, &base);
		if (table_decode(st->left_tab, slot, &seg->left, &sym) < 0)
			return -1;
		entering = base + sym;
	}
	memmove(seg->win + 1, seg->win, (w - 1) * sizeof(seg->win[0]));
	seg->win[0] = entering;
	seg->pos--;
	slot = left_context(m, seg->win, &base);
	return table_encode(st->right_tab, slot, leaving - base, &seg->right);
}

/* --- last-n and last-n stride: one move-to-front list ------------------- */

static void list_to_front(uint64_t *list, unsigned k)
{
	uint64_t v = list[k];

	memmove(list + 1, list, k * sizeof(list[0]));
	list[0] = v;
}

static void list_from_front(uint64_t *list, unsigned k)
{
	uint64_t v = list[0];

	memmove(list, list + 1, k * sizeof(list[0]));
	list[k] = v;
}

/* Forward: the value entering the window is coded on the right stack
 * against the list before its update; the left stack keeps what undoing
 * the update needs (the position, or the value the list dropped). */
static int list_forward(const struct wet_method *m, struct wet_seg *seg, struct wet_state *st,
			const uint64_t *raw)
{
	unsigned n = m->size, kbits = list_index_bits(m);
	int stride = m->kind == WET_LAST_N_STRIDE;
	uint64_t *list = st->list, base = stride ? seg->win[0] : 0, sym, val, dropped;
	int hit;

	if (raw) {
		sym = *raw - base;
		hit = 0;
		for (val = 0; val < n; val++)
			if (list[val] == sym) {
				hit = 1;
				break;
			}
	} else {
		hit = pop_code(&seg->right, kbits, &val);
		if (hit < 0)
			return -1;
		sym = hit ? list[val] : list[0] + unzigzag(val);
	}
	if (hit) {
		list_to_front(list, (unsigned)val);
		if (push_hit(&seg->left, val, kbits) < 0)
			return -1;
	} else {
		dropped = list[n - 1];
		memmove(list + 1, list, (n - 1) * sizeof(list[0]));
		list[0] = sym;
		if (push_miss(&seg->left, zigzag(dropped - sym), kbits) < 0)
			return -1;
	}
	seg->win[0] = base + sym;
	seg->pos++;
	return 0;
}

static int list_backward(const struct wet_method *m, struct wet_seg *seg, struct wet_state *st)
{
	unsigned n = m->size, kbits = list_index_bits(m);
	int stride = m->kind == WET_LAST_N_STRIDE;
	uint64_t *list = st->list, sym = list[0], x = seg->win[0], val;
	int hit = pop_code(&seg->left, kbits, &val);

	if (hit < 0)
		return -1;
	if (hit) {
		list_from_front(list, (unsigned)val);
		if (push_hit(&seg->right, val, kbits) < 0)
			return -1;
	} else {
		memmove(list, list + 1, (n - 1) * sizeof(list[0]));
		list[n - 1] = sym + unzigzag(val);
		if (push_miss(&seg->right, zigzag(sym - list[0]), kbits) < 0)
			return -1;
	}
	/* The list's front is now the previous value's symbol (0 before x_0). */
	seg->win[0] = stride ? x - sym : list[0];
	seg->pos--;
	return 0;
}

/* --- verbatim: the values themselves on both stacks --------------------- */

static int verbatim_forward(struct wet_seg *seg, const uint64_t *raw)
{
	uint64_t x;

	if (raw)
		x = *raw;
	else if (wet_bits_pop(&seg->right.bits, 64, &x) < 0)
		return -1;
	if (seg->pos >= 1 && wet_bits_push(&seg->left.bits, seg->win[0], 64) < 0)
		return -1;
	seg->win[0] = x;
	seg->pos++;
	return 0;
}

static int verbatim_backward(struct wet_seg *seg)
{
	uint64_t entering = 0;

	if (wet_bits_push(&seg->right.bits, seg->win[0], 64) < 0)
		return -1;
	if (seg->pos >= 2 && wet_bits_pop(&seg->left.bits, 64, &entering) < 0)
		return -1;
	seg->win[0] = entering;
	seg->pos--;
	return 0;
}

static int step_forward(const struct wet_method *m, struct wet_seg *seg, struct wet_state *st,
			const uint64_t *raw)
{
	if (is_table_kind(m))
		return table_forward(m, seg, st, raw);
	if (m->kind == WET_VERBATIM)
		return verbatim_forward(seg, raw);
	return list_forward(m, seg, st, raw);
}

/* --- the segment ------------------------------------------------------- */

int wet_state_init(struct wet_state *st, const struct wet_method *m)
{
	*st = (struct wet_state){0};
	if (!is_table_kind(m))
		return 0;
	st->entries = UINT32_C(1) << m->table_bits;
	st->left_tab = calloc(st->entries, sizeof(uint64_t));
	st->right_tab = calloc(st->entries, sizeof(uint64_t));
	if (!st->left_tab || !st->right_tab) {
		wet_state_free(st);
		return -1;
	}
	return 0;
}

void wet_state_free(struct wet_state *st)
{
	free(st->left_tab);
	free(st->right_tab);
	*st = (struct wet_state){0};
}

void wet_seg_open(const struct wet_method *m, const struct wet_seg *seg, struct wet_state *st)
{
	if (!is_table_kind(m)) {
		if (seg->list)
			memcpy(st->list, seg->list, sizeof(st->list));
		else
			memset(st->list, 0, sizeof(st->list));
		return;
	}
	memset(st->left_tab, 0, st->entries * sizeof(uint64_t));
	memset(st->right_tab, 0, st->entries * sizeof(uint64_t));
	for (uint32_t i = 0; i < seg->nleft_tab; i++)
		st->left_tab[seg->tab[i].index] = seg->tab[i].value;
	for (uint32_t i = 0; i < seg->nright_tab; i++)
		st->right_tab[seg->tab[seg->nleft_tab + i].index] =
		    seg->tab[seg->nleft_tab + i].value;
}

static uint32_t count_nonzero(const uint64_t *tab, uint32_t entries)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < entries; i++)
		n += tab[i] != 0;
	return n;
}

static struct wet_tab_entry *gather(const uint64_t *tab, uint32_t entries,
				    struct wet_tab_entry *out)
{
	for (uint32_t i = 0; i < entries; i++)
		if (tab[i])
			*out++ = (struct wet_tab_entry){i, tab[i]};
	return out;
}

int wet_seg_close(const struct wet_method *m, struct wet_seg *seg, const struct wet_state *st)
{
	uint32_t nl, nr;
	struct wet_tab_entry *tab;

	if (wet_seg_settle(m, seg) < 0)
		return -1;
	/* A closed segment costs its codes: a stack the cursor emptied had
	 * grown to hold them all. */
	wet_bits_shrink(&seg->left.bits);
	wet_bits_shrink(&seg->right.bits);
	if (!is_table_kind(m)) {
		uint32_t used = 0;
		for (unsigned i = 0; i < WET_MAX_LIST; i++)
			used |= st->list[i] != 0;
		/* Empty where segments rest (at their start): nothing kept. */
		if (!used) {
			free(seg->list);
			seg->list = NULL;
			return 0;
		}
		if (!seg->list && !(seg->list = malloc(sizeof(st->list))))
			return -1;
		memcpy(seg->list, st->list, sizeof(st->list));
		return 0;
	}
	nl = count_nonzero(st->left_tab, st->entries);
	nr = count_nonzero(st->right_tab, st->entries);
	tab = realloc(seg->tab, ((size_t)nl + nr + 1) * sizeof(*tab));
	if (!tab)
		return -1;
	gather(st->right_tab, st->entries, gather(st->left_tab, st->entries, tab));
	seg->tab = tab;
	seg->nleft_tab = nl;
	seg->nright_tab = nr;
	return 0;
}

int wet_seg_append(const struct wet_method *m, struct wet_seg *seg, struct wet_state *st,
		   uint64_t x)
{
	int r;

	if (seg->pos != seg->count || seg->count == UINT32_MAX)
		return -1;
	r = step_forward(m, seg, st, &x);
	if (r == 0)
		seg->count++;
	return r;
}

int wet_seg_forward(const struct wet_method *m, struct wet_seg *seg, struct wet_state *st)
{
	if (seg->pos >= seg->count)
		return -1;
	return step_forward(m, seg, st, NULL);
}

int wet_seg_backward(const struct wet_method *m, struct wet_seg *seg, struct wet_state *st)
{
	if (seg->pos == 0)
		return -1;
	if (is_table_kind(m))
		return table_backward(m, seg, st);
	return m->kind == WET_VERBATIM ? verbatim_backward(seg) : list_backward(m, seg, st);
}

void wet_seg_free(struct wet_seg *seg)
{
	wet_bits_free(&seg->left.bits);
	wet_bits_free(&seg->right.bits);
	free(seg->tab);
	free(seg->list);
	*seg = (struct wet_seg){0};
}
