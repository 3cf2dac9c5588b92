/* SPDX-License-Identifier: MIT */
#include "bpfcollect/elfinfo.h"

#include "runtime/wpp_position.h"
#include "runtime/wpp_registry.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#define STAPSDT_NOTE_TYPE 3

/* A stapsdt note's descriptor: pc, base, semaphore (3 x 8 bytes), then
 * provider\0 name\0 args\0.  Sets the flag of a wpptrace probe it names. */
static void stapsdt_note(const char *desc, size_t descsz, struct elf_facts *out)
{
	if (descsz < 24 + 2)
		return;
	const char *end = desc + descsz;
	const char *provider = desc + 24;
	const char *pnul = memchr(provider, 0, end - provider);
	if (!pnul || strcmp(provider, "wpptrace") != 0)
		return;
	const char *name = pnul + 1;
	if (name >= end || !memchr(name, 0, end - name))
		return;
	if (strcmp(name, "batch") == 0)
		out->has_batch_probe = 1;
	else if (strcmp(name, "register") == 0)
		out->has_register_probe = 1;
	else if (strcmp(name, "thread") == 0)
		out->has_thread_probe = 1;
}

/* One walk over a note section for both kinds of note we read; they share
 * the type number 3, so the owner name tells them apart. */
static void scan_notes(Elf_Data *data, struct elf_facts *out)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;
	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const char *owner = (const char *)data->d_buf + name_off;
		const char *desc = (const char *)data->d_buf + desc_off;
		if (nh.n_type == STAPSDT_NOTE_TYPE && nh.n_namesz == sizeof("stapsdt") &&
		    memcmp(owner, "stapsdt", sizeof("stapsdt")) == 0) {
			stapsdt_note(desc, nh.n_descsz, out);
		} else if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == sizeof("GNU") &&
			   memcmp(owner, "GNU", sizeof("GNU")) == 0) {
			uint32_t len = nh.n_descsz < sizeof(out->build_id) ? nh.n_descsz
									   : sizeof(out->build_id);
			memcpy(out->build_id, desc, len);
			out->build_id_len = len;
		}
	}
}

/* Value of the runtime's registry symbol in a symbol table, if there. */
static void scan_symbols(Elf *e, Elf_Scn *s, const GElf_Shdr *sh, struct elf_facts *out)
{
	Elf_Data *data = elf_getdata(s, NULL);
	if (!data || !sh->sh_entsize)
		return;
	size_t n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		const char *name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (name && strcmp(name, WPP_REGISTRY_SYMBOL) == 0)
			out->registry_vaddr = sym.st_value;
		else if (name && strcmp(name, WPP_POSITIONS_SYMBOL) == 0)
			out->positions_vaddr = sym.st_value;
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
	for (Elf_Scn *s = elf_nextscn(e, NULL); s; s = elf_nextscn(e, s)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh))
			continue;
		if ((sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) && !out->registry_vaddr)
			scan_symbols(e, s, &sh, out);
		if (sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *data = elf_getdata(s, NULL);
		if (data && data->d_buf)
			scan_notes(data, out);
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return err;
}

/* Try dir/name for each ':'-separated dir of list ($ORIGIN = origin). */
static int search_dirs(const char *list, const char *origin, const char *name, char *out,
		       size_t size)
{
	while (list && *list) {
		size_t len = strcspn(list, ":");
		char dir[PATH_MAX];
		if (len < sizeof(dir)) {
			memcpy(dir, list, len);
			dir[len] = 0;
			char *o = strstr(dir, "$ORIGIN");
			char path[PATH_MAX * 2];
			if (o)
				snprintf(path, sizeof(path), "%.*s%s%s/%s", (int)(o - dir), dir,
					 origin, o + 7, name);
			else
				snprintf(path, sizeof(path), "%s/%s", dir, name);
			if (len && access(path, R_OK) == 0 && strlen(path) < size) {
				strcpy(out, path);
				return 0;
			}
		}
		list += len + (list[len] == ':');
	}
	return -ENOENT;
}

int elf_needed_path(const char *path, const char *prefix, char *out, size_t size)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	char needed[256] = "", *runpath = NULL;
	int err = -ENOENT, is_rpath = 0;
	for (Elf_Scn *s = e ? elf_nextscn(e, NULL) : NULL; s; s = elf_nextscn(e, s)) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize ||
		    !(data = elf_getdata(s, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn d;
			const char *str;
			if (!gelf_getdyn(data, (int)i, &d))
				break;
			if (d.d_tag != DT_NEEDED && d.d_tag != DT_RUNPATH && d.d_tag != DT_RPATH)
				continue;
			str = elf_strptr(e, sh.sh_link, d.d_un.d_val);
			if (!str)
				continue;
			if (d.d_tag == DT_NEEDED && !needed[0] &&
			    strncmp(str, prefix, strlen(prefix)) == 0 &&
			    strlen(str) < sizeof(needed) && !strchr(str, '/'))
				strcpy(needed, str);
			else if (d.d_tag == DT_RUNPATH || (d.d_tag == DT_RPATH && !runpath)) {
				/* DT_RUNPATH wins over DT_RPATH, as in the loader */
				free(runpath);
				runpath = strdup(str);
				is_rpath = d.d_tag == DT_RPATH;
			}
		}
	}
	if (needed[0]) {
		char *copy = strdup(path);
		const char *origin = copy ? dirname(copy) : ".";
		/* The loader's order: DT_RPATH before LD_LIBRARY_PATH, DT_RUNPATH
		 * after it (ld.so(8)). */
		const char *env = getenv("LD_LIBRARY_PATH");
		err = search_dirs(is_rpath ? runpath : env, origin, needed, out, size);
		if (err)
			err = search_dirs(is_rpath ? env : runpath, origin, needed, out, size);
		if (err)
			err = search_dirs("/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/"
					  "usr/lib64:/lib:"
					  "/usr/lib:/usr/local/lib",
					  origin, needed, out, size);
		free(copy);
	}
	free(runpath);
	if (e)
		elf_end(e);
	close(fd);
	return err;
}
