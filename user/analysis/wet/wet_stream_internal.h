/* SPDX-License-Identifier: MIT */
/*
 * wet_stream_internal.h — what the stream's builder and its serializer
 * share: the serialized size of a segment, which is also the measure the
 * warm-up uses to choose a method (so the choice minimizes what is stored).
 */
#ifndef WPP_WET_STREAM_INTERNAL_H
#define WPP_WET_STREAM_INTERNAL_H

#include <stddef.h>

#include "wet_segment.h"
#include "wet_stream.h"

/* Bytes of a closed segment whose cursor is at its start (where built and
 * parsed segments rest, ready for the forward reads most queries do). */
size_t wet_seg_serial_size(const struct wet_method *m, const struct wet_seg *seg);
/* Walk the cursor of an open segment to its start.  0, or -1 (damaged). */
int wet_seg_rewind(const struct wet_method *m, struct wet_seg *seg, struct wet_state *st);
/* Open segment k of s and rewind it.  0, or -1. */
int wet_stream_park(struct wet_stream *s, uint32_t k);

#endif
