/* SPDX-License-Identifier: MIT */
/*
 * elfinfo.h — the few facts the collector needs from an ELF object on disk:
 * whether it carries wpptrace USDT probes (so system-wide mode attaches only
 * where it matters and never makes libbpf complain about other objects),
 * its GNU build-id, its first PT_LOAD address (for the load bias) and where
 * the runtime's registry symbol is (for attaching mid-run).
 * Files are hostile input: every read is bounds-checked by libelf.
 */
#ifndef WPP_BC_ELFINFO_H
#define WPP_BC_ELFINFO_H

#include <stddef.h>
#include <stdint.h>

/* The wpptrace probes an object can carry. */
enum elf_probe_kind {
	ELF_PROBE_BATCH = 1,
	ELF_PROBE_REGISTER = 2,
	ELF_PROBE_THREAD = 3,
};

/* One wpptrace probe site, as its stapsdt note describes it. */
struct elf_probe_site {
	enum elf_probe_kind kind;
	uint64_t file_offset; /* where a uprobe goes: the note's pc (corrected
				 by .stapsdt.base) in its executable segment */
	uint64_t semaphore;   /* the note's semaphore address, 0: none */
	char args[128];	      /* the argument string, e.g. "8@%rdi 8@%rsi" */
};

#define ELF_MAX_PROBE_SITES 32

struct elf_facts {
	int has_batch_probe;	/* wpptrace:batch note present */
	int has_register_probe; /* wpptrace:register note present */
	int has_thread_probe;	/* wpptrace:thread note present (position descriptors) */
	uint8_t build_id[20];
	uint32_t build_id_len;
	uint64_t first_load_vaddr; /* page-aligned p_vaddr of the first PT_LOAD */
	int is_dyn;		   /* ET_DYN (PIE or shared object) */
	uint64_t registry_vaddr;   /* link-time address of __wpp_registry, 0 if absent */
	uint64_t positions_vaddr;  /* link-time address of __wpp_positions, 0 if absent */
	/* The sites of the wpptrace probes, for attaching them without libbpf
	 * (user/bpfcollect/multi_attach.c).  sites_complete is 0 when a site
	 * could not be described (too many, an argument string too long, a
	 * pc outside every executable segment): then attach them with libbpf. */
	struct elf_probe_site sites[ELF_MAX_PROBE_SITES];
	uint32_t nsites;
	int sites_complete;
};

/* 0 or -errno (-ENOEXEC: not a readable ELF file). */
int elf_facts_read(const char *path, struct elf_facts *out);

/* Where the dynamic loader will find the library `path` needs whose name
 * starts with prefix (DT_NEEDED; searched like ld.so does: DT_RPATH or
 * DT_RUNPATH with $ORIGIN, LD_LIBRARY_PATH, the system directories; the
 * ld.so cache is not consulted).  0 or -ENOENT. */
int elf_needed_path(const char *path, const char *prefix, char *out, size_t size);

#endif
