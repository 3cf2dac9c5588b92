/* SPDX-License-Identifier: MIT */
/*
 * load.c — bc_open/bc_close: size and load the BPF object (through its
 * generated loader, gen_load.h, or libbpf's ordinary load), create one
 * batch ring per possible CPU inside the ARRAY_OF_MAPS, attach the sched
 * tracepoints, and say plainly what is missing when any of it fails.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bpfcollect/bc_internal.h"
#include "bpfcollect/gen_load.h"
#include "bpfcollect/kernel_btf.h"
#include "bpfcollect/multi_attach.h"
#include "bpfcollect/warm_heap.h"
#include "common/log.h"
#include "wpp_transport.skel.h"

#define SHM_HINT "; use --transport=shm instead"

/* libbpf's own chatter is for -v -v; the library prints its own one-line
 * diagnosis instead. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (wpp_verbosity < 2 || level == LIBBPF_DEBUG)
		return 0;
	fputs("wpptrace: libbpf: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

static void explain_failure(const char *what, int err)
{
	if (err == -EPERM || err == -EACCES)
		wpp_err("BPF transport: %s: permission denied (needs root or CAP_BPF and "
			"CAP_PERFMON)" SHM_HINT,
			what);
	else if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		wpp_err(
		    "BPF transport: %s: the kernel has no BTF (/sys/kernel/btf/vmlinux)" SHM_HINT,
		    what);
	else if (err == -EINVAL || err == -ENOTSUP || err == -EOPNOTSUPP || err == -ENOENT)
		wpp_err("BPF transport: %s: the kernel lacks a needed BPF feature (ring buffers in "
			"map-in-map, "
			"bpf_loop, BTF tracepoints or USDT/uprobes): %s" SHM_HINT,
			what, strerror(-err));
	else
		wpp_err("BPF transport: %s: %s" SHM_HINT, what, strerror(-err));
}

static int is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

int bc_ring_size_valid(uint32_t ring_bytes)
{
	return is_pow2(ring_bytes) && ring_bytes >= (uint64_t)sysconf(_SC_PAGESIZE);
}

/* A record of record_words words must fit twice in the ring (and stay
 * under the largest record the BPF side copies). */
static int record_fits_twice(uint32_t ring_bytes, uint32_t record_words)
{
	return record_words <= BC_MAX_RECORD_WORDS &&
	       (sizeof(struct wpp_brec_batch) + (uint64_t)record_words * 8) * 2 <= ring_bytes;
}

/* The record_words a ring works with: the given one, or (0) the default,
 * which shrinks to fit a small ring (a record must fit twice). */
static uint32_t ring_record_words(uint32_t ring_bytes, uint32_t record_words)
{
	if (record_words)
		return record_words;
	record_words = BC_DEFAULT_RECORD_WORDS;
	while (record_words > 64 &&
	       (sizeof(struct wpp_brec_batch) + (uint64_t)record_words * 8) * 2 > ring_bytes)
		record_words /= 2;
	return record_words;
}

/* Ring space a batch of nwords words takes: publish() in
 * bpf/wpp_transport.bpf.c reserves it as ceil(nwords / record_words)
 * records (an empty batch still takes one), each a struct wpp_brec_batch
 * and its words behind the kernel's 8-byte record header, 8-byte aligned. */
static uint64_t batch_ring_bytes(uint64_t nwords, uint32_t record_words)
{
	uint64_t head = (BPF_RINGBUF_HDR_SZ + sizeof(struct wpp_brec_batch) + 7) & ~7ull;
	uint64_t full = nwords / record_words, rest = nwords % record_words;
	uint64_t bytes = full * (head + (uint64_t)record_words * 8);
	if (rest || !nwords)
		bytes += head + rest * 8;
	return bytes;
}

/*
 * A ring too small for one batch loses every such batch, under either
 * --ring-full policy: publish() reserves all the records of a batch one
 * after the other inside the probe, where nothing waits for the collector
 * (it may drain meanwhile, but nothing makes it), and the kernel refuses a
 * reservation that would put the producer ring_bytes or more ahead of the
 * consumer (kernel/bpf/ringbuf.c, __bpf_ringbuf_reserve: "ringbuf_size - 1
 * ahead").  Back-pressure stops a process only after its batch was copied,
 * so it cannot help either.  Hence: the records of the batch must total
 * less than the ring, with the ring empty.
 */
