#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Differential blocks oracle: every corpus program is built twice with wppcc,
# -fwpp-mode=paths (Ball-Larus path ids) and -fwpp-mode=blocks (naive: each
# block entered is recorded directly), at -O0 and -O2; both are recorded with
# the shm transport and decoded.  The per-thread block sequences must be
# identical, and so must stdout and exit status.  The paths build is also
# recorded with 16-word buffers; its decoded trace must equal the default one.
# Every decoded path is also regenerated from the binary's metadata by an
# independent reader (tests/oracle/wppmeta.py) and must match the decoder.
# ORACLE_CALL_RULE=1 (diagnostic) compares with call blocks moved to the path
# that ended before the call (see wppcmp.py --call-rule).
. "$(dirname "$0")/../oracle/lib.sh"
require_tools "$WPPCC" "$WPPTRACE"

for opt in ${ORACLE_OPTS:-O0 O2}; do
	build_variant "paths-$opt"
	build_variant "blocks-$opt"
	for name in ${ORACLE_PROGRAMS:-$(corpus_names)}; do
		check_done
		what="blocks $opt $name"
		[ -x "$WORK/build/paths-$opt/$name" ] && [ -x "$WORK/build/blocks-$opt/$name" ] ||
			{ fail "$what: not built"; continue; }
		run_dir=$WORK/run/blocks-oracle
		p=$run_dir/$name.paths-$opt
		b=$run_dir/$name.blocks-$opt
		run_prog record "paths-$opt" "$name" "$p"
		run_prog record "blocks-$opt" "$name" "$b"
		if ! cmp -s "$p.stdout" "$b.stdout" || ! cmp -s "$p.status" "$b.status"; then
			fail "$what: paths and blocks builds behave differently (status $(cat "$p.status") vs $(cat "$b.status"))"
			diff "$p.stdout" "$b.stdout" | head -n 10 | sed 's/^/    /'
			show_file_head "$p.stderr" 5
			continue
		fi
		if [ ! -s "$p.wpp" ] || [ ! -s "$b.wpp" ]; then
			fail "$what: no trace file written"
			show_file_head "$p.stderr" 5
			continue
		fi
		decode "$p" && decode "$b" || { fail "$what: decode failed"; continue; }
		crashed=
		corpus_flag "$name" crash && crashed=--crashed
		if out=$($CMP blocks "$p.jsonl" "$b.jsonl" --meta "$(meta_objects "paths-$opt" "$name")" \
			${ORACLE_CALL_RULE:+--call-rule} $crashed 2>&1); then
			pass "$what: $(tail -n 1 <<<"$out")"
		else
			fail "$what"
			head -n 40 <<<"$out"
		fi
		# Tiny buffers: hundreds of batches, records (and two-word wide
		# records) crossing batch ends, signal batches spliced mid-batch.
		# The decoded trace must not change.
		check_done
		t=$run_dir/$name.paths-$opt-tiny
		RECORD_OPTS="--buffer-words 16 --ring-slots 2" run_prog record "paths-$opt" "$name" "$t"
		if ! cmp -s "$p.stdout" "$t.stdout" || ! cmp -s "$p.status" "$t.status"; then
			fail "$what (16-word buffers): output or status changed (status $(cat "$t.status"))"
			show_file_head "$t.stderr" 5
		elif ! decode "$t"; then
			fail "$what (16-word buffers): decode failed"
		elif out=$($CMP blocks "$p.jsonl" "$t.jsonl" 2>&1); then
			pass "$what (16-word buffers vs default): $(tail -n 1 <<<"$out")"
		else
			fail "$what (16-word buffers vs default)"
			head -n 40 <<<"$out"
		fi
		if [ "$name" = wide_paths ]; then
			check_done
			if out=$($CMP wide "$p.jsonl" 2>&1); then
				pass "wide records/truncation $opt: $out"
			else
				fail "wide records/truncation $opt"
				echo "$out"
			fi
		fi
	done
done
finish
