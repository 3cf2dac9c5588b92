/* SPDX-License-Identifier: MIT */
/*
 * elf_object.c — open an ELF file with libelf, read the GNU build-id note
 * and locate the wpp_meta section.
 */
#include "symbolizer/elf_object.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wpp/meta_format.h"

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

void wpp_build_id_hex(const uint8_t *id, uint32_t len, char *buf, size_t buflen)
{
	size_t o = 0;

	if (buflen == 0)
		return;
	for (uint32_t i = 0; i < len && o + 3 <= buflen; i++, o += 2)
		snprintf(buf + o, 3, "%02x", id[i]);
	buf[o] = '\0';
}

/* Look for NT_GNU_BUILD_ID in one note section. */
static void read_build_id(struct wpp_elf_object *obj, Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	if (!data || !data->d_buf)
		return;
	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4) != 0)
			continue;
		if (nh.n_descsz == 0 || nh.n_descsz > WPP_BUILD_ID_MAX)
			continue;
		memcpy(obj->build_id, (const char *)data->d_buf + desc_off, nh.n_descsz);
		obj->build_id_len = nh.n_descsz;
		return;
	}
}

struct wpp_elf_object *wpp_elf_open(const char *path, char *err, size_t errlen)
{
	struct wpp_elf_object *obj;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	struct stat st;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		set_err(err, errlen, "libelf initialisation failed");
		return NULL;
	}
	/* O_NONBLOCK + regular-file check: a recorded path may name a FIFO or device. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		set_err(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		set_err(err, errlen, "not a regular file");
		close(fd);
		return NULL;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		set_err(err, errlen, "not an ELF object");
		goto fail;
	}
	if (elf_getshdrstrndx(elf, &shstrndx) != 0) {
		set_err(err, errlen, "bad ELF section header table: %s", elf_errmsg(-1));
		goto fail;
	}
	obj = calloc(1, sizeof(*obj));
	if (!obj || !(obj->path = strdup(path))) {
		free(obj);
		set_err(err, errlen, "out of memory");
		goto fail;
	}
	obj->fd = fd;
	obj->elf = elf;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_NOTE && obj->build_id_len == 0)
			read_build_id(obj, scn);
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && strcmp(name, WPP_META_SECTION) == 0 && sh.sh_type != SHT_NOBITS &&
		    !obj->meta) {
			Elf_Data *data;
			/* A linker run with --compress-debug-sections may compress
			 * any non-alloc section; libelf inflates it in place. */
			if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
				continue;
			data = elf_getdata(scn, NULL);
			if (data && data->d_buf && data->d_size) {
				obj->meta = data->d_buf;
				obj->meta_size = data->d_size;
			}
		}
	}
	return obj;
fail:
	if (elf)
		elf_end(elf);
	close(fd);
	return NULL;
}

void wpp_elf_close(struct wpp_elf_object *obj)
{
	if (!obj)
		return;
	elf_end(obj->elf);
	close(obj->fd);
	free(obj->path);
	free(obj);
}
