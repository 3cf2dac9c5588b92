/* SPDX-License-Identifier: MIT */
/*
 * lifecycle.c — fork/exec/exit/register records -> process, thread and
 * module events, ordered against the streams demux.c delivers:
 *   - a process is announced before any of its threads, a thread before its
 *     first batch;
 *   - an exec is delivered only after every stream of the old image has
 *     closed; streams of the new image wait (demux.c "blocked") until then;
 *   - a thread's exit follows its stream's last batch and gap; a process's
 *     exit follows all of its streams.
 * System-wide, processes are only reported once they prove instrumented (a
 * batch or a registration) or descend from one that did; until then the
 * collector just remembers what fork/exec told it.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bpfcollect/bc_internal.h"
#include "bpfcollect/elfinfo.h"
#include "common/cpu_clock.h"
#include "common/log.h"
#include "bpfcollect/procinfo.h"
#include "bpfcollect/registry.h"
#include "runtime/wpp_registry.h"
#include "wpp_transport.skel.h"

#define CMDLINE_MAX 4096

static void set_str(char **dst, const char *src, size_t len)
{
	char *s = malloc(len + 1);
	if (!s)
		return;
	memcpy(s, src, len);
	s[len] = 0;
	free(*dst);
	*dst = s;
}

static void set_cmdline(char **cmdline, uint32_t *cmdline_len, const char *args, size_t len)
{
	free(*cmdline);
	*cmdline = NULL;
	*cmdline_len = 0;
	if (!len)
		return;
	*cmdline = malloc(len);
	if (!*cmdline)
		return;
	memcpy(*cmdline, args, len);
	*cmdline_len = (uint32_t)len;
}

static struct bc_proc *proc_new(struct bc_collector *c, uint32_t pid)
{
	struct bc_proc *p = calloc(1, sizeof(*p));
	if (!p || idmap_put(&c->procs, pid, p)) {
		free(p);
		return NULL;
	}
	p->pid = pid;
	p->time_ns = monotonic_ns();
	p->traced = c->opt.filter_pids;
	p->interesting = c->opt.filter_pids;
	if (p->traced) {
		c->live_traced++;
		c->ever_traced = 1;
		p->start_ticks = proc_start_time((pid_t)pid);
	}
	return p;
}

static void exec_pending_free(struct bc_exec_pending *e)
{
	free(e->exe);
	free(e->cmdline);
	free(e);
}

void proc_free(struct bc_proc *p)
{
	while (p->modules) {
		struct bc_module_pending *m = p->modules;
		p->modules = m->next;
		free(m);
	}
	while (p->execs) {
		struct bc_exec_pending *e = p->execs;
		p->execs = e->next;
		exec_pending_free(e);
	}
	while (p->starts) {
		struct bc_start_pending *t = p->starts;
		p->starts = t->next;
		free(t);
	}
	free(p->fid_bases);
	free(p->exe);
	free(p->cmdline);
	free(p);
}

struct bc_proc *proc_get(struct bc_collector *c, uint32_t pid, int create_from_proc)
{
	struct bc_proc *p = idmap_get(&c->procs, pid);
	if (p || !create_from_proc)
		return p;
	/* Met mid-run: what /proc still knows. */
	p = proc_new(c, pid);
	if (!p)
		return NULL;
	char exe[4096];
	if (proc_exe(pid, exe, sizeof(exe)) == 0)
		set_str(&p->exe, exe, strlen(exe));
	char *args = malloc(CMDLINE_MAX);
	if (args) {
		set_cmdline(&p->cmdline, &p->cmdline_len, args,
			    proc_cmdline(pid, args, CMDLINE_MAX));
		free(args);
	}
	p->ppid = proc_ppid(pid);
	p->flags = WPP_PROC_ATTACHED;
	p->interesting = 1;
	return p;
}

