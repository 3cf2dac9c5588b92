#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# wpptrace script on hostile input: truncated and corrupted .wpp files, files
# that are not traces, a binary whose metadata section was removed, damaged
# metadata, bad arguments.  Each must produce exactly one error line on
# stderr, prefixed "wpptrace: ", a non-zero exit status, and never a crash
# (status < 128).  Damaged metadata may decode or fail, but never crash.
. "$(dirname "$0")/../oracle/lib.sh"
require_tools "$WPPCC" "$WPPTRACE"
w=$WORK/negative_wpp
rm -rf "$w" && mkdir -p "$w"

# expect_one_error WHAT ARGS...: wpptrace ARGS must fail with one clean line.
expect_one_error() {
	local what=$1
	shift
	check_done
	timeout -k 5 30 "$WPPTRACE" "$@" >"$w/out" 2>"$w/err"
	local rc=$? lines
	lines=$(wc -l <"$w/err")
	if [ $rc -eq 0 ]; then
		fail "$what: exit status 0 (expected an error)"
	elif [ $rc -ge 124 ]; then
		fail "$what: exit status $rc (crash, signal or timeout)"
	elif [ "$lines" -ne 1 ] || ! grep -q '^wpptrace: ' "$w/err"; then
		fail "$what: status $rc but stderr is not exactly one 'wpptrace: ' line ($lines lines):"
	else
		pass "$what: status $rc: $(cat "$w/err")"
		return
	fi
	show_file_head "$w/err" 6
}

# expect_no_crash WHAT ARGS...: any status below 124; all stderr lines clean.
expect_no_crash() {
	local what=$1
	shift
	check_done
	timeout -k 5 30 "$WPPTRACE" "$@" >"$w/out" 2>"$w/err"
	local rc=$?
	if [ $rc -ge 124 ]; then
		fail "$what: exit status $rc (crash, signal or timeout)"
		show_file_head "$w/err" 6
	elif grep -qv '^wpptrace: ' "$w/err"; then
		fail "$what: stderr has lines without the 'wpptrace: ' prefix:"
		show_file_head "$w/err" 6
	elif [ $rc -ne 0 ] && [ "$(wc -l <"$w/err")" -ne 1 ]; then
		fail "$what: failed with $(wc -l <"$w/err") stderr lines (expected exactly one)"
		show_file_head "$w/err" 6
	else
		pass "$what: status $rc"
	fi
}

# A good trace of a program in a private directory (so it can be damaged).
mkdir -p "$w/bin"
check_done
if ! "$WPPCC" -fwpp-mode=paths -O1 -g -I"$CORPUS" -o "$w/bin/prog" "$CORPUS/branches.c" >"$w/build.log" 2>&1; then
	fail "cannot build the test program"
	show_file_head "$w/build.log"
	finish
fi
"$WPPTRACE" record --transport=shm -o "$w/good.wpp" -- "$w/bin/prog" >/dev/null 2>"$w/record.err"
if [ ! -s "$w/good.wpp" ] || ! "$WPPTRACE" script "$w/good.wpp" --format jsonl >"$w/good.jsonl" 2>"$w/good.err" ||
	[ -s "$w/good.err" ] || [ ! -s "$w/good.jsonl" ]; then
	fail "the undamaged trace does not decode cleanly (needed as the baseline)"
	show_file_head "$w/record.err"
	show_file_head "$w/good.err"
	finish
fi
pass "baseline trace decodes ($(wc -l <"$w/good.jsonl") records)"

# A trace file that is the traced program's stdout (expect_one_error
# redirects stdout to $w/out) would be interleaved with its output.
expect_one_error "record -o FILE where FILE is the program's stdout" \
	record --transport=shm -o "$w/out" -- "$w/bin/prog"

# A program built without wppcc records nothing: exit 0 (the program's
# status), and a warning that says why the trace is empty.
check_done
"$WPPTRACE" record --transport=shm -o "$w/empty.wpp" -- /bin/true >"$w/out" 2>"$w/err"
rc=$?
if [ $rc -eq 0 ] && grep -q '^wpptrace: warning: record: nothing was traced: .*/bin/true' "$w/err"; then
	pass "record of a program without wppcc: status 0 and '$(grep 'nothing was traced' "$w/err")'"
else
	fail "record of a program without wppcc: status $rc, no 'nothing was traced' warning:"
	show_file_head "$w/err" 6
fi
size=$(stat -c %s "$w/good.wpp")
hdr=$($PY -c 'import struct,sys; print(struct.unpack_from("<I", open(sys.argv[1],"rb").read(), 12)[0])' "$w/good.wpp")

