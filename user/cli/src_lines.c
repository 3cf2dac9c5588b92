/* SPDX-License-Identifier: MIT */
/*
 * src_lines.c — source lines by file and number (src_lines.h): each file
 * read whole once with an index of its line starts, the least recently
 * used of SRC_FILES dropped for a new one.
 */
#include "cli/src_lines.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SRC_FILES     8
#define SRC_MAX_BYTES (16u << 20)

struct src_file {
	char *name;	/* NULL: empty slot */
	char *text;	/* NULL: unreadable (remembered, not retried) */
	size_t *starts; /* offset of each line */
	uint32_t nlines;
	uint64_t used; /* for dropping the least recently used */
	size_t size;
};

struct src_lines {
	struct src_file f[SRC_FILES];
	uint64_t clock;
};

struct src_lines *src_lines_new(void)
{
	return calloc(1, sizeof(struct src_lines));
}

static void drop(struct src_file *f)
{
	free(f->name);
	free(f->text);
	free(f->starts);
	*f = (struct src_file){0};
}

/* The file's text and line index; f->text stays NULL when it cannot be. */
static void load(struct src_file *f)
{
	int fd = open(f->name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > SRC_MAX_BYTES ||
	    !(f->text = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return;
	}
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, f->text + got, (size_t)st.st_size - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	f->text[got] = 0;
	f->size = got;
	uint32_t n = 1;
	for (size_t i = 0; i < got; i++)
		n += f->text[i] == '\n';
	if (!(f->starts = malloc(n * sizeof(*f->starts)))) {
		free(f->text);
		f->text = NULL;
		return;
	}
	f->starts[0] = 0;
	f->nlines = 1;
	for (size_t i = 0; i < got; i++)
		if (f->text[i] == '\n')
			f->starts[f->nlines++] = i + 1;
}

const char *src_lines_get(struct src_lines *s, const char *file, uint32_t line, size_t *len)
{
	struct src_file *f = NULL, *old = &s->f[0];

	for (int i = 0; i < SRC_FILES && !f; i++) {
		if (s->f[i].name && !strcmp(s->f[i].name, file))
			f = &s->f[i];
		else if (!s->f[i].name || s->f[i].used < old->used)
			old = &s->f[i];
	}
	if (!f) {
		drop(old);
		if (!(old->name = strdup(file)))
			return NULL;
		f = old;
		load(f);
	}
	f->used = ++s->clock;
	if (!f->text || line == 0 || line > f->nlines)
		return NULL;
	size_t a = f->starts[line - 1];
	size_t b = line < f->nlines ? f->starts[line] - 1 : f->size;
	*len = b - a;
	return f->text + a;
}

void src_lines_free(struct src_lines *s)
{
	if (!s)
		return;
	for (int i = 0; i < SRC_FILES; i++)
		drop(&s->f[i]);
	free(s);
}