void proc_announce(struct bc_collector *c, struct bc_proc *p)
{
	p->interesting = 1;
	if (p->announced)
		return;
	p->announced = 1;
	const char *exe = p->exe ? p->exe : "";
	struct bc_process ev = {
	    .event = BC_PROCESS_NEW,
	    .proc =
		{
		    .pid = p->pid,
		    .ppid = p->ppid,
		    .parent_tid = p->parent_tid,
		    .flags = p->flags,
		    .generation = p->generation,
		    .exe_len = (uint32_t)strlen(exe) + 1,
		    .time_ns = p->time_ns,
		    .cmdline_len = p->cmdline_len,
		},
	    .exe = exe,
	    .cmdline = p->cmdline ? p->cmdline : "",
	};
	if (c->cb.process)
		c->cb.process(c->cb.ctx, &ev);
}

static void emit_thread(struct bc_collector *c, uint32_t pid, uint32_t tid, uint32_t event,
			uint32_t gen, uint64_t time_ns)
{
	struct wpp_chunk_thread t = {
	    .pid = pid,
	    .tid = tid,
	    .event = event,
	    .generation = gen,
	    .time_ns = time_ns,
	};
	if (c->cb.thread)
		c->cb.thread(c->cb.ctx, &t);
}

void thread_announce(struct bc_collector *c, struct bc_proc *p, uint32_t tid, uint64_t time_ns)
{
	proc_announce(c, p);
	struct bc_thread *t = idmap_get(&c->tids, tid);
	if (t && t->pid == p->pid)
		return;
	if (!t) {
		t = malloc(sizeof(*t));
		if (!t || idmap_put(&c->tids, tid, t)) {
			free(t);
			return;
		}
	}
	t->tid = tid;
	t->pid = p->pid;
	emit_thread(c, p->pid, tid, WPP_THREAD_START, p->generation, time_ns);
}

void thread_exited(struct bc_collector *c, uint32_t pid, uint32_t tid, uint64_t time_ns)
{
	struct bc_thread *t = idmap_get(&c->tids, tid);
	if (!t || t->pid != pid)
		return;
	idmap_del(&c->tids, tid);
	free(t);
	struct bc_proc *p = idmap_get(&c->procs, pid);
	emit_thread(c, pid, tid, WPP_THREAD_EXIT, p ? p->generation : 0, time_ns);
}

/* ---- modules ---- */

/* 1 if the TU at fid_base was announced for p's current image already. */
static int module_seen(struct bc_proc *p, uint32_t fid_base)
{
	for (uint32_t i = 0; i < p->nfid_bases; i++)
		if (p->fid_bases[i] == fid_base)
			return 1;
	if (p->nfid_bases == p->fid_bases_cap) {
		uint32_t cap = p->fid_bases_cap ? p->fid_bases_cap * 2 : 8;
		uint32_t *grown = realloc(p->fid_bases, cap * sizeof(*grown));
		if (!grown)
			return 0;
		p->fid_bases = grown;
		p->fid_bases_cap = cap;
	}
	p->fid_bases[p->nfid_bases++] = fid_base;
	return 0;
}

static void emit_module(struct bc_collector *c, struct bc_proc *p,
			const struct wpp_brec_register *r)
{
	if (module_seen(p, r->fid_base))
		return;
	struct wpp_chunk_module m = {
	    .pid = p->pid,
	    .generation = p->generation,
	    .fid_base = r->fid_base,
	    .nfuncs = r->nfuncs,
	    .tu_hash = r->tu_hash,
	    .meta_addr = r->meta_addr,
	};
	char path[4096] = "";
	uint64_t map_base = 0;
	if (r->entry_ok && r->path_len > 1 && r->path_len < sizeof(r->path)) {
		/* The runtime's own account, read by BPF at registration: right
		 * even when the process has exited since. */
		memcpy(path, r->path, r->path_len);
		path[r->path_len - 1] = 0;
		m.load_bias = r->load_bias;
		memcpy(m.build_id, r->build_id, sizeof(m.build_id));
		m.build_id_len = r->build_id_len;
	} else if (proc_addr_object(p->pid, r->meta_addr, path, sizeof(path), &map_base) == 0) {
		/* A producer without the entry argument: what /proc says (a
		 * process that already exited leaves path "" and the decoder
		 * falls back to the process's executable). */
		struct elf_facts f;
		if (elf_facts_read(path, &f) == 0) {
			m.load_bias = f.is_dyn ? map_base - f.first_load_vaddr : 0;
			memcpy(m.build_id, f.build_id, sizeof(m.build_id));
			m.build_id_len = f.build_id_len;
		}
	}
	m.path_len = (uint32_t)strlen(path) + 1;
	if (c->cb.module)
		c->cb.module(c->cb.ctx, &m, path);
}

