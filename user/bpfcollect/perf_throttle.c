/* SPDX-License-Identifier: MIT */
#include "bpfcollect/perf_throttle.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

/* One data page: a throttle and its unthrottle take 48 bytes, and the
 * collector reads the ring every drain pass. */
#define WATCH_DATA_PAGES 1

int perf_throttle_watch_open(struct perf_throttle_watch *w, int fd)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t bytes = (size_t)page * (1 + WATCH_DATA_PAGES);
	w->ring = NULL;
	w->ring_bytes = 0;
	w->throttled = w->lost = 0;
	void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	w->ring = m;
	w->ring_bytes = bytes;
	return 0;
}

void perf_throttle_watch_read(struct perf_throttle_watch *w)
{
	if (!w->ring)
		return;
	struct perf_event_mmap_page *meta = w->ring;
	const unsigned char *data = (const unsigned char *)w->ring + meta->data_offset;
	uint64_t size = meta->data_size;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;
	/* Records are 8-byte aligned and the data area a multiple of 8, so a
	 * header never wraps; the bodies are not needed. */
	while (tail + sizeof(struct perf_event_header) <= head) {
		const struct perf_event_header *h = (const void *)(data + tail % size);
		if (h->size < sizeof(*h))
			break; /* malformed: stop rather than spin */
		if (h->type == PERF_RECORD_THROTTLE)
			w->throttled++;
		else if (h->type == PERF_RECORD_LOST && tail % size + h->size <= size) {
			const struct {
				struct perf_event_header h;
				uint64_t id, lost;
			} *l = (const void *)h;
			w->lost += l->lost;
		}
		tail += h->size;
	}
	__atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
}

void perf_throttle_watch_close(struct perf_throttle_watch *w)
{
	if (w->ring)
		munmap(w->ring, w->ring_bytes);
	w->ring = NULL;
}

int perf_throttle_rearm(int fd, uint64_t period_or_freq)
{
	return ioctl(fd, PERF_EVENT_IOC_PERIOD, &period_or_freq) < 0 ? -errno : 0;
}
