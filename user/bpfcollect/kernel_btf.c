/* SPDX-License-Identifier: MIT */
/*
 * kernel_btf.c — see kernel_btf.h.  The BTF header says where the string
 * section is (linux/btf.h); its strings are NUL-terminated and the first
 * is empty, so "\0name\0" is an exact match of a whole string.
 */
#include "kernel_btf.h"

#include <fcntl.h>
#include <linux/btf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

static bool read_at(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, off + (off_t)done);
		if (n <= 0)
			return false;
		done += (size_t)n;
	}
	return true;
}

bool kernel_btf_has_name(const char *name)
{
	struct btf_header h;
	bool found = false;
	size_t nlen = strlen(name);
	int fd = open(VMLINUX_BTF, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	/* Sections are sized by the header; 256 MiB is far beyond any kernel's
	 * strings and keeps a malformed header from asking for more. */
	if (read_at(fd, &h, sizeof(h), 0) && h.magic == BTF_MAGIC && h.hdr_len >= sizeof(h) &&
	    h.str_len > 0 && h.str_len < (256u << 20) && nlen > 0) {
		char *s = malloc((size_t)h.str_len + 1);
		char *key = malloc(nlen + 2);
		if (s && key && read_at(fd, s, h.str_len, (off_t)h.hdr_len + h.str_off)) {
			s[h.str_len] = 0;
			key[0] = 0;
			memcpy(key + 1, name, nlen + 1);
			found = memmem(s, h.str_len + 1, key, nlen + 2) != NULL;
		}
		free(s);
		free(key);
	}
	close(fd);
	return found;
}
