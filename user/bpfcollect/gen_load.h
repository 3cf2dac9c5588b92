/* SPDX-License-Identifier: MIT */
/*
 * gen_load.h — loading a BPF object through a loader program that libbpf
 * generates for it (bpf_object__gen_loader, the mechanism of light
 * skeletons), at about a third of the CPU of bpf_object__load.
 *
 * Why: libbpf 1.1's bpf_object__load reads the kernel's BTF (5.4 MB from
 * sysfs in 4 KB reads, some 126 000 types indexed) and then scans it once
 * per CO-RE root type, per tracepoint target and per kfunc: most of the
 * ~70 ms of CPU a BPF `record` spent before its program ran, and every
 * `record` pays it again.  Generating a loader reads no kernel BTF: the
 * loader, run once with BPF_PROG_RUN, creates the maps and loads the
 * programs while the kernel resolves the CO-RE relocations, kfuncs and
 * attach targets from the BTF it already holds.  The maps and programs are
 * the same (types and sizes; programs' translated and JIT sizes, verified
 * instructions and attach ids compared on the project's kernel); the
 * figures are in docs/bpf-transport.md.
 *
 * After gen_load the object is as after a skeleton load, with one
 * exception: every map has its fd (given to libbpf with bpf_map__reuse_fd,
 * so bpf_map__fd and libbpf's map calls work) and the mmapped sections
 * (.data and .bss writable, .rodata and .kconfig read-only) are remapped
 * onto their maps at the skeleton's addresses; but libbpf knows no program
 * fd (1.1 cannot be told one).  gen_load_prog_fd gives them, and attaching
 * is the caller's, with the raw BPF commands: libbpf's attach helpers need
 * a program libbpf loaded itself.
 *
 * What it cannot take: a map whose fd was preset before the load (the
 * generator refuses the object).  An outer map of maps is created with the
 * inner template the object declares, and filled by the caller.
 */
#ifndef WPP_BC_GEN_LOAD_H
#define WPP_BC_GEN_LOAD_H

struct bpf_object;
struct bpf_program;
struct gen_load;

/* Load obj, opened and configured (.rodata, max_entries, autoload and
 * expected attach types as it must load), through its generated loader.
 * 0 and *out, or -errno and *failed, the step that failed (obj is then
 * spent: libbpf loads an object once; the caller opens it again to load it
 * the ordinary way, which says what is wrong). */
int gen_load(struct bpf_object *obj, struct gen_load **out, const char **failed);

/* The fd of prog as the loader loaded it, or -1 if it was not loaded. */
int gen_load_prog_fd(const struct gen_load *g, const struct bpf_program *prog);

/* Close the programs' fds (the maps' belong to the object now) and free
 * g; NULL is fine. */
void gen_load_free(struct gen_load *g);

#endif