int bc_ring_fits_batch(uint32_t ring_bytes, uint32_t record_words, uint64_t nwords)
{
	if (!bc_ring_size_valid(ring_bytes))
		return -1;
	record_words = ring_record_words(ring_bytes, record_words);
	if (!record_fits_twice(ring_bytes, record_words))
		return -1;
	return batch_ring_bytes(nwords, record_words) < ring_bytes;
}

uint32_t bc_ring_min_bytes(uint32_t record_words, uint64_t nwords)
{
	for (uint64_t ring = (uint64_t)sysconf(_SC_PAGESIZE); ring <= (1u << 31); ring *= 2)
		if (bc_ring_fits_batch((uint32_t)ring, record_words, nwords) == 1)
			return (uint32_t)ring;
	return 0;
}

static int check_options(struct bc_options *o)
{
	if (!o->ring_bytes)
		o->ring_bytes = BC_DEFAULT_RING_BYTES;
	if (!o->max_threads)
		o->max_threads = 65536;
	if (!bc_ring_size_valid(o->ring_bytes)) {
		wpp_err("BPF ring size %u must be a power of two of at least %ld bytes",
			o->ring_bytes, sysconf(_SC_PAGESIZE));
		return -EINVAL;
	}
	o->record_words = ring_record_words(o->ring_bytes, o->record_words);
	if (!record_fits_twice(o->ring_bytes, o->record_words)) {
		wpp_err("BPF record of %u words does not fit twice in a %u-byte ring",
			o->record_words, o->ring_bytes);
		return -EINVAL;
	}
	return 0;
}

static int batch_record_cb(void *ctx, void *data, size_t size)
{
	struct bc_collector *c = ctx;
	pthread_mutex_lock(&c->lock);
	demux_batch_record(c, data, size);
	pthread_mutex_unlock(&c->lock);
	/* A stopped producer goes on as soon as the rings are down to the
	 * resume mark, not once this drain has emptied them: what is left
	 * keeps the collector busy while the producer wakes (pause.c). */
	pause_resume(c, false);
	return 0;
}

/* Runs inside lifecycle_drain(), whose callers hold the lock. */
static int lifecycle_record_cb(void *ctx, void *data, size_t size)
{
	lifecycle_record(ctx, data, size);
	return 0;
}

/* One ring per possible CPU, created before load (in the ordinary load,
 * ring 0 is the template the outer map is made with; a generated loader
 * makes the outer map on the object's one-page template). */
static int create_ring_fds(struct bc_collector *c)
{
	c->ring_fds = malloc(c->ncpus * sizeof(int));
	if (!c->ring_fds)
		return -ENOMEM;
	for (int cpu = 0; cpu < c->ncpus; cpu++)
		c->ring_fds[cpu] = -1;
	for (int cpu = 0; cpu < c->ncpus; cpu++) {
		int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, NULL, 0, 0, c->opt.ring_bytes, NULL);
		if (fd < 0)
			return -errno;
		c->ring_fds[cpu] = fd;
	}
	return 0;
}

/*
 * The outer map of rings is filled from user space, and the kernel waits
 * for an RCU grace period after every update of a map of maps from user
 * space (maybe_wait_bpf_programs): 5-15 ms on a quiet machine, 60 ms and
 * more on a busy one, per update.  So the rings go in with one batch
 * update (one wait, whatever the number of CPUs), before anything is
 * attached.  In the ordinary load the collector creates the outer map
 * itself and fills it on a thread of its own while libbpf loads and the
 * kernel verifies the programs (ring_install_finish waits for it); after a
 * generated loader, which makes the outer map, load_object fills it at
 * once.  A kernel without batch updates for this map type gets them one by
 * one.
 */
struct ring_install {
	int outer_fd;
	const int *ring_fds;
	int ncpus;
	int err;
	bool running;
	pthread_t tid;
};

static int install_rings(struct ring_install *ri)
{
	uint32_t *keys = malloc(ri->ncpus * sizeof(*keys)), count = ri->ncpus;
	int err = 0;
	if (!keys)
		return -ENOMEM;
	for (int cpu = 0; cpu < ri->ncpus; cpu++)
		keys[cpu] = cpu;
	if (bpf_map_update_batch(ri->outer_fd, keys, ri->ring_fds, &count, NULL) != 0 ||
	    count != (uint32_t)ri->ncpus)
		for (int cpu = 0; cpu < ri->ncpus && !err; cpu++)
			if (bpf_map_update_elem(ri->outer_fd, &keys[cpu], &ri->ring_fds[cpu],
						BPF_ANY))
				err = -errno;
	free(keys);
	return err;
}