void lifecycle_register(struct bc_collector *c, const struct wpp_brec_register *r)
{
	struct bc_proc *p = proc_get(c, r->h.pid, 1);
	if (!p)
		return;
	if (!r->read_ok)
		wpp_warn("bpf: pid %u registered a TU whose descriptor could not be read",
			 r->h.pid);
	if (p->execs) {
		/* Belongs to the image whose exec is not delivered yet. */
		struct bc_module_pending *m = malloc(sizeof(*m)), **tail = &p->modules;
		if (!m)
			return;
		m->image = p->execs_read;
		m->r = *r;
		m->next = NULL;
		while (*tail)
			tail = &(*tail)->next;
		*tail = m;
		return;
	}
	thread_announce(c, p, r->h.tid, r->h.time_ns);
	emit_module(c, p, r);
}

static void registry_entry(const struct wpp_brec_register *r, void *arg)
{
	lifecycle_register(arg, r);
}

int lifecycle_registry_catch_up(struct bc_collector *c, struct bc_proc *p)
{
	if (p->registry_tried)
		return 0;
	p->registry_tried = 1;
	struct registry_info info;
	int err = registry_read((pid_t)p->pid, registry_entry, c, &info);
	if (!err && info.transport == WPP_REG_TRANSPORT_SHM)
		return -EBUSY;
	if (!err && info.transport == WPP_REG_TRANSPORT_DISCARD)
		return -ECANCELED;
	if (!err && info.count && wpp_verbosity >= 2)
		wpp_info("bpf: pid %u: %u TUs from the registry in %s", p->pid, info.count,
			 info.object);
	return err;
}

void lifecycle_registry_late(struct bc_collector *c, struct bc_proc *p)
{
	int err = lifecycle_registry_catch_up(c, p);
	/* A fork child needs none: the decoder gives it its parent's modules. */
	if (p->nfid_bases || (p->flags & WPP_PROC_FORKED) || err == -EBUSY || err == -ECANCELED)
		return;
	/* Seen (rarely) under -a when a program was attached only at its exec
	 * record: by the time its first batch is delivered it has exited, and
	 * /proc has nothing left to read. */
	const char *why = err == -ESRCH || err == -ENOENT ? "it has exited, or has no registry"
			  : err				  ? strerror(-err)
							  : "no TU in it";
	wpp_warn("bpf: pid %u (%s) registered its code before the probes were attached, and "
		 "its registry cannot be read now (%s): its words will not decode",
		 p->pid, p->exe ? p->exe : "?", why);
}

/* ---- exec ---- */

struct unblock_ctx {
	uint32_t pid;
	uint32_t image;
	uint64_t *ids;
	size_t n;
};

static void collect_blocked(uint64_t key, void *val, void *arg)
{
	struct bc_stream *s = val;
	struct unblock_ctx *u = arg;
	if (s->pid == u->pid && s->blocked && s->image == u->image)
		u->ids[u->n++] = key;
}

/* The oldest pending exec, now that the image it replaces has no stream
 * open: the new image is announced, and what was held for it (modules,
 * streams) is delivered.  Later execs stay pending for its streams. */
