#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpf-sigkill — a collector killed with SIGKILL mid-run leaves a file that
# `wpptrace info` and `wpptrace script` read up to its last complete chunk.
. "$(dirname "$0")/bpf-lib.sh"

# Without runs (WPP_CTRL_REPEAT): info counts trace words, script counts
# paths, and the check below wants one path per word.
build mtwork "$PROGS/mtwork.c" -fwpp-no-runs || finish
(cd "$WORK" && exec "$WPPTRACE" record -q -o killed.wpp -- ./mtwork 2 400000000 >/dev/null 2>&1) &
rec=$!
# Killed once the file holds 4 MB of trace (the event), however long that
# takes on a busy machine.
file_over_4mb() { [ "$(stat -c %s "$WORK/killed.wpp" 2>/dev/null || echo 0)" -gt 4000000 ]; }
wait_until "the recording to pass 4 MB" file_over_4mb
# The traced program is the recorder's child; it would outlive the kill.
kids=$(pgrep -P $rec)
kill -9 $rec
wait $rec 2>/dev/null
for k in $kids; do kill -9 "$k" 2>/dev/null; done
info "$WORK/killed.wpp" >"$WORK/killed.info" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "^status      incomplete" "$WORK/killed.info"; then
	pass "info reads the killed file: $(grep '^status' "$WORK/killed.info" | cut -c13-)"
else
	fail "info on the killed file: rc $rc: $(head -3 "$WORK/killed.info")"
fi
ev=$(awk '$1 == "words" { print $2 }' "$WORK/killed.info")
[ "${ev:-0}" -gt 0 ] && pass "info: $ev words before the kill" || fail "info: no words"
# counted as it streams: the decoded trace would be gigabytes
n=$({
	"$WPPTRACE" script "$WORK/killed.wpp" --format jsonl 2>"$WORK/killed.script.err"
	echo $? >"$WORK/killed.script.rc"
} | grep -c '"type":"path"')
rc=$(cat "$WORK/killed.script.rc")
# 3 = incomplete input: all intact chunks were decoded (docs/cli.md).
if [ "$n" = "$ev" ] && [ $rc = 3 ]; then
	pass "script decodes all $n events up to the last complete chunk"
else
	fail "script decoded $n paths, info counted $ev events: $(head -2 "$WORK/killed.script.err")"
fi
finish