# Truncations: inside the file header, at its end, inside the first chunk
# header, in the middle, one byte and one word short of the end.
for cut in 0 1 7 8 15 $((hdr - 1)) "$hdr" $((hdr + 5)) $((hdr + 16)) $((size / 2)) $((size - 8)) $((size - 1)); do
	[ "$cut" -lt "$size" ] || continue
	head -c "$cut" "$w/good.wpp" >"$w/cut.wpp"
	expect_one_error "truncated at $cut of $size bytes" script "$w/cut.wpp" --format jsonl
	expect_one_error "truncated at $cut of $size bytes (wpp)" wpp "$w/cut.wpp"
	expect_one_error "truncated at $cut of $size bytes (hot)" hot "$w/cut.wpp"
done

# Byte flips: file magic, version, header size, first chunk's magic, type,
# length, crc, payload; a byte in the middle; the last byte (END chunk).
flip() { # flip OFFSET OUT: copy of good.wpp with one byte inverted
	$PY - "$w/good.wpp" "$2" "$1" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[int(sys.argv[3])] ^= 0xff
open(sys.argv[2], "wb").write(data)
PY
}
for off in 0 5 8 12 "$hdr" $((hdr + 4)) $((hdr + 8)) $((hdr + 12)) $((hdr + 16)) $((size / 2)) $((size - 1)); do
	flip "$off" "$w/flip.wpp"
	expect_one_error "byte $off of $size flipped" script "$w/flip.wpp" --format jsonl
	expect_one_error "byte $off of $size flipped (wpp)" wpp "$w/flip.wpp"
	expect_one_error "byte $off of $size flipped (hot)" hot "$w/flip.wpp"
done

# Files that are not traces at all.
: >"$w/empty.wpp"
expect_one_error "empty file" script "$w/empty.wpp"
expect_one_error "an ELF binary instead of a trace" script "$w/bin/prog"
head -c 4096 /dev/urandom >"$w/random.wpp"
expect_one_error "random bytes" script "$w/random.wpp"
expect_one_error "missing file" script "$w/no-such-file.wpp"
expect_one_error "a directory" script "$w"
expect_one_error "unknown output format" script "$w/good.wpp" --format bogus
expect_one_error "no trace argument" script
expect_one_error "unknown subcommand" no-such-command

# wpp's own arguments: outputs that are its input, raw streams that are
# not whole symbols, threads and paths that are not there, malformed SEQs.
cp "$w/good.wpp" "$w/keep.wpp"
ln -sf good.wpp "$w/link.u32"
expect_one_error "wpp --raw-out onto the recording" wpp "$w/good.wpp" --raw-out "$w/good.wpp"
expect_one_error "wpp --raw-out onto a link to the recording" wpp "$w/good.wpp" --raw-out "$w/link.u32"
check_done
if cmp -s "$w/good.wpp" "$w/keep.wpp"; then
	pass "the recording is unchanged after the refused --raw-out"
else
	fail "--raw-out changed the recording it was refused for"
fi
printf 'abc' >"$w/three.u32"
printf 'abcdefgh' >"$w/two.u32"
expect_one_error "wpp --from-raw of 3 bytes" wpp --from-raw "$w/three.u32" -o "$w/g.wpp"
expect_one_error "wpp with an unknown option" wpp "$w/good.wpp" --bogus
expect_one_error "wpp --freq without its value" wpp "$w/good.wpp" --freq
expect_one_error "wpp --from-raw -o its own input" wpp --from-raw "$w/two.u32" -o "$w/two.u32"
expect_one_error "wpp --tid of no thread" wpp "$w/good.wpp" --tid 999999999
expect_one_error "hot --pid of no process" hot "$w/good.wpp" --pid 999999999
expect_one_error "script --tid of no thread" script "$w/good.wpp" --tid 999999999
# every command with a thread filter, matching no thread: one error line,
# exit 2, no output
for args in "paths --pid" "report --pid" "report --tid" "annotate main --pid" "cfg main --tid" \
	"export --format pprof -o $w/none.pb.gz --pid" "kpaths --pid" "kpaths --tid" \
	"edges -o $w/none.edges --pid" "interesting -o $w/none.int --tid"; do
	# shellcheck disable=SC2086
	set -- $args
	cmd=$1
	shift
	expect_one_error "$cmd ${*: -1} of no thread" $cmd "$w/good.wpp" "$@" 999999999
	check_done
	timeout -k 5 30 "$WPPTRACE" $cmd "$w/good.wpp" "$@" 999999999 >"$w/out" 2>/dev/null
	rc=$?
	if [ $rc -ne 2 ]; then
		fail "$cmd ${*: -1} of no thread: exit status $rc, not 2"
	elif [ -s "$w/out" ] || [ -e "$w/none.pb.gz" ] || [ -e "$w/none.edges" ] || [ -e "$w/none.int" ]; then
		fail "$cmd ${*: -1} of no thread: wrote output"
	else
		pass "$cmd ${*: -1} of no thread: exit 2, no output"
	fi