static void exec_complete(struct bc_collector *c, struct bc_proc *p)
{
	struct bc_exec_pending *e = p->execs;

	p->execs = e->next;
	p->execs_done++;
	thread_exited(c, p->pid, e->old_tid, e->time_ns);
	free(p->exe);
	p->exe = e->exe;
	free(p->cmdline);
	p->cmdline = e->cmdline;
	p->cmdline_len = e->cmdline_len;
	p->time_ns = e->time_ns;
	e->exe = e->cmdline = NULL;
	exec_pending_free(e);
	if (p->announced) {
		p->generation++;
		p->flags = WPP_PROC_EXECED;
	} else {
		/* A new program: it inherits nothing from whoever forked the
		 * unreported image before it (no FORKED: no module inheritance). */
		p->flags = 0;
	}
	p->announced = 0;
	p->nfid_bases = 0;
	p->registry_tried = 0;
	if (p->interesting) {
		proc_announce(c, p);
		thread_announce(c, p, p->pid, p->time_ns);
	}
	for (struct bc_module_pending **mp = &p->modules; *mp;) {
		struct bc_module_pending *m = *mp;
		if (m->image != p->execs_done) {
			mp = &m->next; /* a later image's */
			continue;
		}
		*mp = m->next;
		thread_announce(c, p, m->r.h.tid, m->r.h.time_ns);
		emit_module(c, p, &m->r);
		free(m);
	}
	for (struct bc_start_pending **tp = &p->starts; *tp;) {
		struct bc_start_pending *t = *tp;
		if (t->image != p->execs_done) {
			tp = &t->next;
			continue;
		}
		*tp = t->next;
		thread_announce(c, p, t->tid, t->time_ns);
		free(t);
	}
	struct unblock_ctx u = {.pid = p->pid,
				.image = p->execs_done,
				.ids = calloc(p->blocked_streams + 1, sizeof(uint64_t))};
	if (!u.ids)
		return;
	idmap_each(&c->streams, collect_blocked, &u);
	for (size_t i = 0; i < u.n; i++) {
		struct bc_stream *s = idmap_get(&c->streams, u.ids[i]);
		if (!s)
			continue;
		s->blocked = 0;
		p->blocked_streams--;
		p->open_streams++;
	}
	/* Resolving can close streams and with them the process: look it up
	 * again each time instead of keeping p. */
	uint32_t pid = p->pid;
	for (size_t i = 0; i < u.n; i++) {
		struct bc_stream *s = idmap_get(&c->streams, u.ids[i]);
		if (s)
			demux_resolve(c, s);
	}
	free(u.ids);
	p = idmap_get(&c->procs, pid);
	if (p)
		proc_settle(c, p);
}

/* Does /proc's exe link (maybe " (deleted)") still name the file exec
 * record r executed?  Its basename is that file's own name (r->exe_name,
 * the dentry, which symlinks do not change); after a later exec it is not. */
static int exe_names_image(const char *exe, const struct wpp_brec_exec *r)
{
	static const char deleted[] = " (deleted)";
	const char *base = strrchr(exe, '/');
	size_t len, dl = sizeof(deleted) - 1;
	base = base ? base + 1 : exe;
	len = strlen(base);
	if (len > dl && strcmp(base + len - dl, deleted) == 0)
		len -= dl;
	return !r->exe_name[0] || (strnlen(r->exe_name, sizeof(r->exe_name)) == len &&
				   memcmp(base, r->exe_name, len) == 0);
}

/* Where the image of exec record r lives.  /proc knows the absolute path
 * while the process runs that image; once it is gone, or has exec'd again
 * (a record read late under load named the first image of an exec chain
 * after the second), the name it was exec'd by, relative ones made absolute
 * with its working directory, and for a /proc/self/exe alias, which means
 * nothing once the process is gone, the executed file's own name. */
static void exec_path(const struct wpp_brec_exec *r, char *exe, size_t size)
{
	size_t flen = r->filename_len ? strnlen(r->filename, sizeof(r->filename)) : 0;
	char cwd[4096], link[64];
	ssize_t n;

	if (proc_exe(r->h.pid, exe, size) == 0 && exe_names_image(exe, r))
		return;
	if (flen >= 6 && memcmp(r->filename, "/proc/", 6) == 0 && r->exe_name[0]) {
		snprintf(exe, size, "%.*s", (int)sizeof(r->exe_name), r->exe_name);
		return;
	}
	snprintf(link, sizeof(link), "/proc/%u/cwd", r->h.pid);
	if (flen && r->filename[0] != '/' && (n = readlink(link, cwd, sizeof(cwd) - 1)) > 0) {
		cwd[n] = 0;
		snprintf(exe, size, "%s/%.*s", cwd, (int)flen, r->filename);
		char *real = realpath(exe, NULL);
		if (real)
			snprintf(exe, size, "%s", real);
		free(real);
		return;
	}
	snprintf(exe, size, "%.*s", (int)flen, r->filename);
}

