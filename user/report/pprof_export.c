/* SPDX-License-Identifier: MIT */
#include "report/pprof_export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <unistd.h>

#include "symbolizer/elf_object.h"
#include "common/log.h"
#include "common/out_file.h"
#include "profile.pb-c.h"
#include "report/report_out.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__ValueType ValueType;

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		wpp_die("out of memory");
	return p;
}

/* Interned strings: string_table[0] = "", open addressing over indices. */
struct strings {
	char **table;
	size_t n, cap;
	size_t *slots; /* index + 1, 0 = empty */
	size_t nslots;
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static int64_t intern(struct strings *st, const char *s)
{
	size_t i;

	if ((st->n + 1) * 2 > st->nslots) {
		size_t ns = st->nslots ? st->nslots * 2 : 256;
		size_t *slots = xcalloc(ns, sizeof(*slots));
		for (size_t k = 0; k < st->n; k++) {
			for (i = str_hash(st->table[k]) & (ns - 1); slots[i];
			     i = (i + 1) & (ns - 1))
				;
			slots[i] = k + 1;
		}
		free(st->slots);
		st->slots = slots;
		st->nslots = ns;
	}
	for (i = str_hash(s) & (st->nslots - 1); st->slots[i]; i = (i + 1) & (st->nslots - 1))
		if (strcmp(st->table[st->slots[i] - 1], s) == 0)
			return (int64_t)(st->slots[i] - 1);
	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 64;
		if (!(st->table = realloc(st->table, st->cap * sizeof(*st->table))))
			wpp_die("out of memory");
	}
	if (!(st->table[st->n] = strdup(s)))
		wpp_die("out of memory");
	st->slots[i] = ++st->n;
	return (int64_t)(st->n - 1);
}

/* Ids of functions (by wpp_fn) and locations (by wpp_fn + block). */
struct id_map {
	const void **keys;
	uint32_t *sub;
	uint64_t *ids;
	size_t cap, n;
};

static uint64_t id_get(struct id_map *m, const void *key, uint32_t sub, int *created)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		struct id_map g = {.cap = m->cap ? m->cap * 2 : 1024};
		g.keys = xcalloc(g.cap, sizeof(*g.keys));
		g.sub = xcalloc(g.cap, sizeof(*g.sub));
		g.ids = xcalloc(g.cap, sizeof(*g.ids));
		for (size_t k = 0; k < m->cap; k++) {
			if (!m->keys[k])
				continue;
			for (i = ((uintptr_t)m->keys[k] * 31 + m->sub[k]) * 0x9e3779b97f4a7c15u >>
				     20 &
				 (g.cap - 1);
			     g.keys[i]; i = (i + 1) & (g.cap - 1))
				;
			g.keys[i] = m->keys[k];
			g.sub[i] = m->sub[k];
			g.ids[i] = m->ids[k];
			g.n++;
		}
		free(m->keys);
		free(m->sub);
		free(m->ids);
		*m = g;
	}
	for (i = ((uintptr_t)key * 31 + sub) * 0x9e3779b97f4a7c15u >> 20 & (m->cap - 1); m->keys[i];
	     i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key && m->sub[i] == sub) {
			*created = 0;
			return m->ids[i];
		}
	m->keys[i] = key;
	m->sub[i] = sub;
	m->ids[i] = ++m->n;
	*created = 1;
	return m->ids[i];
}

static void id_map_free(struct id_map *m)
{
	free(m->keys);
	free(m->sub);
	free(m->ids);
}

struct builder {
	Profile prof;
	struct strings st;
	struct id_map fn_ids, loc_ids;
	const struct wpp_trace *trace;
};

static ValueType *value_type(struct builder *b, const char *type, const char *unit)
{
	ValueType *v = xcalloc(1, sizeof(*v));
	perftools__profiles__value_type__init(v);
	v->type = intern(&b->st, type);
	v->unit = intern(&b->st, unit);
	return v;
}

