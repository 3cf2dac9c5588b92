/* SPDX-License-Identifier: MIT */
/*
 * attach.c — where the probes go.  The batch/register USDT programs are
 * attached per ELF object for all processes (pid -1) and the BPF side
 * filters by the traced set, so forked children and later processes of an
 * already attached object need nothing more.  Objects are read once
 * (elfinfo.c) and attached only when they carry wpptrace probes.
 */
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bc_internal.h"
#include "elfinfo.h"
#include "log.h"
#include "procinfo.h"
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

static int attach_probe(struct bc_collector *c, struct bpf_program *prog, const char *path, const char *name)
{
	struct bpf_link *l = bpf_program__attach_usdt(prog, -1, path, "wpptrace", name, NULL);
	if (!l) {
		int err = -errno;
		wpp_err("cannot attach to wpptrace:%s in %s: %s", name, path, strerror(-err));
		return err;
	}
	return keep_link(c, l);
}

int attach_object_locked(struct bc_collector *c, const char *path)
{
	for (size_t i = 0; i < c->nattached; i++)
		if (strcmp(c->attached[i], path) == 0)
			return 0;
	struct elf_facts f;
	int err = elf_facts_read(path, &f);
	if (err == 0 && !f.has_batch_probe)
		err = -ENOENT;
	/* Remember failures too: system-wide mode meets the same
	 * uninstrumented objects over and over. */
	if (remember(&c->attached, &c->nattached, &c->attached_cap, path))
		return -ENOMEM;
	if (err)
		return err;
	err = attach_probe(c, c->skel->progs.wpp_batch, path, "batch");
	if (!err && f.has_register_probe)
		err = attach_probe(c, c->skel->progs.wpp_register, path, "register");
	if (!err)
		wpp_info("bpf: attached to %s", path);
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

static void attach_mapping(const char *path, void *arg)
{
	attach_object_locked(arg, path);
}

void attach_pid_mappings(struct bc_collector *c, pid_t pid)
{
	proc_each_exec_mapping(pid, attach_mapping, c);
}

struct announce_ctx {
	struct bc_collector *c;
	struct bc_proc *p;
};

static void announce_thread(pid_t tid, void *arg)
{
	struct announce_ctx *a = arg;
	thread_announce(a->c, a->p, (uint32_t)tid, bc_now_ns());
}

int bc_trace_pid(struct bc_collector *c, pid_t pid, bool announce)
{
	uint32_t key = (uint32_t)pid;
	uint8_t one = 1;
	if (bpf_map__update_elem(c->skel->maps.traced_pids, &key, sizeof(key), &one, sizeof(one), BPF_ANY)) {
		int err = -errno;
		wpp_err("cannot trace pid %d: %s", (int)pid, strerror(errno));
		return err;
	}
	pthread_mutex_lock(&c->lock);
	struct bc_proc *p = proc_get(c, (uint32_t)pid, announce);
	if (!p) {
		/* Not started yet (the recorder's child before exec): its exec
		 * record will introduce it. */
		p = proc_get(c, (uint32_t)pid, 1);
		if (p)
			p->flags = 0;
	}
	if (p && !p->traced) {
		p->traced = 1;
		c->live_traced++;
		c->ever_traced = 1;
	}
	if (p && announce) {
		struct announce_ctx a = { c, p };
		proc_each_thread(pid, announce_thread, &a);
	}
	attach_pid_mappings(c, pid);
	pthread_mutex_unlock(&c->lock);
	return p ? 0 : -ENOMEM;
}

int bc_trace_all(struct bc_collector *c)
{
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
		if (!*end && pid > 0)
			attach_pid_mappings(c, (pid_t)pid);
	}
	pthread_mutex_unlock(&c->lock);
	closedir(d);
	return 0;
}

void detach_all(struct bc_collector *c)
{
	for (size_t i = 0; i < c->nlinks; i++)
		bpf_link__destroy(c->links[i]);
	c->nlinks = 0;
}