static void *install_rings_thread(void *arg)
{
	struct ring_install *ri = arg;
	ri->err = install_rings(ri);
	return NULL;
}

/* Create the outer map (ring 0 is its inner-map template) and start
 * filling it.  -errno if the map cannot be created. */
static int ring_install_start(struct ring_install *ri, const int *ring_fds, int ncpus)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo, .inner_map_fd = ring_fds[0]);
	*ri = (struct ring_install){.ring_fds = ring_fds, .ncpus = ncpus};
	ri->outer_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "batch_rings", sizeof(uint32_t),
				      sizeof(int), ncpus, &mo);
	if (ri->outer_fd < 0)
		return -errno;
	if (pthread_create(&ri->tid, NULL, install_rings_thread, ri) == 0)
		ri->running = true;
	else
		ri->err = install_rings(ri);
	return 0;
}

/* Wait for the rings to be in; closes our descriptor of the outer map
 * (the BPF object holds its own).  0 or -errno. */
static int ring_install_finish(struct ring_install *ri)
{
	if (ri->running)
		pthread_join(ri->tid, NULL);
	ri->running = false;
	if (ri->outer_fd >= 0)
		close(ri->outer_fd);
	ri->outer_fd = -1;
	return ri->err;
}

static int create_rings(struct bc_collector *c)
{
	c->rbs = calloc(c->opt.drain_threads, sizeof(*c->rbs));
	if (!c->rbs)
		return -ENOMEM;
	for (int cpu = 0; cpu < c->ncpus; cpu++) {
		int fd = c->ring_fds[cpu];
		/* CPUs are spread over the drain threads round-robin. */
		struct ring_buffer **rb = &c->rbs[cpu % c->opt.drain_threads];
		int err = 0;
		if (!*rb)
			*rb = ring_buffer__new(fd, batch_record_cb, c, NULL);
		else
			err = ring_buffer__add(*rb, fd, batch_record_cb, c);
		if (!*rb || err) {
			explain_failure("setting up ring buffer polling", -errno);
			return -errno;
		}
	}
	c->lc_rb = ring_buffer__new(bpf_map__fd(c->skel->maps.lifecycle_ring), lifecycle_record_cb,
				    c, NULL);
	if (!c->lc_rb) {
		explain_failure("setting up the lifecycle ring", -errno);
		return -errno;
	}
	return 0;
}

/* What the sched tracepoints of this kernel offer: sched_prepare_exec
 * (Linux 6.10+) and group_dead in sched_process_exit (6.16+), whose
 * btf_trace_sched_process_exit points to (void *, struct task_struct *[,
 * bool group_dead]).  From one walk of the kernel's BTF (kernel_btf.h);
 * libbpf's model of it (a tenth of a second or more per load) only when
 * that walk cannot answer. */
struct sched_tps {
	int prepare_exec;
	int exit_group_dead;
};

static int libbpf_tp_args(const struct btf *vmlinux, const char *tp)
{
	char name[128];
	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	int id = vmlinux ? btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF) : -1;
	const struct btf_type *t = id > 0 ? btf__type_by_id(vmlinux, id) : NULL;
	if (t)
		t = btf__type_by_id(vmlinux, t->type);
	if (t && btf_is_ptr(t))
		t = btf__type_by_id(vmlinux, t->type);
	return t && btf_is_func_proto(t) ? btf_vlen(t) : 0;
}

static struct sched_tps sched_tracepoints(void)
{
	struct kernel_btf kb;
	int prep = -1, exit_args = -1;
	if (kernel_btf_open(&kb, NULL) == 0) {
		prep = kernel_btf_tp_args(&kb, "sched_prepare_exec");
		exit_args = kernel_btf_tp_args(&kb, "sched_process_exit");
		kernel_btf_close(&kb);
	}
	if (prep < 0 || exit_args < 0) {
		struct btf *vmlinux = btf__load_vmlinux_btf();
		prep = libbpf_tp_args(vmlinux, "sched_prepare_exec");
		exit_args = libbpf_tp_args(vmlinux, "sched_process_exit");
		btf__free(vmlinux);
	}
	return (struct sched_tps){.prepare_exec = prep > 0, .exit_group_dead = exit_args == 3};
}

