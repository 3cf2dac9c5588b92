/* SPDX-License-Identifier: MIT */
/*
 * forge.c — makes forged shm regions for the hardening tests: a header a
 * producer accepts (geometry from wpp_shm_layout, the real layout code),
 * with ring fields no collector would ever write.
 *
 *   forge file PATH DAMAGE    write the region to a regular file PATH
 *   forge memfd DAMAGE        a sealed memfd owned by this process, as a
 *                             collector makes it: prints the WPP_SHM value
 *                             (/proc/PID/fd/N) and stays until killed
 *
 * DAMAGE, applied to every thread slot's rings:
 *   first_slot   start slot far beyond the region (SIGSEGV if trusted)
 *   ring0        ring length 0 (a producer that trusts it waits forever)
 *   tail         tail ahead of head (no collector writes that)
 * The collector pid in the header is this process (file mode: pid 1, alive
 * for ever, so a producer never concludes the collector is gone).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kmod-free/shm_layout.h"

static void damage(struct wpp_shm_header *h, const char *how)
{
	for (uint32_t i = 0; i < h->max_threads; i++) {
		struct wpp_shm_thread *t =
		    (struct wpp_shm_thread *)((char *)h + h->threads_off) + i;
		for (int l = 0; l < WPP_SHM_LEVELS; l++) {
			struct wpp_shm_ring *r = &t->rings[l];
			r->nslots = l == 0 ? h->ring_slots : h->sig_ring_slots;
			if (!strcmp(how, "first_slot"))
				r->first_slot = 0x7fffffff;
			else if (!strcmp(how, "ring0"))
				r->nslots = 0;
			else if (!strcmp(how, "tail"))
				r->tail = 12345;
		}
	}
}

int main(int argc, char **argv)
{
	struct wpp_shm_options o = {64, 4, 2, 8, 8, 16};
	struct wpp_shm_header layout;
	const char *msg, *how = argv[argc - 1];
	int memfd = argc == 3 && !strcmp(argv[1], "memfd");
	int fd;

	if (!memfd && !(argc == 4 && !strcmp(argv[1], "file"))) {
		fprintf(stderr, "usage: forge file PATH DAMAGE | forge memfd DAMAGE\n");
		return 2;
	}
	wpp_shm_options_check(&o, &msg);
	wpp_shm_layout(&o, &layout);
	fd = memfd ? memfd_create("forged", MFD_ALLOW_SEALING)
		   : open(argv[2], O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)layout.region_size) < 0) {
		perror("forge");
		return 1;
	}
	struct wpp_shm_header *h =
	    mmap(NULL, layout.region_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED) {
		perror("forge: mmap");
		return 1;
	}
	memcpy(h, &layout, sizeof(layout));
	h->collector_pid = memfd ? (uint32_t)getpid() : 1;
	damage(h, how);
	if (!memfd)
		return 0;
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		perror("forge: seals");
		return 1;
	}
	printf("/proc/%d/fd/%d\n", (int)getpid(), fd);
	fflush(stdout);
	pause();
	return 0;
}
