#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Compressed recordings (issue 23; docs/wpp-file-format.md, BATCH_Z):
#
# - round trip: every corpus program (paths -O2, small batches so streams
#   span many batches and chunks) recorded with --compress=none twice and
#   with --compress=zstd once; where the two raw runs decode alike (the
#   program is deterministic), the compressed run must decode to the same
#   `wpptrace script --format jsonl` events, pids aside; and a compressed
#   recording over BPF (where batches of one thread are held back and
#   stored together, user/bpfcollect/hold.c) decodes to them too;
# - an independent reader (keepup-wpp.py: the chunk walk, CRC32C, the
#   token layouts and LZ4 blocks written from the format pages, zstd frames
#   opened by the zstd command) must find in the compressed file of
#   tests/e2e/keepup/mix.c exactly the words of its raw recording, and the
#   header versions 4 and 1; with --compress=zstd too, where every chunk is
#   the order-1 tokens (codecs 1, 2) in a version 2 file; with every chunk
#   made LZ4 or zstd (--debug-second-stage: the measures may choose bare
#   tokens for mix, so LZ4 is asked for); and with the second stage on the
#   coder thread;
# - `record --debug-discard-batches` of mix drains as many words as the
#   reader finds in its raw recording, and writes no batch chunk;
# - fault injection on that file: a bit flipped in a chunk's packed words
#   (bad chunk CRC), a well-formed chunk whose words do not decode (one
#   byte short, lengths and CRCs made right): each loses exactly that
#   chunk's batches, words and path records (the independent reader's
#   count), counted as gaps, and everything after it still decodes; the
#   file cut inside a chunk decodes as the file cut before it plus a gap of
#   exactly that chunk's words; a bit flipped in a chunk's heads stops the
#   reader there (exit 1), as any corrupt chunk does; the same on an LZ4
#   chunk;
# - over BPF, mix's compressed chunks hold exactly the words of its raw
#   BPF recording, several batches a chunk (BPF delivers one batch at a
#   time, interleaving threads; the collector groups them per thread);
# - a spin loop alternating two paths (tests/e2e/keepup/spin.c) records a
#   bounded number of bytes per second and per path record, over shm and
#   over BPF.
. "$(dirname "$0")/../oracle/lib.sh"
require_tools "$WPPCC" "$WPPTRACE"
command -v zstd >/dev/null || { echo "FAIL: the zstd command is missing (scripts/install-deps)"; exit 1; }
HELPER="python3 $ROOT/tests/e2e/keepup-wpp.py"
K=$WORK/keepup
mkdir -p "$K"

# jsonl events with pids and tids (which differ between runs) blanked,
# sorted: threads are printed in tid order, which differs between runs
# (each event still carries its index in its thread's stream, "seq")
events() {
	"$WPPTRACE" script --format jsonl "$1" 2>/dev/null |
		sed -E 's/"(pid|tid|ppid|parent_tid)":[0-9]+/"\1":_/g' | LC_ALL=C sort
}

# --- round trip on the corpus -------------------------------------------
build_variant paths-O2 || true
compared=0 compared_bpf=0
have_bpf=0
[ "$(id -u)" = 0 ] && have_bpf=1
for name in $(corpus_names); do
	d=$K/rt/$name
	RECORD_OPTS="--buffer-words 64 --compress=none" run_prog record paths-O2 "$name" "$d.none1"
	RECORD_OPTS="--buffer-words 64 --compress=none" run_prog record paths-O2 "$name" "$d.none2"
	RECORD_OPTS="--buffer-words 64" run_prog record paths-O2 "$name" "$d.zstd"
	events "$d.none1.wpp" >"$d.none1.ev"
	events "$d.none2.wpp" >"$d.none2.ev"
	events "$d.zstd.wpp" >"$d.zstd.ev"
	if ! cmp -s "$d.none1.ev" "$d.none2.ev"; then
		echo "skip: $name: two raw recordings differ (not deterministic)"
		continue
	fi
	check_done
	if [ ! -s "$d.none1.ev" ]; then
		fail "round trip $name: no events decoded"
	elif cmp -s "$d.none1.ev" "$d.zstd.ev"; then
		pass "round trip $name: $(wc -l <"$d.zstd.ev") events, $(stat -c %s "$d.zstd.wpp") vs $(stat -c %s "$d.none1.wpp") bytes"
		compared=$((compared + 1))
	else
		fail "round trip $name: compressed recording decodes differently"
		diff "$d.none1.ev" "$d.zstd.ev" | head -n 6 | sed 's/^/    /'
	fi
	[ $have_bpf = 1 ] || continue
	# The same program compressed over BPF: against the raw shm recording,
	# or, where the transports see it differently, a raw BPF one.
	RECORD_OPTS="--transport=bpf --buffer-words 64" run_prog record paths-O2 "$name" "$d.bpfz"
	events "$d.bpfz.wpp" >"$d.bpfz.ev"
	against=shm
	if ! cmp -s "$d.none1.ev" "$d.bpfz.ev"; then
		RECORD_OPTS="--transport=bpf --buffer-words 64 --compress=none" run_prog record paths-O2 "$name" "$d.bpfn"
		events "$d.bpfn.wpp" >"$d.bpfn.ev"
		against=bpf
	fi
	check_done
	if cmp -s "$d.$([ $against = shm ] && echo none1 || echo bpfn).ev" "$d.bpfz.ev"; then
		pass "round trip $name over BPF: $(wc -l <"$d.bpfz.ev") events as the raw $against recording's"
		compared_bpf=$((compared_bpf + 1))
	else
		fail "round trip $name over BPF: compressed recording decodes differently"
		diff "$d.bpfn.ev" "$d.bpfz.ev" | head -n 6 | sed 's/^/    /'
	fi