static int attach_tracepoints(struct bc_collector *c)
{
	struct bpf_program *progs[] = {c->skel->progs.wpp_fork, c->skel->progs.wpp_exec,
				       c->skel->progs.wpp_exit, c->skel->progs.wpp_prepare_exec};
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		if (!bpf_program__autoload(progs[i]))
			continue;
		if (c->gen) { /* libbpf cannot attach what it did not load */
			int fd = bpf_raw_tracepoint_open(NULL, gen_load_prog_fd(c->gen, progs[i]));
			int err = fd < 0 ? -errno : multi_links_keep(&c->multi, fd);
			if (err) {
				explain_failure("attaching the sched tracepoints", err);
				return err;
			}
			continue;
		}
		struct bpf_link *l = bpf_program__attach(progs[i]);
		if (!l) {
			explain_failure("attaching the sched tracepoints", -errno);
			return -errno;
		}
		c->links[c->nlinks++] = l;
	}
	return 0;
}

/* libbpf's ordinary load reads the kernel's BTF (the CO-RE relocations,
 * the tp_btf targets, the kfunc): two buffers of the file's size and an
 * index of its types (~0.5 MB here), kept off 4 KB page faults
 * (warm_heap.h).  A generated loader needs none of it. */
static void warm_heap_for_btf(void)
{
	struct stat st;
	if (stat("/sys/kernel/btf/vmlinux", &st) != 0 || st.st_size <= 0 || st.st_size > (64 << 20))
		return;
	size_t bytes = 2 * (size_t)st.st_size + (3u << 20);
	int err = warm_heap_prepare(bytes);
	if (wpp_verbosity >= 2)
		wpp_info("bpf: %zu bytes of heap faulted in ahead for libbpf's BTF: %s", bytes,
			 err ? strerror(-err) : "ok");
}

/* Load and verify the programs with the rings going into the outer map
 * meanwhile (ring_install).  0, or -errno after one line. */
static int load_programs(struct bc_collector *c)
{
	struct ring_install ri;
	int err = ring_install_start(&ri, c->ring_fds, c->ncpus);
	if (err) {
		explain_failure("creating the per-CPU ring buffers", err);
		return err;
	}
	err = bpf_map__reuse_fd(c->skel->maps.batch_rings, ri.outer_fd);
	if (err) {
		ring_install_finish(&ri);
		explain_failure("creating the per-CPU ring buffers", err);
		return err;
	}
	err = wpp_transport__load(c->skel);
	int installed = ring_install_finish(&ri);
	if (err) {
		explain_failure("loading the BPF programs", err);
		return err;
	}
	if (installed)
		explain_failure("installing the per-CPU ring buffers", installed);
	return installed;
}

/* The probes go behind one uprobe_multi link per object when this kernel
 * has them (multi_attach.h), unless WPP_BPF_UPROBE_MULTI=0 asks for the
 * libbpf links (to compare, and to test that way in).  Either way -v says
 * which. */
static void multi_setup(struct bc_collector *c)
{
	const char *env = getenv("WPP_BPF_UPROBE_MULTI");
	int err = env && strcmp(env, "0") == 0 ? -ECANCELED : multi_kernel_support();
	c->multi_ok = err == 0;
	/* "per-object": the program loaded, every object refused (a test of
	 * what an object whose sites cannot be described gets). */
	c->multi_refused = c->multi_ok && env && strcmp(env, "per-object") == 0;
	if (wpp_verbosity < 2)
		return;
	if (err == -ECANCELED)
		wpp_info("bpf: WPP_BPF_UPROBE_MULTI=0: a uprobe link per probe");
	else if (err)
		wpp_info("bpf: no uprobe_multi links on this kernel (%s): a uprobe link per probe",
			 strerror(-err));
	else if (c->multi_refused)
		wpp_info("bpf: WPP_BPF_UPROBE_MULTI=per-object: every object a uprobe link per "
			 "probe");
	else
		wpp_info("bpf: one uprobe_multi link per object");
}

/* wpp_batch, wpp_register, wpp_thread_pos: the programs libbpf attaches a
 * USDT link per probe with, for objects without a uprobe_multi link. */
static bool is_per_probe(const struct wpp_transport *s, const struct bpf_program *p)
{
	return p == s->progs.wpp_batch || p == s->progs.wpp_register ||
	       p == s->progs.wpp_thread_pos;
}

