#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Golden outputs of report / annotate / cfg on a small deterministic program
# (tests/e2e/report-data/golden.c), exact tables with the temp dir scrubbed;
# then the same trace after the binary was rebuilt: a clear message naming
# the missing build-id.  Set REPORT_GOLDEN_UPDATE=1 to rewrite the goldens.
. "$(dirname "$0")/report-lib.sh"
cp "$DATA/golden.c" "$WORK/golden.c"
( cd "$WORK" && "$WPPCC" -O1 -g golden.c -o golden ) || { fail "build"; finish; }
record "$WORK/run.wpp" "$WORK/golden" >/dev/null 2>"$WORK/rec.err" || fail "record"
pids_of "$WORK/run.wpp"
check() { # NAME ARGS...: compare the scrubbed stdout with report-data/NAME.golden
	local name=$1; shift
	"$WPPTRACE" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || { fail "$name: exit $?"; cat "$WORK/$name.err"; return; }
	scrub <"$WORK/$name.out" >"$WORK/$name.txt"
	if [ -n "${REPORT_GOLDEN_UPDATE:-}" ]; then cp "$WORK/$name.txt" "$DATA/$name.golden"; fi
	if diff -u "$DATA/$name.golden" "$WORK/$name.txt"; then pass "$name"; else fail "$name differs from golden"; fi
	if awk 'length > 100 { exit 1 }' "$WORK/$name.txt"; then :; else
		case $name in *json*|*dot*) ;; *) fail "$name: a line is wider than 100 columns" ;; esac
	fi
}
check report-path report "$WORK/run.wpp"
check report-function report "$WORK/run.wpp" --by function --sort cost
check report-process report "$WORK/run.wpp" --by process
check report-json report "$WORK/run.wpp" --format json --top 3
check annotate-main annotate "$WORK/run.wpp" main
check annotate-weigh-json annotate "$WORK/run.wpp" weigh --format json
check cfg-weigh-dot cfg "$WORK/run.wpp" weigh
# JSON must parse
for f in report-json annotate-weigh-json; do
	python3 -m json.tool "$WORK/$f.out" >/dev/null && pass "$f parses" || fail "$f is not JSON"
done
# SVG through Graphviz
if "$WPPTRACE" cfg "$WORK/run.wpp" weigh -o "$WORK/weigh.svg" && grep -q '<svg' "$WORK/weigh.svg" &&
	grep -q 'weigh' "$WORK/weigh.svg"; then pass "cfg -o svg"; else fail "cfg -o svg"; fi
# Unknown function: one error line, exit 1
"$WPPTRACE" annotate "$WORK/run.wpp" no_such_fn >/dev/null 2>"$WORK/nf.err"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$WORK/nf.err")" -eq 1 ] && grep -q '^wpptrace: ' "$WORK/nf.err" &&
	pass "unknown function" || fail "unknown function: rc $rc $(cat "$WORK/nf.err")"
# Bad arguments: exit 2
"$WPPTRACE" report "$WORK/run.wpp" --by nonsense 2>/dev/null; [ $? -eq 2 ] && pass "bad --by" || fail "bad --by"
# Rebuilt binary: its build-id no longer matches; the message names it
( cd "$WORK" && sed -i 's/return 10;/return 11;/' golden.c && "$WPPCC" -O1 -g golden.c -o golden ) || fail "rebuild"
"$WPPTRACE" report "$WORK/run.wpp" >"$WORK/rebuilt.out" 2>"$WORK/rebuilt.err"; rc=$?
if [ $rc -eq 1 ] && grep -q 'build-id .* does not match the recorded [0-9a-f]\{8,\}' "$WORK/rebuilt.err"; then
	pass "rebuilt binary: $(head -c 160 "$WORK/rebuilt.err")"
else
	fail "rebuilt binary: rc $rc, $(cat "$WORK/rebuilt.err")"
fi
finish