done
check_done
# Most of the corpus is deterministic; a test that compared nothing proves nothing.
if [ "$compared" -ge 12 ]; then
	pass "round trip: $compared deterministic programs compared"
else
	fail "round trip: only $compared programs compared (want at least 12)"
fi
if [ $have_bpf = 0 ]; then
	echo "skip: round trips over BPF (not root)"
elif [ "$compared_bpf" -ge 12 ]; then
	pass "round trip over BPF: $compared_bpf deterministic programs compared"
else
	fail "round trip over BPF: only $compared_bpf programs compared (want at least 12)"
fi

# --- the independent reader on a bigger deterministic program ------------
"$WPPCC" -O2 -o "$K/mix" "$ROOT/tests/e2e/keepup/mix.c" || { fail "mix.c does not build"; finish; }
"$WPPCC" -O2 -o "$K/spin" "$ROOT/tests/e2e/keepup/spin.c" || { fail "spin.c does not build"; finish; }
"$WPPTRACE" record -q --transport=shm --buffer-words 1024 --compress=none -o "$K/mix.none.wpp" -- "$K/mix" >"$K/mix.none.out"
"$WPPTRACE" record -q --transport=shm --buffer-words 1024 -o "$K/mix.zstd.wpp" -- "$K/mix" >"$K/mix.zstd.out"
check_done
v1=$($HELPER version "$K/mix.none.wpp") v2=$($HELPER version "$K/mix.zstd.wpp")
if [ "$v1.$v2" = 1.4 ]; then
	pass "versions: --compress=none writes 1, the default (fast: the match stage) 4"
else
	fail "versions: --compress=none wrote $v1, the default $v2 (want 1 and 4)"
fi
check_done
$HELPER words "$K/mix.none.wpp" | cut -d' ' -f4- >"$K/mix.none.words"
$HELPER words "$K/mix.zstd.wpp" | cut -d' ' -f4- >"$K/mix.zstd.words"
nchunks=$($HELPER chunks "$K/mix.zstd.wpp" | wc -l)
# which coder each chunk got (--compress fast: the match stage's tokens
# with zstd, LZ4 or as they are, by the collector's measures) is said, not
# judged: any mix must read back the same
codecs=$($HELPER codecs "$K/mix.zstd.wpp" | awk '{ printf "%s%s x%s", sep, $1 == 4 ? "matches" : $1 == 5 ? "matches+zstd" : $1 == 6 ? "matches+lz4" : "codec " $1, $2; sep = ", " }')
if [ -s "$K/mix.none.words" ] && cmp -s "$K/mix.none.words" "$K/mix.zstd.words" && [ "$nchunks" -ge 4 ]; then
	pass "independent reader: mix's $nchunks compressed chunks ($codecs) hold exactly its raw recording's words"
else
	fail "independent reader: compressed words differ from the raw recording's (or only $nchunks chunks)"
fi
"$WPPTRACE" record -q --transport=shm --buffer-words 1024 --compress=zstd -o "$K/mix.zonly.wpp" -- "$K/mix" >/dev/null
if $HELPER words "$K/mix.zonly.wpp" | cut -d' ' -f4- | cmp -s "$K/mix.none.words" - &&
	! $HELPER codecs "$K/mix.zonly.wpp" | grep -q '^[^12] ' && [ "$($HELPER version "$K/mix.zonly.wpp")" = 2 ]; then
	pass "--compress=zstd: version 2, the order-1 tokens only (codecs 1, 2), the raw recording's words"
