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
. "$(dirname "$0")/../oracle/lib.sh"
require_tools "$WPPCC" "$WPPTRACE"

for opt in ${ORACLE_OPTS:-O0 O2}; do
	build_variant "paths-$opt"
	build_variant "blocks-$opt"
	for name in ${ORACLE_PROGRAMS:-$(corpus_names)}; do
		what="blocks $opt $name"
		[ -x "$WORK/build/paths-$opt/$name" ] && [ -x "$WORK/build/blocks-$opt/$name" ] ||
			{ check_done; fail "$what: not built"; continue; }
		run_dir=$WORK/run/blocks-oracle
		p=$run_dir/$name.paths-$opt
		b=$run_dir/$name.blocks-$opt
		t=$run_dir/$name.paths-$opt-tiny
		run_prog record "paths-$opt" "$name" "$p"
		run_prog record "blocks-$opt" "$name" "$b"
		# Tiny buffers: hundreds of batches, records (and two-word wide
		# records) crossing batch ends, signal batches spliced mid-batch.
		# The decoded trace must not change.
		RECORD_OPTS="--buffer-words 16 --ring-slots 2" run_prog record "paths-$opt" "$name" "$t"
		bad=
		for x in "$b" "$t"; do
			if ! cmp -s "$p.stdout" "$x.stdout" || ! cmp -s "$p.status" "$x.status"; then
				check_done
				fail "$what: $(basename "$x") behaves differently (status $(cat "$p.status") vs $(cat "$x.status"))"
				diff "$p.stdout" "$x.stdout" | head -n 10 | sed 's/^/    /'
				show_file_head "$x.stderr" 5
				bad=1
			fi
		done
		[ -n "$bad" ] && continue
		check_done
		if [ ! -s "$p.wpp" ] || [ ! -s "$b.wpp" ] || [ ! -s "$t.wpp" ]; then
			fail "$what: no trace file written"
			show_file_head "$p.stderr" 5
			continue
		fi
		decode "$p" && decode "$b" && decode "$t" || { fail "$what: decode failed"; continue; }
		crashed=
		corpus_flag "$name" crash && crashed=--crashed
		# One comparator run: paths vs 16-word-buffer paths (strict), then the
		# independent regeneration, then paths vs blocks.
		out=$($CMP blocks "$p.jsonl" "$b.jsonl" --same-as "$t.jsonl" \
			--meta "$(meta_objects "paths-$opt" "$name")" $crashed 2>&1)
		if grep -q '^blocks: identical' <<<"$out" && ! grep -q '^FAIL' <<<"$out"; then
			pass "$what: $(grep '^blocks:' <<<"$out")"
		else
			fail "$what"
			grep -v '^same-as:' <<<"$out" | head -n 40
		fi
		check_done
		if grep -q '^same-as: identical' <<<"$out"; then
			pass "$what (16-word buffers vs default): $(grep '^same-as:' <<<"$out")"
		else
			fail "$what (16-word buffers vs default): $(grep '^same-as:' <<<"$out")"
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