static void exec_record(struct bc_collector *c, const struct wpp_brec_exec *r)
{
	struct bc_proc *p = proc_get(c, r->h.pid, 0);
	if (!p && !(p = proc_new(c, r->h.pid)))
		return;
	struct bc_stream *old = NULL;
	if (r->old_stream.stream_id)
		old = demux_stream_get(c, r->old_stream.stream_id, r->h.pid, r->old_tid);

	char exe[4096];
	const char *path = exe;
	exec_path(r, exe, sizeof(exe));
	/* When the exec program held the new image (r->held), it has not run
	 * an instruction yet and on_exec continues it after this; otherwise
	 * (-a, or nothing held) this is late for its first instructions but
	 * usually in time for the loader to map libwpprt.  (The recorder
	 * attaches its own program's objects before releasing it.) */
	if (exe[0] && (c->opt.attach_on_exec || !c->opt.filter_pids) && exe[0] == '/')
		attach_program_locked(c, path);

	struct bc_exec_pending *e = calloc(1, sizeof(*e)), **tail = &p->execs;
	if (!e) {
		wpp_err("bpf: out of memory remembering an exec of pid %u", r->h.pid);
		return;
	}
	e->old_tid = r->old_tid;
	e->time_ns = r->h.time_ns;
	set_str(&e->exe, exe, strlen(exe));
	set_cmdline(&e->cmdline, &e->cmdline_len, r->args,
		    r->args_len <= sizeof(r->args) ? r->args_len : 0);
	while (*tail)
		tail = &(*tail)->next;
	*tail = e;
	p->execs_read++;
	if (old) {
		demux_stream_end(c, old, BC_END_EXEC, &r->old_stream, r->h.time_ns);
	} else {
		proc_settle(c, p);
	}
}

static void on_exec(struct bc_collector *c, const struct wpp_brec_exec *r)
{
	exec_record(c, r);
	/* Whatever became of the record, a held process goes on. */
	if (r->held && kill((pid_t)r->h.pid, SIGCONT) != 0 && errno != ESRCH)
		wpp_warn("bpf: cannot continue pid %u after its exec: %s", r->h.pid,
			 strerror(errno));
}

/* ---- fork / exit ---- */

static void on_fork(struct bc_collector *c, const struct wpp_brec_fork *r)
{
	struct bc_proc *parent = proc_get(c, r->h.pid, 0);
	if (r->is_thread) {
		if (!parent || !parent->interesting)
			return;
		if (!parent->execs) {
			thread_announce(c, parent, r->child_tid, r->h.time_ns);
			return;
		}
		/* Started by the newest image, whose exec is still pending:
		 * its START belongs to that image. */
		struct bc_start_pending *t = malloc(sizeof(*t)), **tail = &parent->starts;
		if (!t)
			return;
		*t =
		    (struct bc_start_pending){NULL, parent->execs_read, r->child_tid, r->h.time_ns};
		while (*tail)
			tail = &(*tail)->next;
		*tail = t;
		return;
	}
	struct bc_proc *stale = idmap_del(&c->procs, r->child_pid);
	if (stale) {
		/* pid reused before the old process's events settled; the
		 * old streams keep their data but lose their process record. */
		if (stale->traced)
			c->live_traced--;
		proc_free(stale);
	}
	struct bc_proc *p = proc_new(c, r->child_pid);
	if (!p)
		return;
	p->ppid = r->h.pid;
	p->parent_tid = r->h.tid;
	p->flags = WPP_PROC_FORKED;
	p->time_ns = r->h.time_ns;
	if (parent) {
		/* The forking image: the newest, even if its exec is pending. */
		const char *exe = parent->exe, *cmdline = parent->cmdline;
		uint32_t cmdline_len = parent->cmdline_len;
		for (const struct bc_exec_pending *e = parent->execs; e; e = e->next)
			exe = e->exe, cmdline = e->cmdline, cmdline_len = e->cmdline_len;
		p->generation = 0;
		if (exe)
			set_str(&p->exe, exe, strlen(exe));
		set_cmdline(&p->cmdline, &p->cmdline_len, cmdline, cmdline_len);
		p->interesting |= parent->interesting;
	}
	if (p->interesting)
		thread_announce(c, p, r->child_tid, r->h.time_ns);
}

