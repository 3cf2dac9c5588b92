/* SPDX-License-Identifier: MIT */
/*
 * attach.c — where the probes go.  The batch/register USDT programs are
 * attached per ELF object for all processes (pid -1) and the BPF side
 * filters by the traced set, so forked children and later processes of an
 * already attached object need nothing more.  An object's probes go behind
 * one uprobe_multi link when the kernel has them (multi_attach.h: one
 * grace period to wait at the end instead of three), else a libbpf USDT
 * link per probe.  Objects are read once
 * (elfinfo.c) and attached only when they carry wpptrace probes.
 */
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfcollect/bc_internal.h"
#include "bpfcollect/close_later.h"
#include "bpfcollect/elfinfo.h"
#include "common/cpu_clock.h"
#include "common/log.h"
#include "bpfcollect/positions.h"
#include "bpfcollect/procinfo.h"
#include "wpp_transport.skel.h"

static int remember(char ***list, size_t *n, size_t *cap, const char *s)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		char **grown = realloc(*list, ncap * sizeof(**list));
		if (!grown)
			return -ENOMEM;
		*list = grown;
		*cap = ncap;
	}
	if (!((*list)[*n] = strdup(s)))
		return -ENOMEM;
	(*n)++;
	return 0;
}

static int keep_link(struct bc_collector *c, struct bpf_link *l)
{
	if (c->nlinks == c->links_cap) {
		size_t ncap = c->links_cap ? c->links_cap * 2 : 16;
		struct bpf_link **grown = realloc(c->links, ncap * sizeof(*grown));
		if (!grown) {
			bpf_link__destroy(l);
			return -ENOMEM;
		}
		c->links = grown;
		c->links_cap = ncap;
	}
	c->links[c->nlinks++] = l;
	return 0;
}

static int attach_probe(struct bc_collector *c, struct bpf_program *prog, const char *path,
			const char *name)
{
	struct bpf_link *l = bpf_program__attach_usdt(prog, -1, path, "wpptrace", name, NULL);
	if (!l) {
		int err = -errno;
		wpp_err("cannot attach to wpptrace:%s in %s: %s", name, path, strerror(-err));
		return err;
	}
	return keep_link(c, l);
}

/* All of the object's probe sites behind one uprobe_multi link, when this
 * kernel has them and the notes can be described (multi_attach.h).  0, or
 * non-zero: attach it a link per probe instead.  A kernel that refuses
 * the link is not asked again. */
static int attach_multi(struct bc_collector *c, const char *path, const struct elf_facts *f)
{
	if (!c->multi_ok || c->multi_refused)
		return -EOPNOTSUPP;
	int err =
	    multi_links_attach(&c->multi, bc_prog_fd(c, c->skel->progs.wpp_usdt_multi), path, f);
	if (err == -EOPNOTSUPP) {
		if (wpp_verbosity >= 2)
			wpp_info("bpf: %s: probe arguments not all in registers, or a semaphore: "
				 "a uprobe link per probe",
				 path);
	} else if (err && err != -ENOMEM) {
		c->multi_ok = 0;
		if (wpp_verbosity >= 2)
			wpp_info(
			    "bpf: the kernel refused a uprobe_multi link for %s (%s): a uprobe "
			    "link per probe from now on",
			    path, strerror(-err));
	}
	return err;
}

/* Tell the exec program this file has been looked at, so a traced process
 * exec'ing it is not held (wpp_brec_exec.held).  Best effort: a file
 * missing from the map only costs a stop and a continue. */
static void mark_exec_seen(struct bc_collector *c, const char *path)
{
	struct stat st;
	uint8_t one = 1;
	if (stat(path, &st) != 0)
		return;
	struct wpp_exe_key k = {(uint64_t)st.st_dev, (uint64_t)st.st_ino};
	bpf_map__update_elem(c->skel->maps.exec_seen, &k, sizeof(k), &one, sizeof(one), BPF_ANY);
}

