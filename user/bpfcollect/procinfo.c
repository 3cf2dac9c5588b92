/* SPDX-License-Identifier: MIT */
#include "bpfcollect/procinfo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int proc_exe(pid_t pid, char *buf, size_t size)
{
	char link[64];
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(link, buf, size - 1);
	if (n < 0) {
		buf[0] = 0;
		return -errno;
	}
	buf[n] = 0;
	return 0;
}

size_t proc_cmdline(pid_t pid, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, size);
	close(fd);
	return n > 0 ? (size_t)n : 0;
}

/* /proc/PID/stat read into line, and the fields after the command name
 * (field 3 on), or NULL.  comm may contain spaces and parentheses: the
 * fields resume after the last ')'. */
static const char *stat_after_comm(pid_t pid, char *line, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	size_t n = fread(line, 1, size - 1, f);
	fclose(f);
	line[n] = 0;
	char *p = strrchr(line, ')');
	return p ? p + 1 : NULL;
}

pid_t proc_ppid(pid_t pid)
{
	char line[512];
	const char *p = stat_after_comm(pid, line, sizeof(line));
	int ppid = 0;
	if (!p || sscanf(p, " %*c %d", &ppid) != 1)
		return 0;
	return ppid;
}

char proc_state(pid_t pid)
{
	char line[512], state = 0;
	const char *p = stat_after_comm(pid, line, sizeof(line));
	if (!p || sscanf(p, " %c", &state) != 1)
		return 0;
	return state;
}

uint64_t proc_start_time(pid_t pid)
{
	char line[1024];
	const char *p = stat_after_comm(pid, line, sizeof(line));
	unsigned long long t = 0;
	if (!p || sscanf(p,
			 " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			 "%*d %*d %*d %*d %llu",
			 &t) != 1)
		return 0;
	return t;
}

int proc_each_thread(pid_t pid, void (*fn)(pid_t tid, void *arg), void *arg)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	int count = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		if (*end || tid <= 0)
			continue;
		fn((pid_t)tid, arg);
		count++;
	}
	closedir(d);
	return count;
}

struct map_line {
	uint64_t start, end, offset;
	char perms[5];
	char path[4096];
};

/* One /proc/PID/maps line; 1 if it names a file. */
static int parse_map_line(const char *line, struct map_line *m)
{
	int path_at = 0;
	m->path[0] = 0;
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %*s %*s %n", &m->start, &m->end,
		   m->perms, &m->offset, &path_at) < 4 ||
	    !path_at)
		return 0;
	const char *p = line + path_at;
	if (*p != '/')
		return 0;
	size_t len = strcspn(p, "\n");
	if (len >= sizeof(m->path))
		return 0;
	memcpy(m->path, p, len);
	m->path[len] = 0;
	/* A replaced or deleted file cannot be attached to by path. */
	return strstr(m->path, " (deleted)") == NULL;
}

static FILE *open_maps(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	return fopen(path, "re");
}

int proc_each_exec_mapping(pid_t pid, void (*fn)(const char *path, void *arg), void *arg)
{
	FILE *f = open_maps(pid);
	if (!f)
		return -errno;
	char line[4200], last[4096] = "";
	struct map_line *m = malloc(sizeof(*m));
	if (!m) {
		fclose(f);
		return -ENOMEM;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!parse_map_line(line, m) || m->perms[2] != 'x')
			continue;
		if (strcmp(m->path, last) == 0)
			continue;
		strcpy(last, m->path);
		fn(m->path, arg);
	}
	free(m);
	fclose(f);
	return 0;
}

int proc_addr_object(pid_t pid, uint64_t addr, char *path, size_t size, uint64_t *map_base)
{
	FILE *f = open_maps(pid);
	if (!f)
		return -ENOENT;
	char line[4200];
	struct map_line *m = malloc(sizeof(*m));
	char *base_path = malloc(4096);
	uint64_t base = 0;
	int found = -ENOENT;
	if (!m || !base_path) {
		free(m);
		free(base_path);
		fclose(f);
		return -ENOMEM;
	}
	base_path[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!parse_map_line(line, m))
			continue;
		/* Mappings of one file are contiguous and start at offset 0. */
		if (m->offset == 0 || strcmp(m->path, base_path) != 0) {
			base = m->start;
			strcpy(base_path, m->path);
		}
		if (addr >= m->start && addr < m->end) {
			snprintf(path, size, "%s", m->path);
			*map_base = base;
			found = 0;
			break;
		}
	}
	free(m);
	free(base_path);
	fclose(f);
	return found;
}

int proc_each_object_base(pid_t pid, void (*fn)(const char *path, uint64_t map_base, void *arg),
			  void *arg)
{
	FILE *f = open_maps(pid);
	if (!f)
		return -errno;
	char line[4200];
	struct map_line *m = malloc(sizeof(*m));
	if (!m) {
		fclose(f);
		return -ENOMEM;
	}
	while (fgets(line, sizeof(line), f))
		if (parse_map_line(line, m) && m->offset == 0)
			fn(m->path, m->start, arg);
	free(m);
	fclose(f);
	return 0;
}