/* The object's settings for this collection and kernel, before it loads.
 * by_loader: the per-probe programs stay out (bc_probe_programs) and the
 * loader creates the outer map of rings, one slot per CPU.  0 or libbpf's
 * -errno. */
static int configure(struct bc_collector *c, struct sched_tps tps, bool by_loader)
{
	struct wpp_transport *s = c->skel;
	s->rodata->record_words = c->opt.record_words;
	s->rodata->filter_pids = c->opt.filter_pids;
	/* Holding execs is for the processes we were asked to trace; -a
	 * would stop every new program on the machine. */
	s->rodata->hold_unseen_exec = c->opt.filter_pids && c->opt.attach_on_exec;
	/* Back-pressure marks: stop producers at half a ring (the other half
	 * takes what is published before the stops land), continue them at an
	 * eighth (what is left keeps the drain busy while they wake up). */
	if (!c->opt.drop_when_full) {
		s->rodata->pause_fill = c->opt.ring_bytes / 2;
		c->pause.resume_fill = c->opt.ring_bytes / 8;
	}
	/* sched_prepare_exec is Linux 6.10+: without it an exec salvages
	 * nothing (what a handler that execs interrupted is then lost, as are
	 * words an exec the runtime did not see left). */
	if (!tps.prepare_exec)
		bpf_program__set_autoload(s->progs.wpp_prepare_exec, false);
	s->rodata->exit_passes_group_dead = tps.exit_group_dead;
	int err = bpf_map__set_max_entries(s->maps.threads, c->opt.max_threads);
	if (!err)
		err = bpf_map__set_max_entries(s->maps.positions, c->opt.max_threads);
	if (!err)
		err = multi_program_prepare(s->progs.wpp_usdt_multi, c->multi_ok);
	if (!err && by_loader)
		err = bpf_map__set_max_entries(s->maps.batch_rings, (uint32_t)c->ncpus);
	struct bpf_program *p;
	bpf_object__for_each_program(p, s->obj)
	{
		if (!err && by_loader && is_per_probe(s, p))
			err = bpf_program__set_autoload(p, false);
	}
	return err;
}

/* The tracepoints of the newest kernels (6.16+), which a generated loader
 * assumes first: the walk of the kernel's BTF that says what this kernel
 * has (sched_tracepoints, ~3 ms of a `record`'s start-up) is needed only
 * when the loader fails.  On an older kernel it does: sched_prepare_exec
 * (6.10+) has no attach target there, and the verifier refuses wpp_exit's
 * read of group_dead from a sched_process_exit that does not pass it. */
static const struct sched_tps newest_tps = {.prepare_exec = 1, .exit_group_dead = 1};

static bool same_tps(struct sched_tps a, struct sched_tps b)
{
	return a.prepare_exec == b.prepare_exec && a.exit_group_dead == b.exit_group_dead;
}

/* A spent object (libbpf loads an object once) opened again.  0 or -errno
 * after one line. */
static int reopen_object(struct bc_collector *c)
{
	wpp_transport__destroy(c->skel);
	c->skel = wpp_transport__open();
	if (c->skel)
		return 0;
	int err = -errno; /* explain_failure's calls may change errno */
	explain_failure("opening the BPF object", err);
	return err;
}

/* Configure and load the object through its generated loader, then fill
 * the outer map of rings.  0; -errno and *failed (the object is then
 * spent) when the loader failed; or -errno after one line. */
static int load_by_loader(struct bc_collector *c, struct sched_tps tps, const char **failed)
{
	int err = configure(c, tps, true);
	if (err) {
		*failed = "configuring the object";
		return err;
	}
	if ((err = gen_load(c->skel->obj, &c->gen, failed)))
		return err;
	/* One batch update while nothing is attached yet. */
	struct ring_install ri = {.outer_fd = bpf_map__fd(c->skel->maps.batch_rings),
				  .ring_fds = c->ring_fds,
				  .ncpus = c->ncpus};
	if ((err = install_rings(&ri))) {
		explain_failure("installing the per-CPU ring buffers", err);
		return err;
	}
	if (wpp_verbosity >= 2)
		wpp_info("bpf: programs loaded by their generated loader");
	return 0;
}