static uint64_t mapping_of(struct builder *b, const char *object)
{
	Profile *pr = &b->prof;
	char hex[2 * WPP_BUILD_ID_MAX + 1] = "";
	Mapping *m;

	for (size_t i = 0; i < pr->n_mapping; i++)
		if (strcmp(b->st.table[pr->mapping[i]->filename], object) == 0)
			return pr->mapping[i]->id;
	for (size_t i = 0; i < b->trace->nmodules; i++)
		if (strcmp(b->trace->modules[i].path, object) == 0) {
			wpp_build_id_hex(b->trace->modules[i].build_id,
					 b->trace->modules[i].build_id_len, hex, sizeof(hex));
			break;
		}
	m = xcalloc(1, sizeof(*m));
	perftools__profiles__mapping__init(m);
	m->id = pr->n_mapping + 1;
	m->filename = intern(&b->st, object);
	m->build_id = intern(&b->st, hex);
	m->has_functions = m->has_filenames = m->has_line_numbers = 1;
	if (!(pr->mapping = realloc(pr->mapping, (pr->n_mapping + 1) * sizeof(*pr->mapping))))
		wpp_die("out of memory");
	pr->mapping[pr->n_mapping++] = m;
	return m->id;
}

static uint64_t function_id(struct builder *b, const struct wpp_fn *fn, size_t max)
{
	int created;
	uint64_t id = id_get(&b->fn_ids, fn, 0, &created);
	Function *f;

	if (!created)
		return id;
	f = xcalloc(1, sizeof(*f));
	perftools__profiles__function__init(f);
	f->id = id;
	f->name = f->system_name = intern(&b->st, fn->name);
	f->filename = intern(&b->st, fn->file);
	f->start_line = fn->line;
	if (!b->prof.function)
		b->prof.function = xcalloc(max, sizeof(*b->prof.function));
	b->prof.function[b->prof.n_function++] = f;
	return id;
}

static uint64_t location_id(struct builder *b, const struct rpt_path *r, uint32_t block, size_t max)
{
	int created;
	uint64_t id = id_get(&b->loc_ids, r->fn, block, &created);
	const struct wpp_meta_line *l;
	Location *loc;
	Line *line;

	if (!created)
		return id;
	loc = xcalloc(1, sizeof(*loc));
	line = xcalloc(1, sizeof(*line));
	perftools__profiles__location__init(loc);
	perftools__profiles__line__init(line);
	loc->id = id;
	loc->mapping_id = mapping_of(b, r->object);
	line->function_id = function_id(b, r->fn, max);
	l = wpp_fn_block_line(r->fn, block);
	line->line = l ? l->line : r->fn->line;
	line->column = l ? l->column : 0;
	loc->n_line = 1;
	loc->line = xcalloc(1, sizeof(*loc->line));
	loc->line[0] = line;
	if (!b->prof.location)
		b->prof.location = xcalloc(max, sizeof(*b->prof.location));
	b->prof.location[b->prof.n_location++] = loc;
	return id;
}

static Label *label(struct builder *b, const char *key, const char *str, int64_t num)
{
	Label *l = xcalloc(1, sizeof(*l));
	perftools__profiles__label__init(l);
	l->key = intern(&b->st, key);
	if (str)
		l->str = intern(&b->st, str);
	else
		l->num = num;
	return l;
}

static void add_sample(struct builder *b, const struct rpt_path *r, size_t max_locs, size_t max_fns)
{
	Sample *s = xcalloc(1, sizeof(*s));
	char kinds[16];

	perftools__profiles__sample__init(s);
	s->n_location_id = r->nblocks;
	s->location_id = xcalloc(r->nblocks, sizeof(*s->location_id));
	for (uint32_t i = 0; i < r->nblocks; i++) /* leaf (last block) first */
		s->location_id[i] = location_id(b, r, r->blocks[r->nblocks - 1 - i], max_locs);
	(void)max_fns;
	s->n_value = 2;
	s->value = xcalloc(2, sizeof(*s->value));
	s->value[0] = (int64_t)r->count;
	s->value[1] = (int64_t)r->cost;
	s->n_label = 3;
	s->label = xcalloc(3, sizeof(*s->label));
	s->label[0] = label(b, "pid", NULL, r->pid);
	s->label[1] = label(b, r->is_block ? "block" : "path", NULL, (int64_t)r->id);
	s->label[2] = label(b, "kind", rpt_kinds(r, kinds, sizeof(kinds)), 0);
	b->prof.sample[b->prof.n_sample++] = s;
}

