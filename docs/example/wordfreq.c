/*
 * wordfreq — the bundled example traced by scripts/example.
 * Counts words on stdin with a small open-addressing hash table, then prints
 * the most frequent ones.  Loops, branches, calls and a qsort callback give
 * the path tracer something to show.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	char *word;
	unsigned count;
};

static struct entry *table;
static size_t capacity = 1024, used;

static unsigned long hash_word(const char *s)
{
	unsigned long h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static void grow(void);

static void add_word(const char *w)
{
	if (2 * (used + 1) > capacity)
		grow();
	size_t i = hash_word(w) & (capacity - 1);
	while (table[i].word) {
		if (strcmp(table[i].word, w) == 0) {
			table[i].count++;
			return;
		}
		i = (i + 1) & (capacity - 1);
	}
	table[i].word = strdup(w);
	table[i].count = 1;
	used++;
}

static void grow(void)
{
	struct entry *old = table;
	size_t oldcap = capacity;

	capacity *= 2;
	table = calloc(capacity, sizeof(*table));
	used = 0;
	for (size_t i = 0; i < oldcap; i++) {
		if (!old[i].word)
			continue;
		size_t j = hash_word(old[i].word) & (capacity - 1);
		while (table[j].word)
			j = (j + 1) & (capacity - 1);
		table[j] = old[i];
		used++;
	}
	free(old);
}

static int by_count(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->word, y->word);
}

int main(int argc, char **argv)
{
	int top = argc > 1 ? atoi(argv[1]) : 10;
	char word[64];
	size_t len = 0;
	int c;

	table = calloc(capacity, sizeof(*table));
	while ((c = getchar()) != EOF) {
		if (isalpha(c) && len + 1 < sizeof(word)) {
			word[len++] = (char)tolower(c);
		} else if (len) {
			word[len] = 0;
			add_word(word);
			len = 0;
		}
	}
	if (len) {
		word[len] = 0;
		add_word(word);
	}
	struct entry *list = malloc((used ? used : 1) * sizeof(*list));
	size_t n = 0;
	for (size_t i = 0; i < capacity; i++)
		if (table[i].word)
			list[n++] = table[i];
	qsort(list, n, sizeof(*list), by_count);
	for (size_t i = 0; i < n && (int)i < top; i++)
		printf("%7u %s\n", list[i].count, list[i].word);
	printf("%zu distinct words\n", n);
	return 0;
}