/* Load the object: through its generated loader when the probes go behind
 * uprobe_multi links, unless WPP_BPF_LOADER=0 asks for libbpf's ordinary
 * load (to compare); first as for the newest kernels, then, if that
 * fails, as the kernel's BTF says this one is; the ordinary load when the
 * loader still fails, from a fresh open.  -v says which.  *tps: what the
 * kernel's tracepoints were taken to be.  0, or -errno after one line. */
static int load_object(struct bc_collector *c, struct sched_tps *tps)
{
	const char *env = getenv("WPP_BPF_LOADER");
	bool by_loader = c->multi_ok && !(env && strcmp(env, "0") == 0);
	const char *failed;
	int err, loader_err;

	*tps = newest_tps;
	if (by_loader) {
		if (!(loader_err = load_by_loader(c, *tps, &failed)) || c->gen)
			return loader_err; /* loaded (or its rings failed, said) */
		if ((err = reopen_object(c)))
			return err;
		*tps = sched_tracepoints();
		if (!same_tps(*tps, newest_tps)) {
			if (wpp_verbosity >= 2)
				wpp_info(
				    "bpf: the generated loader failed (%s: %s); again with this "
				    "kernel's tracepoints",
				    failed, strerror(-loader_err));
			if (!(loader_err = load_by_loader(c, *tps, &failed)) || c->gen)
				return loader_err;
			if ((err = reopen_object(c)))
				return err;
		}
		if (wpp_verbosity >= 2)
			wpp_info(
			    "bpf: the generated loader failed (%s: %s): libbpf's ordinary load",
			    failed, strerror(-loader_err));
	} else {
		*tps = sched_tracepoints();
	}
	if ((err = configure(c, *tps, false))) {
		explain_failure("sizing the BPF maps", err);
		return err;
	}
	warm_heap_for_btf();
	return load_programs(c);
}

int bc_prog_fd(const struct bc_collector *c, const struct bpf_program *prog)
{
	int fd = bpf_program__fd(prog);
	return fd >= 0 || !c->gen ? fd : gen_load_prog_fd(c->gen, prog);
}

/* Under c->lock, as every attach: the drain threads wait for the load
 * (libbpf's ordinary load, the kernel's BTF read once more: about 0.1 s of
 * CPU), once per recording, and only for an object that cannot go behind
 * a uprobe_multi link.  A load that failed is not tried again: such
 * objects are then not attached, as they say. */
struct wpp_transport *bc_probe_programs(struct bc_collector *c)
{
	if (!c->gen)
		return c->skel;
	if (c->probe_skel || c->probe_skel_failed)
		return c->probe_skel;
	c->probe_skel_failed = 1; /* until it has loaded */
	struct wpp_transport *s = wpp_transport__open();
	if (!s) {
		int err = -errno;
		explain_failure("opening the BPF object", err);
		return NULL;
	}
	/* Every map is skel's: the rings, the tables and the globals (frozen
	 * .rodata with its values, .bss and .data) are shared. */
	struct bpf_map *m, *mine = NULL;
	int err = 0;
	bpf_object__for_each_map(m, s->obj)
	{
		mine = bpf_object__next_map(c->skel->obj, mine);
		if (!err)
			err = mine ? bpf_map__reuse_fd(m, bpf_map__fd(mine)) : -EINVAL;
	}
	struct bpf_program *p;
	bpf_object__for_each_program(p, s->obj)
	{
		if (!err)
			err = bpf_program__set_autoload(p, is_per_probe(s, p));
	}
	if (!err) {
		warm_heap_for_btf();
		err = wpp_transport__load(s);
	}
	if (err) {
		explain_failure("loading the per-probe BPF programs", err);
		wpp_transport__destroy(s);
		return NULL;
	}
	if (wpp_verbosity >= 2)
		wpp_info(
		    "bpf: per-probe programs loaded for an object without a uprobe_multi link");
	c->probe_skel = s;
	c->probe_skel_failed = 0;
	return s;
}