else
	fail "--compress=zstd: codecs other than 1 and 2 ($($HELPER codecs "$K/mix.zonly.wpp" | tr '\n' ' ')) or other words"
fi
# every chunk LZ4, or every chunk zstd (where the coder's output is smaller
# than the match stage's tokens): the independent reader's LZ4 and zstd
# paths, whatever the collector's measures would choose
for stage in lz4 zstd; do
	want_codec=$([ $stage = lz4 ] && echo 6 || echo 5)
	"$WPPTRACE" record -q --transport=shm --buffer-words 1024 --debug-second-stage=$stage \
		-o "$K/mix.$stage.wpp" -- "$K/mix" >/dev/null
	ncoded=$($HELPER chunks "$K/mix.$stage.wpp" | awk -v c="$want_codec" '$5 == c { n++ } END { print n + 0 }')
	if $HELPER words "$K/mix.$stage.wpp" | cut -d' ' -f4- | cmp -s "$K/mix.none.words" - &&
		[ "$ncoded" -ge 4 ]; then
		pass "--debug-second-stage=$stage: $ncoded $stage chunks, the raw recording's words"
	else
		fail "--debug-second-stage=$stage: $ncoded $stage chunks ($($HELPER codecs "$K/mix.$stage.wpp" | tr '\n' ' ')), or other words"
	fi
done
# the second stage on the coder thread (on whether or not a CPU is idle):
# the same words, in chunks of the same kind
"$WPPTRACE" record -q --transport=shm --buffer-words 1024 --coder-thread=on -o "$K/mix.thread.wpp" -- "$K/mix" >/dev/null
nthread=$($HELPER chunks "$K/mix.thread.wpp" | wc -l)
if $HELPER words "$K/mix.thread.wpp" | cut -d' ' -f4- | cmp -s "$K/mix.none.words" - && [ "$nthread" -ge 4 ]; then
	pass "--coder-thread=on: $nthread chunks, the raw recording's words"
else
	fail "--coder-thread=on: other words than the raw recording's ($nthread chunks)"
fi
# --debug-discard-batches (scripts/bench-keepup -f: what the transport
# alone costs): the collector drains and counts every batch and writes
# none; its summary's words are those the reader finds in the raw file
check_done
"$WPPTRACE" record --transport=shm --buffer-words 1024 --debug-discard-batches -o "$K/mix.drop.wpp" \
	-- "$K/mix" >/dev/null 2>"$K/mix.drop.err"