int attach_object_locked(struct bc_collector *c, const char *path)
{
	for (size_t i = 0; i < c->nattached; i++)
		if (strcmp(c->attached[i], path) == 0)
			return c->instrumented[i] ? 0 : -ENOENT;
	struct elf_facts f;
	int err = elf_facts_read(path, &f);
	/* Attached below, or without probes: either way nothing to wait for
	 * (an attach that fails is not retried either). */
	mark_exec_seen(c, path);
	if (err == 0 && !f.has_batch_probe)
		err = -ENOENT;
	/* Remember failures too: system-wide mode meets the same
	 * uninstrumented objects over and over. */
	if (c->nattached == c->attached_cap) {
		uint8_t *grown =
		    realloc(c->instrumented, c->attached_cap ? c->attached_cap * 2 : 16);
		if (!grown)
			return -ENOMEM;
		c->instrumented = grown;
	}
	if (remember(&c->attached, &c->nattached, &c->attached_cap, path))
		return -ENOMEM;
	c->instrumented[c->nattached - 1] = 0;
	if (err)
		return err;
	const char *how = "one uprobe_multi link";
	if (attach_multi(c, path, &f) != 0) {
		how = "a uprobe link per probe";
		struct wpp_transport *s = bc_probe_programs(c);
		err = s ? attach_probe(c, s->progs.wpp_batch, path, "batch") : -ENOEXEC;
		if (!err && f.has_register_probe)
			err = attach_probe(c, s->progs.wpp_register, path, "register");
		/* Without it (a runtime older than the probe) nothing is salvaged
		 * from threads that end with words unpublished. */
		if (!err && f.has_thread_probe)
			err = attach_probe(c, s->progs.wpp_thread_pos, path, "thread");
	}
	if (!err) {
		c->instrumented[c->nattached - 1] = 1;
		if (wpp_verbosity >= 2) /* -v */
			wpp_info("bpf: attached to %s (%s)", path, how);
		if (c->ext.object_attached)
			c->ext.object_attached(c->ext.ctx, path);
	}
	return err;
}

int bc_attach_object(struct bc_collector *c, const char *path)
{
	char *real = realpath(path, NULL);
	if (!real) {
		int err = -errno;
		wpp_err("cannot attach to %s: %s", path, strerror(errno));
		return err;
	}
	pthread_mutex_lock(&c->lock);
	int err = attach_object_locked(c, real);
	pthread_mutex_unlock(&c->lock);
	free(real);
	return err;
}

struct mapping_ctx {
	struct bc_collector *c;
	int instrumented;
};

/* The executable and the libwpprt it loads; how many carry probes. */
int attach_program_locked(struct bc_collector *c, const char *real)
{
	char lib[4096];
	int found = attach_object_locked(c, real) == 0;
	if (elf_needed_path(real, "libwpprt", lib, sizeof(lib)) == 0) {
		char *reallib = realpath(lib, NULL);
		if (reallib)
			found += attach_object_locked(c, reallib) == 0;
		free(reallib);
	}
	return found;
}

int bc_attach_program(struct bc_collector *c, const char *path)
{
	char *real = realpath(path, NULL);
	if (!real)
		return -errno;
	pthread_mutex_lock(&c->lock);
	int found = attach_program_locked(c, real);
	pthread_mutex_unlock(&c->lock);
	free(real);
	return found ? 0 : -ENOENT;
}

static void attach_mapping(const char *path, void *arg)
{
	struct mapping_ctx *m = arg;
	if (attach_object_locked(m->c, path) == 0)
		m->instrumented++;
}

int attach_pid_mappings(struct bc_collector *c, pid_t pid)
{
	struct mapping_ctx m = {c, 0};
	proc_each_exec_mapping(pid, attach_mapping, &m);
	/* Its threads registered their positions before the probe was
	 * there. */
	if (m.instrumented)
		positions_catch_up((uint32_t)pid, bpf_map__fd(c->skel->maps.positions),
				   demux_note_taken, c);
	return m.instrumented;
}

struct announce_ctx {
	struct bc_collector *c;
	struct bc_proc *p;
};

static void announce_thread(pid_t tid, void *arg)
{
	struct announce_ctx *a = arg;
	thread_announce(a->c, a->p, (uint32_t)tid, monotonic_ns());
}

static int add_traced_pid(struct bc_collector *c, pid_t pid)
{
	uint32_t key = (uint32_t)pid;
	uint8_t one = 1;
	if (bpf_map__update_elem(c->skel->maps.traced_pids, &key, sizeof(key), &one, sizeof(one),
				 BPF_ANY)) {
		int err = -errno;
		wpp_err("cannot trace pid %d: %s", (int)pid, strerror(errno));
		return err;
	}
	return 0;
}

static void mark_traced(struct bc_collector *c, struct bc_proc *p)
{
	if (p && !p->traced) {
		p->traced = 1;
		c->live_traced++;
		c->ever_traced = 1;
		p->start_ticks = proc_start_time((pid_t)p->pid);
	}
}

/* The recorder's own child, before it execs: its exec record introduces it. */
static int trace_child(struct bc_collector *c, pid_t pid)
{
	int err = add_traced_pid(c, pid);
	if (err)
		return err;
	pthread_mutex_lock(&c->lock);
	struct bc_proc *p = proc_get(c, (uint32_t)pid, 0);
	if (!p && (p = proc_get(c, (uint32_t)pid, 1)))
		p->flags = 0;
	mark_traced(c, p);
	pthread_mutex_unlock(&c->lock);
	return p ? 0 : -ENOMEM;
}

/* A running process (-p): everything that can go wrong is one line, each
 * in one form: "-p PID (EXECUTABLE): what" (the executable unknown only
 * when the process is gone or its exe link cannot be read). */