static void builder_free(struct builder *b)
{
	Profile *pr = &b->prof;

	for (size_t i = 0; i < pr->n_sample; i++) {
		for (size_t k = 0; k < pr->sample[i]->n_label; k++)
			free(pr->sample[i]->label[k]);
		free(pr->sample[i]->label);
		free(pr->sample[i]->location_id);
		free(pr->sample[i]->value);
		free(pr->sample[i]);
	}
	for (size_t i = 0; i < pr->n_location; i++) {
		free(pr->location[i]->line[0]);
		free(pr->location[i]->line);
		free(pr->location[i]);
	}
	for (size_t i = 0; i < pr->n_function; i++)
		free(pr->function[i]);
	for (size_t i = 0; i < pr->n_mapping; i++)
		free(pr->mapping[i]);
	for (size_t i = 0; i < pr->n_sample_type; i++)
		free(pr->sample_type[i]);
	free(pr->period_type);
	free(pr->sample);
	free(pr->location);
	free(pr->function);
	free(pr->mapping);
	free(pr->sample_type);
	for (size_t i = 0; i < b->st.n; i++)
		free(b->st.table[i]);
	free(b->st.table);
	free(b->st.slots);
	id_map_free(&b->fn_ids);
	id_map_free(&b->loc_ids);
}

int rpt_export_pprof(const char *path, const struct rpt_profile *p, const struct wpp_trace *t)
{
	struct builder b = {.trace = t};
	size_t max_locs = 1, len;
	uint8_t *buf;
	gzFile gz;
	int rc = 0;

	perftools__profiles__profile__init(&b.prof);
	intern(&b.st, "");
	for (size_t i = 0; i < p->npaths; i++)
		max_locs += p->paths[i].nblocks;
	b.prof.n_sample_type = 2;
	b.prof.sample_type = xcalloc(2, sizeof(*b.prof.sample_type));
	b.prof.sample_type[0] = value_type(&b, "executions", "count");
	b.prof.sample_type[1] = value_type(&b, p->cost_unit, "count");
	b.prof.period_type = value_type(&b, "executions", "count");
	b.prof.period = 1;
	b.prof.default_sample_type = 1; /* cost first in pprof's views */
	b.prof.time_nanos = 0;
	b.prof.sample = xcalloc(p->npaths, sizeof(*b.prof.sample));
	for (size_t i = 0; i < p->npaths; i++)
		add_sample(&b, &p->paths[i], max_locs, max_locs);
	b.prof.n_string_table = b.st.n;
	b.prof.string_table = b.st.table;

	len = perftools__profiles__profile__get_packed_size(&b.prof);
	buf = xcalloc(len, 1);
	perftools__profiles__profile__pack(&b.prof, buf);
	struct out_file of;
	int fd;
	if (out_file_create(&of, path, "export") < 0) {
		rc = -1;
	} else if ((fd = dup(of.fd)) < 0 || !(gz = gzdopen(fd, "wb"))) {
		/* gzclose closes its own descriptor; the file's stays for commit */
		wpp_err("export: cannot write %s: %s", path, strerror(errno ? errno : ENOMEM));
		if (fd >= 0)
			close(fd);
		out_file_discard(&of);
		rc = -1;
	} else {
		if (len && gzwrite(gz, buf, (unsigned)len) != (int)len) {
			wpp_err("export: writing %s failed", path);
			rc = -1;
		}
		if (gzclose(gz) != Z_OK && rc == 0) {
			wpp_err("export: writing %s failed", path);
			rc = -1;
		}
		if (rc < 0)
			out_file_discard(&of);
		else if (out_file_commit(&of, "export") < 0)
			rc = -1;
	}
	free(buf);
	builder_free(&b);
	return rc;
}
