/* SPDX-License-Identifier: MIT */
#include "elfinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#define STAPSDT_NOTE_TYPE 3

/* A stapsdt note's descriptor: pc, base, semaphore (3 x 8 bytes), then
 * provider\0 name\0 args\0. */
static void scan_stapsdt(Elf_Data *data, struct elf_facts *out)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;
	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != STAPSDT_NOTE_TYPE || nh.n_descsz < 24 + 2)
			continue;
		const char *desc = (const char *)data->d_buf + desc_off;
		const char *end = desc + nh.n_descsz;
		const char *provider = desc + 24;
		const char *pnul = memchr(provider, 0, end - provider);
		if (!pnul || strcmp(provider, "wpptrace") != 0)
			continue;
		const char *name = pnul + 1;
		if (name >= end || !memchr(name, 0, end - name))
			continue;
		if (strcmp(name, "batch") == 0)
			out->has_batch_probe = 1;
		else if (strcmp(name, "register") == 0)
			out->has_register_probe = 1;
	}
}

static void scan_build_id(Elf_Data *data, struct elf_facts *out)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;
	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4) != 0)
			continue;
		uint32_t len = nh.n_descsz < sizeof(out->build_id) ? nh.n_descsz : sizeof(out->build_id);
		memcpy(out->build_id, (const char *)data->d_buf + desc_off, len);
		out->build_id_len = len;
	}
}

int elf_facts_read(const char *path, struct elf_facts *out)
{
	memset(out, 0, sizeof(*out));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	int err = 0;
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		err = -ENOEXEC;
		goto out;
	}
	out->is_dyn = eh.e_type == ET_DYN;
	size_t nphdr = 0;
	if (elf_getphdrnum(e, &nphdr) == 0) {
		for (size_t i = 0; i < nphdr; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD) {
				out->first_load_vaddr = ph.p_vaddr & ~(uint64_t)0xfff;
				break;
			}
		}
	}
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		goto out;
	for (Elf_Scn *s = elf_nextscn(e, NULL); s; s = elf_nextscn(e, s)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		const char *name = elf_strptr(e, shstrndx, sh.sh_name);
		Elf_Data *data = elf_getdata(s, NULL);
		if (!name || !data || !data->d_buf)
			continue;
		if (strcmp(name, ".note.stapsdt") == 0)
			scan_stapsdt(data, out);
		else
			scan_build_id(data, out);
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return err;
}
