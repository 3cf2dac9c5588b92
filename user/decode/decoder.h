/* SPDX-License-Identifier: MIT */
/*
 * decoder.h — the one way to read a thread's trace: an iterator of events in
 * execution order.  Every analysis (script, paths, and later grammars,
 * k-paths, hot subpaths) consumes this instead of touching batches, splices
 * or word encodings itself.
 *
 *   struct wpp_decoder *d = wpp_decoder_open(trace, thread, modules, flags);
 *   struct wpp_event ev;
 *   while (wpp_decoder_next(d, &ev)) { switch (ev.kind) ... }
 *   wpp_decoder_close(d);
 *
 * Words that cannot be attributed (WPP_FID_UNREGISTERED, a fid no module
 * covers, a module without usable metadata) come out as UNATTRIBUTED events;
 * malformed records (cut-short wide records, unknown control ops, path ids
 * that are not paths of their DAG, block indices out of range) as CORRUPT
 * events.  Neither stops decoding.  Zero words (unwritten slots of salvaged
 * buffers) and PAD words are skipped and only counted.
 *
 * WET records (wet_abi.h): a PATH event of a function built with
 * -fwpp-mode=wet hands out its record's value slots, decoded, in the order
 * wpp_wet_path_items() (wet_values.h) names them; the path is expanded for
 * that even without WPP_DECODE_EXPAND.  A record whose value words are
 * missing, cut short or more than its path writes (a torn salvaged record,
 * metadata of another build, a crafted file) still is its PATH event, with
 * wet = WPP_WET_LOST and no values, counted in stats.wet_lost; value words
 * where no record can own them are one CORRUPT event per run.
 *
 * REPEAT words (trace_abi.h) are expanded: the record before them comes out
 * again once per repeat, with ev.repeat = 1, 2, ... and the position
 * (batch_seq, word_index) of the REPEAT word that produced it.  A REPEAT
 * with no record before it at its signal depth (stream start, after a gap
 * or a malformed record) is one UNATTRIBUTED event whose lost_words says
 * how many records it stood for (all counted in stats.unattributed).
 */
#ifndef WPP_DECODE_DECODER_H
#define WPP_DECODE_DECODER_H

#include <stdint.h>

#include "decode/module_map.h"
#include "decode/path_regen.h"
#include "decode/stream.h"
#include "decode/trace_file.h"

enum wpp_event_kind {
	WPP_EV_PATH,	     /* paths-mode record: fn + path id (+ blocks with EXPAND) */
	WPP_EV_BLOCK,	     /* blocks-mode record: fn + block index entered */
	WPP_EV_GAP,	     /* words were lost here */
	WPP_EV_UNATTRIBUTED, /* a record whose function is unknown */
	WPP_EV_CORRUPT,	     /* a malformed record */
};

enum wpp_decode_flags {
	/* Expand every path to its blocks (ev.path); ids that do not expand
	 * become CORRUPT events.  Without it, path ids are passed through. */
	WPP_DECODE_EXPAND = 1u << 0,
	/* A run comes out as one event whose `times` says how many
	 * executions it stands for (repeat = the first repetition's number),
	 * instead of `times` events.  For analyses that count: a REPEAT
	 * word's count is up to 2^32 - 1, and a file can hold thousands, so
	 * expanding them lets a small file demand hours (docs/security.md,
	 * "Files").  Stats are the same either way. */
	WPP_DECODE_RUNS = 1u << 1,
};

enum wpp_wet_state {
	WPP_WET_NONE = 0, /* not a WET function's path */
	WPP_WET_OK,	  /* values[0 .. nvalues) are the record's slots */
	WPP_WET_LOST,	  /* the record's values could not be read */
};

struct wpp_event {
	enum wpp_event_kind kind;
	uint32_t fid;
	const struct wpp_fn *fn;     /* PATH, BLOCK */
	uint64_t value;		     /* path id, block index, or the raw payload */
	const struct wpp_path *path; /* PATH with EXPAND; valid until the next call */
	uint64_t lost_words;	     /* GAP; WPP_LOST_UNKNOWN if unknown */
	uint64_t lost_batches;	     /* GAP */
	const char *reason;	     /* UNATTRIBUTED, CORRUPT */
	/* UNATTRIBUTED with fn set: a TPP function's cold counter or a
	 * disconnected loop's path piece (symbolizer/meta_tpp_model.h) */
	uint8_t tpp_cold, tpp_piece;
	uint32_t signal_depth; /* 0 = main stream */
	uint64_t batch_seq;    /* where the record starts (not for GAP) */
	uint32_t word_index;
	uint64_t repeat;	/* 0: a record as written; k >= 1: its k-th
				 * repetition, from a REPEAT word */
	uint64_t times;		/* executions this event stands for: 1, or a whole
				 * run with WPP_DECODE_RUNS (also for UNATTRIBUTED
				 * and CORRUPT events of a run) */
	enum wpp_wet_state wet; /* PATH of a WET function */
	const int64_t *values;	/* WPP_WET_OK; valid until the next call */
	uint32_t nvalues;
};

struct wpp_decode_stats {
	uint64_t words;	       /* trace words read */
	uint64_t paths;	       /* PATH events */
	uint64_t blocks;       /* BLOCK events */
	uint64_t gaps;	       /* GAP events */
	uint64_t lost_words;   /* sum of known losses */
	uint64_t unknown_gaps; /* gaps whose size is unknown */
	uint64_t unattributed;
	uint64_t corrupt;
	uint64_t zero_words;
	uint64_t pad_words;
	uint64_t repeat_words;	 /* REPEAT control words read */
	uint64_t repeats;	 /* records they stood for (PATH/BLOCK/... events) */
	uint64_t wet_records;	 /* PATH events of WET functions */
	uint64_t wet_values;	 /* value slots they handed out */
	uint64_t wet_lost;	 /* WET path executions whose values were lost */
	uint64_t wet_lost_words; /* value words read but not handed out */
};

struct wpp_decoder;

/* NULL only on allocation failure (message printed). */
struct wpp_decoder *wpp_decoder_open(const struct wpp_thread_trace *th, struct wpp_modules *mods,
				     unsigned flags);
/* 1 = *ev filled, 0 = end of the thread's stream. */
int wpp_decoder_next(struct wpp_decoder *d, struct wpp_event *ev);
const struct wpp_decode_stats *wpp_decoder_stats(const struct wpp_decoder *d);
const struct wpp_stream *wpp_decoder_stream(const struct wpp_decoder *d);
void wpp_decoder_close(struct wpp_decoder *d);

/* Add b into a (totals over threads). */
void wpp_decode_stats_add(struct wpp_decode_stats *a, const struct wpp_decode_stats *b);

#endif