struct bc_collector *bc_open(const struct bc_options *opt, const struct bc_callbacks *cb)
{
	struct bc_collector *c = calloc(1, sizeof(*c));
	if (!c) {
		wpp_err("out of memory");
		return NULL;
	}
	c->opt = *opt;
	c->cb = *cb;
	c->hello_fd = -1;
	c->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->pause.lock, NULL);
	c->ncpus = libbpf_num_possible_cpus();
	if (c->ncpus <= 0) {
		wpp_err("cannot count possible CPUs: %s", strerror(-c->ncpus));
		goto fail;
	}
	if (check_options(&c->opt))
		goto fail;
	if (!c->opt.filter_pids)
		c->opt.attach_on_exec = true;
	libbpf_set_print(libbpf_print);

	/* A drain thread per CPU ring by default: each ring has a consumer
	 * of its own, woken by its own epoll. */
	if (!c->opt.drain_threads || c->opt.drain_threads > (uint32_t)c->ncpus)
		c->opt.drain_threads = c->ncpus;

	c->skel = wpp_transport__open();
	if (!c->skel) {
		explain_failure("opening the BPF object", -errno);
		goto fail;
	}
	int err = create_ring_fds(c);
	if (err) {
		explain_failure("creating the per-CPU ring buffers", err);
		goto fail;
	}
	multi_setup(c);
	struct sched_tps tps;
	if (load_object(c, &tps))
		goto fail;
	if (!tps.prepare_exec && wpp_verbosity >= 2)
		wpp_info("bpf: this kernel has no sched_prepare_exec tracepoint: words a "
			 "thread had not published when it exec'd are not salvaged");
	c->links_cap = 16;
	c->links = calloc(c->links_cap, sizeof(*c->links));
	if (!c->links || create_rings(c) || attach_tracepoints(c))
		goto fail;
	err = pause_setup(c);
	if (err) {
		explain_failure("mapping the ring positions", err);
		goto fail;
	}
	return c;
fail:
	bc_close(c);
	return NULL;
}

static void free_proc(uint64_t key, void *val, void *arg)
{
	(void)key, (void)arg;
	proc_free(val);
}

static void free_stream(uint64_t key, void *val, void *arg)
{
	(void)key;
	struct bc_stream *s = val;
	hold_free(arg, s);
	while (s->held) {
		struct bc_item *it = s->held;
		s->held = it->next;
		free(it);
	}
	free(s);
}

static void free_plain(uint64_t key, void *val, void *arg)
{
	(void)key, (void)arg;
	free(val);
}

void bc_effective_options(const struct bc_collector *c, struct bc_options *out)
{
	*out = c->opt;
}

void bc_set_extension(struct bc_collector *c, const struct bc_extension *ext)
{
	c->ext = *ext;
}

int bc_traced_pids_fd(struct bc_collector *c)
{
	return bpf_map__fd(c->skel->maps.traced_pids);
}

int bc_positions_fd(struct bc_collector *c)
{
	return bpf_map__fd(c->skel->maps.positions);
}

uint32_t bc_generation_locked(struct bc_collector *c, uint32_t pid)
{
	struct bc_proc *p = idmap_get(&c->procs, pid);
	return p ? p->generation : 0;
}

void bc_close(struct bc_collector *c)
{
	if (!c)
		return;
	if (c->started && !c->finished)
		bc_finish(c, NULL);
	hello_stop(c);
	detach_all(c);
	free(c->links);
	multi_links_free(&c->multi);
	/* Closed without bc_finish (a start that failed after attaching):
	 * nothing stopped may stay stopped. */
	if (c->skel && c->skel->bss)
		pause_resume(c, true);
	pause_teardown(c);
	for (uint32_t i = 0; c->rbs && i < c->opt.drain_threads; i++)
		ring_buffer__free(c->rbs[i]);
	ring_buffer__free(c->lc_rb);
	for (int i = 0; c->ring_fds && i < c->ncpus; i++)
		if (c->ring_fds[i] >= 0)
			close(c->ring_fds[i]);
	free(c->ring_fds);
	free(c->rbs);
	if (c->stop_fd >= 0)
		close(c->stop_fd);
	wpp_transport__destroy(c->probe_skel);
	wpp_transport__destroy(c->skel);
	gen_load_free(c->gen);
	idmap_each(&c->procs, free_proc, NULL);
	idmap_each(&c->streams, free_stream, c);
	idmap_each(&c->tids, free_plain, NULL);
	idmap_free(&c->procs);
	idmap_free(&c->streams);
	idmap_free(&c->closed_lossy);
	idmap_free(&c->tids);
	idmap_each(&c->taken, free_plain, NULL);
	idmap_free(&c->taken);
	for (size_t i = 0; i < c->nattached; i++)
		free(c->attached[i]);
	free(c->attached);
	free(c->instrumented);
	free(c->threads);
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->pause.lock);
	free(c);
}