done
expect_one_error "wpp --freq of an unknown function" wpp "$w/good.wpp" --freq nosuch:3
expect_one_error "wpp --freq ''" wpp "$w/good.wpp" --freq ''
expect_one_error "wpp --freq with an empty element" wpp "$w/good.wpp" --freq p0,,p0
expect_one_error "wpp --order of 17 paths" wpp "$w/good.wpp" --order p0,p0,p0,p0,p0,p0,p0,p0,p0,p0,p0,p0,p0,p0,p0,p0,p0
expect_one_error "wpp --context-len without --context" wpp "$w/good.wpp" --context-len 3
expect_one_error "wpp --expand with a query" wpp "$w/good.wpp" --expand --order p0
expect_one_error "wpp --expand --format json" wpp "$w/good.wpp" --expand --format json
expect_one_error "wpp -o without --from-raw" wpp "$w/good.wpp" -o "$w/o.wpp"
expect_one_error "wpp --from-raw with a thread filter" wpp --from-raw "$w/two.u32" -o "$w/g.wpp" --tid 3
expect_one_error "wpp --from-raw with a query" wpp --from-raw "$w/two.u32" -o "$w/g.wpp" --freq p1
expect_one_error "wpp --freq with a newline in a path" wpp "$w/good.wpp" --freq $'p1\n'
expect_one_error "record --ring-size not a power of two" record --ring-size 3M -o "$w/r.wpp" -- /bin/true
expect_one_error "record --ring-size below a page" record --ring-size 1K -o "$w/r.wpp" -- /bin/true

# The traced binary loses its metadata section after recording.
cp "$w/bin/prog" "$w/bin/prog.orig"
objcopy --remove-section=wpp_meta "$w/bin/prog"
expect_one_error "binary without wpp_meta" script "$w/good.wpp" --format jsonl
expect_no_crash "binary without wpp_meta (paths)" paths "$w/good.wpp"

# The traced binary is gone.
mv "$w/bin/prog" "$w/bin/prog.stripped"
expect_one_error "traced binary deleted" script "$w/good.wpp" --format jsonl

# Damaged metadata: bytes of the blob flipped in place (header fields, the
# function table, the middle, the end).  Must not crash.
cp "$w/bin/prog.orig" "$w/bin/prog"
# Offset and size of the wpp_meta section, from the ELF section headers
# (the oracle's own ELF reader, wppmeta.py).
read -r meta_off meta_size < <($PY - "$ORACLE" "$w/bin/prog" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import wppmeta
r = wppmeta.elf_section_range(sys.argv[2], b"wpp_meta")
if r:
    print(*r)
PY
)
if [ -z "${meta_off:-}" ]; then
	check_done
	fail "cannot locate the wpp_meta section of the test binary"
else
	for rel in 0 8 12 16 40 44 48 72 80 $((meta_size / 2)) $((meta_size - 1)); do
		[ "$rel" -lt "$meta_size" ] || continue
		cp "$w/bin/prog.orig" "$w/bin/prog.tmp"
		$PY - "$w/bin/prog.tmp" $((meta_off + rel)) <<'PY'
import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); b = f.read(1); f.seek(int(sys.argv[2]))
f.write(bytes([b[0] ^ 0xff])); f.close()
PY
		mv "$w/bin/prog.tmp" "$w/bin/prog"
		expect_no_crash "metadata byte $rel of $meta_size flipped (script)" script "$w/good.wpp" --format jsonl
		expect_no_crash "metadata byte $rel of $meta_size flipped (paths)" paths "$w/good.wpp"
	done
fi

# Every command's getopt failures: one "wpptrace: CMD: ..." line (bad_option),
# not getopt's own unprefixed message followed by a second line.
g=$w/good.wpp
expect_one_error "script with an unknown option" script "$g" --bogus
expect_one_error "script --format without its value" script "$g" --format
expect_one_error "paths with an unknown option" paths "$g" --bogus
expect_one_error "paths --top without its value" paths "$g" --top
expect_one_error "report with an unknown option" report "$g" --bogus
expect_one_error "report --by without its value" report "$g" --by
expect_one_error "annotate with an unknown option" annotate "$g" main --bogus
expect_one_error "annotate --sort without its value" annotate "$g" main --sort
expect_one_error "cfg with an unknown option" cfg "$g" main --bogus
expect_one_error "cfg --output without its value" cfg "$g" main --output
expect_one_error "export with an unknown option" export "$g" --bogus
expect_one_error "export --output without its value" export "$g" --format pprof --output
expect_one_error "kpaths with an unknown option" kpaths "$g" --bogus
expect_one_error "kpaths --min-count without its value" kpaths "$g" --min-count
expect_one_error "kpaths --min-count not a number" kpaths "$g" --min-count 1x
expect_one_error "info with an unknown option" info "$g" --bogus
expect_one_error "info --format without its value" info "$g" --format
expect_one_error "record with an unknown option" record --bogus -- /bin/true
expect_one_error "record -o without its value" record -o
finish
