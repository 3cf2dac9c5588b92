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

/* What the notes say before the segments and .stapsdt.base are known:
 * sites hold the notes' pc in file_offset until elf_facts_read() turns it
 * into a file offset. */
struct note_scan {
	struct elf_facts *out;
	uint64_t note_base[ELF_MAX_PROBE_SITES]; /* the _.stapsdt.base each note saw */
};

/* A stapsdt note's descriptor: pc, base, semaphore (3 x 8 bytes), then
 * provider\0 name\0 args\0.  Sets the flag of a wpptrace probe it names and
 * records its site. */
static void stapsdt_note(const char *desc, size_t descsz, struct note_scan *ns)
{
	struct elf_facts *out = ns->out;
	if (descsz < 24 + 2)
		return;
	const char *end = desc + descsz;
	const char *provider = desc + 24;
	const char *pnul = memchr(provider, 0, end - provider);
	if (!pnul || strcmp(provider, "wpptrace") != 0)
		return;
	const char *name = pnul + 1;
	const char *nnul = name < end ? memchr(name, 0, end - name) : NULL;
	if (!nnul)
		return;
	enum elf_probe_kind kind;
	if (strcmp(name, "batch") == 0)
		out->has_batch_probe = 1, kind = ELF_PROBE_BATCH;
	else if (strcmp(name, "register") == 0)
		out->has_register_probe = 1, kind = ELF_PROBE_REGISTER;
	else if (strcmp(name, "thread") == 0)
		out->has_thread_probe = 1, kind = ELF_PROBE_THREAD;
	else
		return;
	const char *args = nnul + 1;
	const char *anul = args < end ? memchr(args, 0, end - args) : NULL;
	if (!anul || (size_t)(anul - args) >= sizeof(out->sites[0].args) ||
	    out->nsites == ELF_MAX_PROBE_SITES) {
		out->sites_complete = 0;
		return;
	}
	struct elf_probe_site *site = &out->sites[out->nsites];
	uint64_t addr[3];
	memcpy(addr, desc, sizeof(addr));
	site->kind = kind;
	site->file_offset = addr[0];
	ns->note_base[out->nsites] = addr[1];
	site->semaphore = addr[2];
	memcpy(site->args, args, anul - args + 1);
	out->nsites++;
}

/* One walk over a note section for both kinds of note we read; they share
 * the type number 3, so the owner name tells them apart. */
static void scan_notes(Elf_Data *data, struct note_scan *ns)
{
	struct elf_facts *out = ns->out;
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;
	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const char *owner = (const char *)data->d_buf + name_off;
		const char *desc = (const char *)data->d_buf + desc_off;
		if (nh.n_type == STAPSDT_NOTE_TYPE && nh.n_namesz == sizeof("stapsdt") &&
		    memcmp(owner, "stapsdt", sizeof("stapsdt")) == 0) {
			stapsdt_note(desc, nh.n_descsz, ns);
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

/* Each site's pc, moved as the object was (a prelinked object's notes
 * hold the base they were written with), as an offset in the file: in the
 * executable PT_LOAD segment that holds it, as uprobes are placed. */
static void sites_to_file_offsets(Elf *e, size_t nphdr, struct note_scan *ns, uint64_t stapsdt_base)
{
	struct elf_facts *out = ns->out;
	for (uint32_t i = 0; i < out->nsites; i++) {
		uint64_t pc = out->sites[i].file_offset;
		if (stapsdt_base && ns->note_base[i])
			pc += stapsdt_base - ns->note_base[i];
		int found = 0;
		for (size_t p = 0; p < nphdr && !found; p++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)p, &ph) || ph.p_type != PT_LOAD ||
			    !(ph.p_flags & PF_X) || pc < ph.p_vaddr ||
			    pc - ph.p_vaddr >= ph.p_filesz)
				continue;
			out->sites[i].file_offset = pc - ph.p_vaddr + ph.p_offset;
			found = 1;
		}
		if (!found)
			out->sites_complete = 0;
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
	struct note_scan ns = {.out = out};
	uint64_t stapsdt_base = 0;
	size_t shstrndx = 0;
	int have_shstrndx = elf_getshdrstrndx(e, &shstrndx) == 0;
	out->sites_complete = 1;
	for (Elf_Scn *s = elf_nextscn(e, NULL); s; s = elf_nextscn(e, s)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh))
			continue;
		if ((sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) && !out->registry_vaddr)
			scan_symbols(e, s, &sh, out);
		if (sh.sh_type == SHT_PROGBITS && have_shstrndx) {
			const char *name = elf_strptr(e, shstrndx, sh.sh_name);
			if (name && strcmp(name, ".stapsdt.base") == 0)
				stapsdt_base = sh.sh_addr;
		}
		if (sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *data = elf_getdata(s, NULL);
		if (data && data->d_buf)
			scan_notes(data, &ns);
	}
	sites_to_file_offsets(e, nphdr, &ns, stapsdt_base);
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
