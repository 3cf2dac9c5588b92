/* SPDX-License-Identifier: MIT */
/*
 * test_files.c — the file rules of docs/security.md "Files": out_file.h
 * (fresh 0600 temporary, renamed into place; links refused; the previous
 * file kept until publish; a failed publish keeps the bytes), in_file.h
 * (non-regular inputs refused without blocking) and the .wpp reader's
 * answer to a file that shrinks while it is read (read() is wrapped here,
 * -Wl,--wrap=read, to truncate the file between the reader's fstat and its
 * read, deterministically).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/in_file.h"
#include "common/out_file.h"
#include "common/wppfile.h"

static char dir[64];

static const char *in_dir(const char *name)
{
	static char buf[4][128];
	static int next;
	char *p = buf[next++ % 4];
	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int has_text(const char *path, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strcmp(buf, text) == 0;
}

/* Entries of dir other than . and .. */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/wpp-test-files-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A new file: nothing at the name until publish, then mode 0600 whatever
 * the umask, and no temporary left. */
static void creates_private_file(void **state)
{
	const char *t = in_dir("new.out");
	struct out_file f;
	struct stat st;
	(void)state;
	mode_t old = umask(0);
	assert_int_equal(out_file_create(&f, t, "test"), 0);
	umask(old);
	assert_int_equal(write(f.fd, "data", 4), 4);
	assert_int_equal(access(t, F_OK), -1);
	assert_int_equal(out_file_commit(&f, "test"), 0);
	assert_int_equal(stat(t, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_true(has_text(t, "data"));
	assert_int_equal(entries(), 1);
	unlink(t);
}

/* An existing file keeps its bytes until publish, and for good when the
 * output is discarded; after publish it is a new inode (never reused). */
static void previous_file_kept_until_publish(void **state)
{
	const char *t = in_dir("old.out");
	struct out_file f;
	struct stat before, after;
	(void)state;
	write_text(t, "previous");
	chmod(t, 0666);
	assert_int_equal(stat(t, &before), 0);
	assert_int_equal(out_file_create(&f, t, NULL), 0);
	assert_int_equal(write(f.fd, "new", 3), 3);
	out_file_discard(&f);
	assert_true(has_text(t, "previous"));
	assert_int_equal(entries(), 1);

	assert_int_equal(out_file_create(&f, t, NULL), 0);
	FILE *fp = out_file_stdio(&f, NULL);
	assert_non_null(fp);
	fputs("new", fp);
	assert_int_equal(out_file_commit(&f, NULL), 0);
	assert_int_equal(stat(t, &after), 0);
	assert_int_not_equal(after.st_ino, before.st_ino);
	assert_int_equal(after.st_mode & 07777, 0600);
	assert_true(has_text(t, "new"));
	assert_int_equal(entries(), 1);
	unlink(t);
}

/* A symbolic link or a directory at the target: refused, untouched. */
static void link_and_directory_refused(void **state)
{
	const char *victim = in_dir("victim"), *link = in_dir("link"), *d = in_dir("d");
	struct out_file f;
	(void)state;
	write_text(victim, "keep");
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(out_file_create(&f, link, NULL), -1);
	assert_true(has_text(victim, "keep"));
	char target[128] = "";
	assert_true(readlink(link, target, sizeof(target) - 1) > 0);
	assert_string_equal(target, victim);
	/* a dangling link too: following it would create the file it names */
	unlink(victim);
	assert_int_equal(out_file_create(&f, link, NULL), -1);
	assert_int_equal(access(victim, F_OK), -1);
	unlink(link);
	assert_int_equal(mkdir(d, 0755), 0);
	assert_int_equal(out_file_create(&f, d, NULL), -1);
	rmdir(d);
	assert_int_equal(entries(), 0);
}

/* Our own FIFO is written in place (a consumer reads it); without a
 * reader the create fails at once instead of blocking. */
static void fifo_written_in_place(void **state)
{
	const char *t = in_dir("fifo");
	struct out_file f;
	char buf[8] = "";
	(void)state;
	assert_int_equal(mkfifo(t, 0600), 0);
	assert_int_equal(out_file_create(&f, t, NULL), -1); /* nobody reads it */
	int rd = open(t, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	assert_int_equal(out_file_create(&f, t, NULL), 0);
	assert_null(f.tmp);
	assert_int_equal(write(f.fd, "abc", 3), 3);
	assert_int_equal(out_file_commit(&f, NULL), 0);
	assert_int_equal(read(rd, buf, sizeof(buf)), 3);
	assert_string_equal(buf, "abc");
	close(rd);
	unlink(t);
}

/* A publish that fails (the name became a directory) keeps the bytes in
 * the temporary, which discard then leaves alone. */
static void failed_publish_keeps_bytes(void **state)
{
	const char *t = in_dir("later-dir");
	struct out_file f;
	(void)state;
	assert_int_equal(out_file_create(&f, t, NULL), 0);
	assert_int_equal(write(f.fd, "kept", 4), 4);
	assert_int_equal(mkdir(t, 0755), 0);
	assert_int_equal(out_file_publish(&f, NULL), -1);
	char *tmp = strdup(f.tmp);
	out_file_discard(&f);
	assert_true(has_text(tmp, "kept"));
	unlink(tmp);
	free(tmp);
	rmdir(t);
}

/* Inputs: a FIFO and a directory are refused without blocking. */
static void inputs_must_be_regular(void **state)
{
	const char *fifo = in_dir("in-fifo"), *reg = in_dir("in-reg");
	struct stat st;
	(void)state;
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(in_file_open(fifo, "", &st), -1);
	assert_int_equal(in_file_open(dir, NULL, &st), -1);
	write_text(reg, "x");
	int fd = in_file_open(reg, "", &st);
	assert_true(fd >= 0);
	assert_false(fcntl(fd, F_GETFL) & O_NONBLOCK);
	close(fd);
	assert_null(wppr_open(fifo));
	unlink(fifo);
	unlink(reg);
}

/* read(), wrapped: while shrink_path is set, the next read of a regular
 * file first cuts shrink_path to half its size (once). */
ssize_t __real_read(int fd, void *buf, size_t n);
static const char *shrink_path;
ssize_t __wrap_read(int fd, void *buf, size_t n)
{
	struct stat st;
	if (!shrink_path || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return __real_read(fd, buf, n);
	assert_int_equal(truncate(shrink_path, st.st_size / 2), 0);
	shrink_path = NULL;
	return __real_read(fd, buf, n);
}

static void reader_refuses_shrinking_file(void **state)
{
	const char *t = in_dir("shrinks.wpp");
	static unsigned char payload[1 << 16];
	struct wpp_chunk_end end = {0};
	(void)state;
	struct wpp_writer *w = wppw_open(t);
	assert_non_null(w);
	assert_int_equal(wppw_chunk(w, WPP_CHUNK_INFO, payload, sizeof(payload)), 0);
	assert_int_equal(wppw_close(w, &end), 0);
	struct wpp_reader *r = wppr_open(t);
	assert_non_null(r); /* whole: reads fine */
	wppr_close(r);
	shrink_path = t;
	assert_null(wppr_open(t));
	assert_null(shrink_path); /* the wrapper ran */
	unlink(t);
}

/* Readers of one unchanged file share one copy (report --html opens the
 * recording twice); a file changed since gets a copy of its own. */
static void readers_share_one_copy(void **state)
{
	const char *t = in_dir("shared.wpp");
	static unsigned char payload[4096];
	struct wpp_chunk_end end = {0};
	struct wpp_chunk a, b, c;
	(void)state;
	struct wpp_writer *w = wppw_open(t);
	assert_non_null(w);
	assert_int_equal(wppw_chunk(w, WPP_CHUNK_INFO, payload, sizeof(payload)), 0);
	assert_int_equal(wppw_close(w, &end), 0);

	struct wpp_reader *r1 = wppr_open(t), *r2 = wppr_open(t);
	assert_non_null(r1);
	assert_non_null(r2);
	assert_int_equal(wppr_next(r1, &a), 1);
	assert_int_equal(wppr_next(r2, &b), 1);
	assert_ptr_equal(a.payload, b.payload);
	wppr_close(r1);
	/* the copy lives on while a reader has it */
	assert_int_equal(memcmp(b.payload, payload, sizeof(payload)), 0);

	/* the file grows (a stored grammar): a reader opened now reads it anew */
	w = wppw_open_append(t);
	assert_non_null(w);
	assert_int_equal(wppw_chunk(w, WPP_CHUNK_GRAMMAR, payload, sizeof(payload)), 0);
	assert_int_equal(wppw_finish(w), 0);
	struct wpp_reader *r3 = wppr_open(t);
	assert_non_null(r3);
	assert_int_equal(wppr_next(r3, &c), 1);
	assert_ptr_not_equal(c.payload, b.payload);
	assert_int_equal(memcmp(c.payload, payload, sizeof(payload)), 0);
	wppr_close(r3);
	wppr_close(r2);
	unlink(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(creates_private_file),
	    cmocka_unit_test(previous_file_kept_until_publish),
	    cmocka_unit_test(link_and_directory_refused),
	    cmocka_unit_test(fifo_written_in_place),
	    cmocka_unit_test(failed_publish_keeps_bytes),
	    cmocka_unit_test(inputs_must_be_regular),
	    cmocka_unit_test(reader_refuses_shrinking_file),
	    cmocka_unit_test(readers_share_one_copy),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