static void on_exit_rec(struct bc_collector *c, const struct wpp_brec_exit *r)
{
	struct bc_proc *p = proc_get(c, r->h.pid, r->stream.stream_id != 0);
	if (!p)
		return;
	if (r->group_dead) {
		p->exit_pending = 1;
		p->exit_status = (int)r->exit_code;
	}
	if (r->stream.stream_id) {
		struct bc_stream *s = demux_stream_get(c, r->stream.stream_id, r->h.pid, r->h.tid);
		if (s) {
			demux_stream_end(c, s, BC_END_EXIT, &r->stream, r->h.time_ns);
			return; /* closing the stream settles the process */
		}
	}
	thread_exited(c, r->h.pid, r->h.tid, r->h.time_ns);
	proc_settle(c, p);
}

void proc_stream_closed(struct bc_collector *c, struct bc_proc *p)
{
	if (p->open_streams)
		p->open_streams--;
	proc_settle(c, p);
}

void proc_settle(struct bc_collector *c, struct bc_proc *p)
{
	if (p->execs) {
		if (p->open_streams == 0)
			exec_complete(c, p); /* settles again itself */
		return;
	}
	if (!p->exit_pending || p->open_streams || p->blocked_streams)
		return;
	idmap_del(&c->procs, p->pid);
	if (p->announced && c->cb.process) {
		struct bc_process ev = {
		    .event = BC_PROCESS_EXIT,
		    .proc = {.pid = p->pid,
			     .ppid = p->ppid,
			     .generation = p->generation,
			     .time_ns = monotonic_ns()},
		    .exe = p->exe ? p->exe : "",
		    .cmdline = "",
		    .exit_status = p->exit_status,
		};
		c->cb.process(c->cb.ctx, &ev);
	}
	if (p->traced)
		c->live_traced--;
	/* Where the kernel does not say which thread is the last, the probe
	 * leaves the pid traced (wpp_exit): its exit is delivered now. */
	if (c->opt.filter_pids && !c->skel->rodata->exit_passes_group_dead) {
		uint32_t key = p->pid;
		bpf_map_delete_elem(bpf_map__fd(c->skel->maps.traced_pids), &key);
	}
	proc_free(p);
}

void lifecycle_record(struct bc_collector *c, const void *data, size_t size)
{
	const struct wpp_brec_head *h = data;
	if (size < sizeof(*h))
		return;
	switch (h->kind) {
	case WPP_BREC_FORK:
		if (size >= sizeof(struct wpp_brec_fork))
			on_fork(c, data);
		break;
	case WPP_BREC_EXEC:
		if (size >= sizeof(struct wpp_brec_exec))
			on_exec(c, data);
		break;
	case WPP_BREC_EXIT:
		if (size >= sizeof(struct wpp_brec_exit))
			on_exit_rec(c, data);
		break;
	case WPP_BREC_REGISTER:
		if (size >= sizeof(struct wpp_brec_register))
			lifecycle_register(c, data);
		break;
	default:
		wpp_warn("bpf: unknown lifecycle record kind %u ignored", h->kind);
	}
}

void lifecycle_drain(struct bc_collector *c)
{
	if (c->lc_rb)
		ring_buffer__consume(c->lc_rb);
}
