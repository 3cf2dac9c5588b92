/* SPDX-License-Identifier: MIT */
/*
 * wet_stream_internal.h — what the stream's builder, reader and serializer
 * share: walking a segment's cursor to its start, where built, parsed and
 * serialized segments rest (ready for the forward reads most queries do).
 */
#ifndef WPP_WET_STREAM_INTERNAL_H
#define WPP_WET_STREAM_INTERNAL_H

#include <stddef.h>

#include "analysis/wet/wet_segment.h"
#include "analysis/wet/wet_stream.h"

/* Bytes of a closed segment whose cursor is at its start: the measure the
 * warm-up's trials are judged by, so the choice minimizes what is stored. */
size_t wet_seg_serial_size(const struct wet_seg *seg);
/* Walk the cursor of an open segment to its start.  0, or -1 (damaged). */
int wet_seg_rewind(const struct wet_method *m, struct wet_seg *seg, struct wet_state *st);
/* Parse a lazily read stream now (wet_stream_parse_bare_lazy); 0 when
 * parsed (or never lazy), -1 when its bytes are damaged. */
int wet_stream_materialize(struct wet_stream *s);
/* Open segment k of s and rewind it.  0, or -1. */
int wet_stream_park(struct wet_stream *s, uint32_t k);

#endif