static int trace_running(struct bc_collector *c, pid_t pid)
{
	char exe[4096], who[4200];
	int err = proc_exe(pid, exe, sizeof(exe));
	if (err == -ENOENT || (kill(pid, 0) < 0 && errno == ESRCH)) {
		wpp_err("-p %d: no such process", (int)pid);
		return -ESRCH;
	}
	if (err) {
		wpp_err("-p %d: not traceable: cannot read /proc/%d/exe: %s (needs ptrace rights "
			"over it: CAP_SYS_PTRACE, or the same user and a dumpable process)",
			(int)pid, (int)pid, strerror(-err));
		return err;
	}
	snprintf(who, sizeof(who), "-p %d (%s)", (int)pid, exe);
	pthread_mutex_lock(&c->lock);
	int objects = attach_pid_mappings(c, pid);
	pthread_mutex_unlock(&c->lock);
	if (objects == 0) {
		wpp_err("%s: not instrumented (no wpptrace probes in it or its libraries; build it "
			"with wppcc)",
			who);
		return -ENOENT;
	}
	if ((err = add_traced_pid(c, pid)))
		return err;
	pthread_mutex_lock(&c->lock);
	struct bc_proc *p = proc_get(c, (uint32_t)pid, 1);
	if (!p) {
		pthread_mutex_unlock(&c->lock);
		return -ENOMEM;
	}
	mark_traced(c, p);
	struct announce_ctx a = {c, p};
	proc_each_thread(pid, announce_thread, &a);
	/* After the probes are attached and the pid is traced: a TU that
	 * registers meanwhile shows up in both places and is announced once. */
	p->registry_tried = 0;
	err = lifecycle_registry_catch_up(c, p);
	pthread_mutex_unlock(&c->lock);
	if (err == -EACCES || err == -EPERM)
		wpp_err("%s: not traceable: its memory cannot be read (%s; needs root or ptrace "
			"rights)",
			who, strerror(-err));
	else if (err == -EBUSY)
		wpp_err("%s: already recorded by another wpptrace through shared memory", who);
	else if (err == -ECANCELED)
		wpp_err("%s: tracing is disabled in it (WPP_DISABLE is set)", who);
	else if (err && err != -ESRCH)
		wpp_warn("%s: cannot read its TU registry (%s): code registered before now will "
			 "not decode",
			 who, strerror(-err));
	return err == -ESRCH ? 0 : err == -EPROTO || err == -EAGAIN || err == -EIO ? 0 : err;
}

int bc_trace_pid(struct bc_collector *c, pid_t pid, bool announce)
{
	return announce ? trace_running(c, pid) : trace_child(c, pid);
}

int bc_trace_all(struct bc_collector *c, void (*found)(pid_t pid, void *arg), void *arg)
{
	/* First, so that no program starting during the scan falls between
	 * the two (one that cannot be answered is attached at its exec). */
	if (c->hello_fd < 0)
		hello_listen(c);
	DIR *d = opendir("/proc");
	if (!d) {
		int err = -errno;
		wpp_err("cannot list /proc: %s", strerror(errno));
		return err;
	}
	struct dirent *e;
	pthread_mutex_lock(&c->lock);
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || pid == getpid() || attach_pid_mappings(c, (pid_t)pid) == 0)
			continue;
		/* Instrumented and already running: its TUs registered before
		 * the probes were there. */
		struct bc_proc *p = proc_get(c, (uint32_t)pid, 1);
		if (p)
			lifecycle_registry_catch_up(c, p);
		if (found)
			found((pid_t)pid, arg);
	}
	pthread_mutex_unlock(&c->lock);
	closedir(d);
	return 0;
}

/* Every link's descriptor, ours to close (the libbpf links are freed, a
 * duplicate of each kept), into fds; how many, at most cap (the rest are
 * closed here). */
static size_t take_link_fds(struct bc_collector *c, int *fds, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < c->multi.n; i++)
		if (n < cap)
			fds[n++] = c->multi.fds[i];
		else
			close(c->multi.fds[i]);
	c->multi.n = 0;
	for (size_t i = 0; i < c->nlinks; i++) {
		int fd = n < cap ? fcntl(bpf_link__fd(c->links[i]), F_DUPFD_CLOEXEC, 0) : -1;
		if (fd >= 0)
			fds[n++] = fd;
		bpf_link__destroy(c->links[i]);
	}
	c->nlinks = 0;
	return n;
}

void bc_traced_gone(struct bc_collector *c)
{
	c->traced_gone = 1;
}

void detach_all(struct bc_collector *c)
{
	/* Nothing traced is left to publish or to be missed: the links are
	 * closed by a process of their own (close_later.h), which the caller's
	 * exit does not wait for. */
	if (c->traced_gone && (c->multi.n || c->nlinks)) {
		int fds[64];
		close_later(fds, take_link_fds(c, fds, sizeof(fds) / sizeof(fds[0])));
		return;
	}
	multi_links_close(&c->multi);
	for (size_t i = 0; i < c->nlinks; i++)
		bpf_link__destroy(c->links[i]);
	c->nlinks = 0;
}
