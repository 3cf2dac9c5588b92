#!/usr/bin/env bash
# Short smoke run of the decode fuzz driver, seeded with a valid .wpp file
# and a valid metadata section from the test_decode fixture.  Long runs:
#   build/tests/unit/decode/fuzz_decode -max_total_time=600 CORPUS_DIR
set -euo pipefail
cd "$(dirname "$0")/../../.."
fuzz=build/tests/unit/decode/fuzz_decode
work=$(mktemp -d /tmp/wpp-fuzz-smoke.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/fixture" "$work/corpus"
build/tests/unit/decode/test_decode --write-fixture "$work/fixture" >/dev/null
{ printf '\x01'; cat "$work/fixture/run.wpp"; } >"$work/corpus/wpp"
{ printf '\x03'; cat "$work/fixture/run.wpp"; } >"$work/corpus/wpp-crcfix"
# The section's bytes, dumped into a file of ours.  Not `-O binary`: it
# copies only loaded sections (wpp_meta is not one, so the seed was empty),
# and not to /dev/stdout: objcopy renames a temporary file over its output,
# which replaced the machine's /dev/stdout with a regular file.
objcopy --dump-section wpp_meta="$work/meta.bin" "$work/fixture/prog.elf" "$work/prog.copy"
test -s "$work/meta.bin"
{ printf '\x00'; cat "$work/meta.bin"; } >"$work/corpus/meta"
"$fuzz" -artifact_prefix="$work/" -runs=20000 -seed=1 -max_len=4096 "$work/corpus" 2>"$work/log" || { tail -40 "$work/log"; cp "$work"/crash-* tests/work/ 2>/dev/null; exit 1; }
grep -E '^(#[0-9]+ +DONE|Done)' "$work/log" | tail -1
