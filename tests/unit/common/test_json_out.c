/* SPDX-License-Identifier: MIT */
/* The JSON writer (json_out.h): commas, key quoting and escaping in both
 * spacings, line-per-member arrays, and an object written in two parts
 * (json_object_continued) giving the same bytes as written in one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/json_out.h"

struct mem {
	char *buf;
	size_t len;
	FILE *f;
};

static void mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
}

/* The text written, NUL-terminated (the caller frees it). */
static char *mem_close(struct mem *m)
{
	assert_int_equal(fclose(m->f), 0);
	return m->buf;
}

/* A document with every kind of member, in spacing spaced. */
static void write_sample(struct json_out *j)
{
	json_object(j, NULL);
	json_string(j, "s", "a\"b\\c\n\t\x01\x7f\xc3\xa9");
	json_string(j, "none", NULL);
	json_u64(j, "u", UINT64_MAX);
	json_i64(j, "i", INT64_MIN);
	json_bool(j, "t", 1);
	json_bool(j, "f", 0);
	json_null(j, "n");
	json_double(j, "d", "%.3f", 1.5);
	json_array(j, "a");
	json_u64(j, NULL, 1);
	json_object(j, NULL);
	json_close(j);
	json_array(j, NULL);
	json_close(j);
	json_close(j);
	json_close(j);
}

static void compact_and_spaced(void **state)
{
	struct mem m;
	struct json_out j;
	char *s;
	(void)state;

	mem_open(&m);
	json_init(&j, m.f, 0);
	write_sample(&j);
	s = mem_close(&m);
	assert_string_equal(s, "{\"s\":\"a\\\"b\\\\c\\n\\t\\u0001\\u007f\xc3\xa9\",\"none\":null,"
			       "\"u\":18446744073709551615,\"i\":-9223372036854775808,"
			       "\"t\":true,\"f\":false,\"n\":null,\"d\":1.500,\"a\":[1,{},[]]}");
	free(s);

	mem_open(&m);
	json_init(&j, m.f, 1);
	write_sample(&j);
	s = mem_close(&m);
	assert_string_equal(s,
			    "{\"s\": \"a\\\"b\\\\c\\n\\t\\u0001\\u007f\xc3\xa9\", \"none\": null, "
			    "\"u\": 18446744073709551615, \"i\": -9223372036854775808, "
			    "\"t\": true, \"f\": false, \"n\": null, \"d\": 1.500, "
			    "\"a\": [1, {}, []]}");
	free(s);
}

static void lines_and_next_comma(void **state)
{
	struct mem m;
	struct json_out j;
	char *s;
	(void)state;

	mem_open(&m);
	json_init(&j, m.f, 0);
	json_object(&j, NULL);
	json_array_lines(&j, "rows", ",", "\n");
	for (int i = 0; i < 3; i++) {
		json_array(&j, NULL);
		json_i64(&j, NULL, i);
		json_i64(&j, NULL, -i);
		json_close(&j);
	}
	json_raw(&j, "\n");
	json_close(&j);
	json_array(&j, "S");
	for (int i = 0; i < 5; i++) {
		if (i == 2 || i == 4)
			json_next_comma(&j, ",\n");
		json_u64(&j, NULL, (uint64_t)i);
	}
	json_close(&j);
	json_close(&j);
	s = mem_close(&m);
	assert_string_equal(s, "{\"rows\":[\n[0,0],\n[1,-1],\n[2,-2]\n],\"S\":[0,1,\n2,3,\n4]}");
	free(s);
}

/* A head and a body written apart (the body first, as the report page
 * does) concatenate to the document written in one piece. */
static void continued_object(void **state)
{
	struct mem whole, head, body;
	struct json_out j, h, b;
	char *sw, *sh, *sb;
	(void)state;

	mem_open(&whole);
	json_init(&j, whole.f, 0);
	json_object(&j, NULL);
	json_string(&j, "kind", "x");
	json_u64(&j, "n", 7);
	json_object(&j, "totals");
	json_u64(&j, "a", 1);
	json_close(&j);
	json_array(&j, "rows");
	json_close(&j);
	json_close(&j);
	sw = mem_close(&whole);

	mem_open(&body);
	json_init(&b, body.f, 0);
	json_object_continued(&b);
	json_object(&b, "totals");
	json_u64(&b, "a", 1);
	json_close(&b);
	json_array(&b, "rows");
	json_close(&b);
	json_close(&b);
	sb = mem_close(&body);
	assert_string_equal(sb, ",\"totals\":{\"a\":1},\"rows\":[]}");

	mem_open(&head);
	json_init(&h, head.f, 0);
	json_object(&h, NULL);
	json_string(&h, "kind", "x");
	json_u64(&h, "n", 7);
	sh = mem_close(&head);

	size_t lh = strlen(sh), lb = strlen(sb);
	char *cat = malloc(lh + lb + 1);
	assert_non_null(cat);
	memcpy(cat, sh, lh);
	memcpy(cat + lh, sb, lb + 1);
	assert_string_equal(cat, sw);
	free(cat);
	free(sw);
	free(sh);
	free(sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(compact_and_spaced),
	    cmocka_unit_test(lines_and_next_comma),
	    cmocka_unit_test(continued_object),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
