/* SPDX-License-Identifier: MIT */
/*
 * elf_object.h — the few facts the decoder needs from an ELF object on disk:
 * its GNU build-id and the bytes of its wpp_meta section.  Built on libelf;
 * the file is treated as hostile (libelf does the structural parsing, we
 * check every size it hands back).
 */
#ifndef WPP_SYMBOLIZER_ELF_OBJECT_H
#define WPP_SYMBOLIZER_ELF_OBJECT_H

#include <stddef.h>
#include <stdint.h>

#define WPP_BUILD_ID_MAX 20

struct wpp_elf_object {
	char *path;
	uint8_t build_id[WPP_BUILD_ID_MAX];
	uint32_t build_id_len; /* 0 when the object has no GNU build-id note */
	const void *meta;      /* wpp_meta section contents, or NULL if absent */
	size_t meta_size;
	/* private */
	int fd;
	void *elf;
};

/* Open path; NULL with a one-line reason in err. */
struct wpp_elf_object *wpp_elf_open(const char *path, char *err, size_t errlen);
void wpp_elf_close(struct wpp_elf_object *obj);

/* Lower-case hex of a build-id into buf (2 * len + 1 bytes). */
void wpp_build_id_hex(const uint8_t *id, uint32_t len, char *buf, size_t buflen);

#endif