dropped=$(sed -n 's/.*recorded [0-9]* batches, \([0-9]*\) words.*/\1/p' "$K/mix.drop.err")
raw=$("$WPPTRACE" info --format json "$K/mix.none.wpp" | python3 -c 'import json, sys; print(json.load(sys.stdin)["words"])')
kept=$("$WPPTRACE" info --format json "$K/mix.drop.wpp" | python3 -c 'import json, sys; d = json.load(sys.stdin)
print(d["complete"], d["threads"], d["batches"], d["words"], d["batch_bytes"], d["compressed_batches"])')
if [ -n "$dropped" ] && [ "$raw" -gt 0 ] && [ "$dropped" = "$raw" ] && [ "$kept" = "True 1 0 0 0 0" ]; then
	pass "--debug-discard-batches: drained $dropped words (the raw recording's), wrote no batch"
else
	fail "--debug-discard-batches: drained ${dropped:-?} words against the raw recording's $raw; file: $kept (want True 1 0 0 0 0)"
fi
check_done
if cmp -s <(events "$K/mix.none.wpp") <(events "$K/mix.zstd.wpp"); then
	pass "round trip mix: script events identical"
else
	fail "round trip mix: script events differ"
fi

# --- the same over BPF: grouped per thread ----------------------------------
if [ $have_bpf = 1 ]; then
	check_done
	"$WPPTRACE" record -q --transport=bpf --buffer-words 1024 --compress=none -o "$K/mix.bpfn.wpp" -- "$K/mix" >/dev/null
	"$WPPTRACE" record -q --transport=bpf --buffer-words 1024 -o "$K/mix.bpfz.wpp" -- "$K/mix" >/dev/null
	$HELPER words "$K/mix.bpfn.wpp" | cut -d' ' -f4- >"$K/mix.bpfn.words"
	$HELPER words "$K/mix.bpfz.wpp" | cut -d' ' -f4- >"$K/mix.bpfz.words"
	nbatches=$($HELPER chunks "$K/mix.bpfz.wpp" | awk '{ n += $3 } END { print n + 0 }')
	nzchunks=$($HELPER chunks "$K/mix.bpfz.wpp" | wc -l)
	most=$($HELPER chunks "$K/mix.bpfz.wpp" | awk '$3 > m { m = $3 } END { print m + 0 }')
	# 1024-word batches, up to 64 a chunk.  How many a chunk holds on
	# average follows the drain's timing: idle drain rounds close chunks
	# early (mix's 878 batches took 14 to 308 chunks from run to run, the
	# most under a loaded suite), so the average is not judged.  Grouping
	# is: an ungrouped recording has one batch a chunk, always.
	if [ -s "$K/mix.bpfn.words" ] && cmp -s "$K/mix.bpfn.words" "$K/mix.bpfz.words" &&
		[ "$nzchunks" -ge 1 ] && [ "$nbatches" -gt "$nzchunks" ] && [ "$most" -ge 8 ]; then
		pass "BPF grouping: mix's $nbatches batches in $nzchunks chunks (up to $most a chunk) hold exactly its raw BPF recording's words"
	else
		fail "BPF grouping: $nbatches batches in $nzchunks chunks, up to $most a chunk (want several), words $(cmp -s "$K/mix.bpfn.words" "$K/mix.bpfz.words" && echo equal || echo differ)"
	fi
fi

# --- fault injection -------------------------------------------------------
# summary NAME FILE: "words paths gaps lost" from script's last line, its exit status
summary() {
	"$WPPTRACE" script "$2" >"$K/$1.txt" 2>"$K/$1.err"
	echo $? >"$K/$1.status"
	tail -n 1 "$K/$1.txt" | sed -E 's/^[0-9]+ threads, ([0-9]+) words: ([0-9]+) paths, [0-9]+ blocks, ([0-9]+) gaps \(([0-9]+) words lost\).*/\1 \2 \3 \4/'
}
# inject FILE VICTIM LABEL: flip, craft and truncate chunk VICTIM of FILE
inject() {
	local file=$1 victim=$2 label=$3 w0 p0 g0 l0 lb lw lr w p g l st want_st wb pb
	read -r w0 p0 g0 l0 < <(summary intact "$file")
	for mode in flip craft truncate; do
		check_done
		read -r lb lw lr < <($HELPER damage "$file" "$K/mix.$mode.wpp" "$mode" "$victim")
		read -r w p g l < <(summary "$mode" "$K/mix.$mode.wpp")
		st=$(cat "$K/$mode.status") want_st=1 wb=$w0 pb=$p0
		if [ "$mode" = truncate ]; then
			want_st=3 # no END: incomplete, not corrupt
			read -r wb pb _ < <(summary before "$K/mix.$mode.wpp.before")
			wb=$((wb + lw)) pb=$((pb + lr))
		fi
		if [ "$l" = "$lw" ] && [ "$g" = "$lb" ] && [ $((pb - p)) = "$lr" ] &&
			[ $((wb - w)) = "$lw" ] && [ "$st" = "$want_st" ]; then
			pass "$mode: $label chunk $victim lost exactly its $lb batches, $lw words, $lr path records (exit $st)"
		else
			fail "$mode: $label chunk $victim: lost $g gaps / $l words / $((wb - w)) words / $((pb - p)) paths (exit $st); the chunk held $lb batches, $lw words, $lr records (want exit $want_st)"
			head -n 3 "$K/$mode.err" | sed 's/^/    /'
		fi
	done
}
# the chunk in the middle of the file: batches before and after it
victim=$((nchunks / 2))
inject "$K/mix.zstd.wpp" "$victim" "the default's"
# the middle one of the LZ4 file's LZ4 chunks
lz4_victim=$($HELPER chunks "$K/mix.lz4.wpp" | awk '$5 == 6 { c[n++] = $1 } END { if (n) print c[int(n / 2)] }')
if [ -n "$lz4_victim" ]; then
	inject "$K/mix.lz4.wpp" "$lz4_victim" "an LZ4"
else
	fail "fault injection: mix.lz4.wpp has no LZ4 chunk"
fi
check_done
read -r lb lw lr < <($HELPER damage "$K/mix.zstd.wpp" "$K/mix.flip.wpp" flip "$victim")
"$WPPTRACE" info --format json "$K/mix.flip.wpp" >"$K/flip.json" 2>/dev/null
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
sys.exit(not (d["damaged_batches"] == int(sys.argv[2]) and d["damaged_words"] == int(sys.argv[3]) and d["lost_words"] == int(sys.argv[3])))' \
	"$K/flip.json" "$lb" "$lw"; then
	pass "info counts the damaged chunk's $lb batches and $lw words as lost"
else
	fail "info: damaged/lost counts wrong: $(tr ',' '\n' <"$K/flip.json" | grep -E 'damaged|lost' | tr '\n' ' ')"
fi
check_done
$HELPER damage "$K/mix.zstd.wpp" "$K/mix.heads.wpp" heads "$victim" >/dev/null
summary heads "$K/mix.heads.wpp" >/dev/null
if [ "$(cat "$K/heads.status")" = 1 ] && grep -q "corrupt: bad checksum" "$K/heads.err"; then
	pass "heads: a damaged head stops the reader with one error line (exit 1)"
else
	fail "heads: exit $(cat "$K/heads.status"), stderr: $(head -n 2 "$K/heads.err")"
fi

# --- a spin loop ---------------------------------------------------------------
# 1 s of spinning: raw it is gigabytes (8 bytes a record, hundreds of
# millions of records a second); compressed it must stay within 32 MB and
# 0.02 bytes per record.
# spin TRANSPORT NAME LABEL: record the spin loop over TRANSPORT into $K/NAME.wpp.
spin() {
	local tr=$1 name=$2 label=$3 bytes per iters
	check_done
	"$WPPTRACE" record --transport="$tr" --no-grammar -o "$K/$name.wpp" -- "$K/spin" 1 \
		>"$K/$name.out" 2>"$K/$name.err"
	bytes=$(stat -c %s "$K/$name.wpp")
	per=$("$WPPTRACE" info "$K/$name.wpp" | sed -n 's/.* \([0-9.]*\) bytes per path record/\1/p')
	iters=$(cut -d' ' -f1 <"$K/$name.out")
	if [ "$bytes" -le 32000000 ] && awk -v p="$per" 'BEGIN { exit !(p > 0 && p <= 0.02) }'; then
		pass "$label: $iters iterations in 1 s recorded in $bytes bytes ($per bytes per path record)"
	else
		fail "$label: $iters iterations in 1 s took $bytes bytes ($per bytes per path record)"
		head -n 3 "$K/$name.err" | sed 's/^/    /'
	fi
}
spin shm spin spin
[ $have_bpf = 0 ] || spin bpf spinb "spin over BPF"

# --- grammars: when asked by default, bounded when built while recording ------
# Half a second of spinning is tens of millions of path records, seconds of
# grammar building.  By default record builds none (no worker: its summary
# has no "grammar worker" CPU) and `wpp` builds them from the batches.  With
# --grammar (--grammar-wait auto) record goes on for at most as long again as
# it ran, then says what it left to `wpptrace wpp`.
check_done
"$WPPTRACE" record --transport=shm -o "$K/spindef.wpp" -- "$K/spin" 0.2 >/dev/null 2>"$K/spindef.err"
status=$?
if [ "$status" = 0 ] && ! grep -q "grammar" "$K/spindef.err" &&
	"$WPPTRACE" wpp "$K/spindef.wpp" 2>/dev/null | grep -q 'grammar rebuilt from the batches'; then
	pass "grammars: none built while recording by default; wpp builds them from the batches"
else
	fail "grammars by default: status $status, stderr: $(grep grammar "$K/spindef.err" | head -n 2)"
fi
if "$WPPTRACE" record --transport=shm --no-grammar --grammar-wait 1 -o "$K/x.wpp" -- "$K/spin" 0.1 \
	>/dev/null 2>"$K/conflict.err" || [ "$(wc -l <"$K/conflict.err")" != 1 ]; then
	fail "--no-grammar with --grammar-wait: not refused in one line: $(head -n 2 "$K/conflict.err")"
else
	pass "--no-grammar with --grammar-wait refused: $(cat "$K/conflict.err")"
fi
start=$(date +%s%N)
# At least 100 M iterations: on a loaded machine half a second of spinning
# was once 3.6 M words, a grammar finished inside the wait.
"$WPPTRACE" record --transport=shm --grammar -o "$K/spinwait.wpp" -- "$K/spin" 0.5 100000000 \
	>/dev/null 2>"$K/spinwait.err"
status=$?
ms=$((($(date +%s%N) - start) / 1000000))
# The line is the proof that the wait was cut short (a finished grammar
# does not print it); the wall bound only catches a wait that never ends,
# with room for a machine busy with other work.
if [ "$status" = 0 ] && grep -q "stopped building grammars after" "$K/spinwait.err" && [ "$ms" -lt 20000 ] &&
	"$WPPTRACE" info "$K/spinwait.wpp" >/dev/null 2>&1; then
	pass "grammar wait: bounded by default with --grammar ($ms ms for a 0.5 s spin, the rest left to wpp)"
else
	fail "grammar wait: status $status, $ms ms, stderr: $(head -n 2 "$K/spinwait.err")"
fi
finish
