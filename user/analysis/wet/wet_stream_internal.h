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

/* Bytes of a closed segment whose cursor is at its end. */
size_t wet_seg_serial_size(const struct wet_method *m, const struct wet_seg *seg);

#endif
