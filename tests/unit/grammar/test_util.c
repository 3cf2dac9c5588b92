/* SPDX-License-Identifier: MIT */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

uint64_t tu_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

void tu_random_input(uint64_t *rng, uint32_t *in, size_t n, unsigned shape, int with_gaps)
{
	uint32_t alpha = 2 + tu_rand(rng) % 4;

	for (size_t i = 0; i < n; i++) {
		uint32_t r = tu_rand(rng);
		switch (shape % TU_SHAPES) {
		case 0: /* uniform over a tiny alphabet */
			in[i] = r % alpha;
			break;
		case 1: /* long runs */
			in[i] = (i && r % 8) ? in[i - 1] : r % alpha;
			break;
		case 2: /* a period with rare noise, like a loop with a variant */
			in[i] = (i >= 5 && r % 12) ? in[i - 5] : r % alpha;
			break;
		case 3: /* copies from a random earlier position */
			in[i] =
			    (i > 3 && r % 6) ? in[i - 1 - (r >> 8) % (i < 12 ? i : 12)] : r % alpha;
			break;
		case 4: /* mostly one symbol: "11111211111" style */
			in[i] = r % 7 ? 1 : 2;
			break;
		default: /* larger alphabet */
			in[i] = r % 16;
			break;
		}
		if (in[i] == TU_GAP)
			in[i] = 0;
	}
	if (with_gaps)
		for (size_t i = 0; i < n; i++)
			if (tu_rand(rng) % 23 == 0)
				in[i] = TU_GAP;
}

int tu_build(enum seq_algorithm algo, const uint32_t *in, size_t n, struct seq_grammar *g)
{
	struct seq_builder *b = seq_builder_new(algo);
	int rc = b ? 0 : -1;

	for (size_t i = 0; i < n && rc == 0; i++)
		rc = in[i] == TU_GAP ? seq_append_gap(b) : seq_append(b, in[i]);
	if (rc == 0)
		rc = seq_finish(b);
	if (rc == 0)
		rc = seq_export(b, g);
	seq_builder_free(b);
	return rc;
}

struct sink {
	uint32_t *p;
	size_t n;
};

static int to_sink(void *ctx, const uint32_t *syms, size_t n)
{
	struct sink *s = ctx;
	memcpy(s->p + s->n, syms, n * sizeof(*syms));
	s->n += n;
	return 0;
}

uint32_t *tu_expand_all(const struct seq_grammar *g, size_t *n)
{
	struct sink s = {malloc((seq_grammar_total_len(g) + g->nroots + 1) * sizeof(uint32_t)), 0};

	if (!s.p)
		return NULL;
	for (uint32_t k = 0; k < g->nroots; k++) {
		if (k)
			s.p[s.n++] = TU_GAP;
		if (seq_grammar_expand_root(g, k, to_sink, &s) != 0) {
			free(s.p);
			return NULL;
		}
	}
	*n = s.n;
	return s.p;
}
