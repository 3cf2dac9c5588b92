#!/usr/bin/env bash
# bin/wpptrace script/paths on the test_decode fixture: output formats parse
# and carry the expected records; damaged inputs give one clear line and the
# documented exit status.
set -euo pipefail
cd "$(dirname "$0")/../../.."
W=bin/wpptrace
work=$(mktemp -d /tmp/wpp-cli-smoke.XXXXXX)
trap 'rm -rf "$work"' EXIT
build/tests/unit/decode/test_decode --write-fixture "$work" >/dev/null
run="$work/run.wpp"
fail() { echo "FAIL: $*" >&2; exit 1; }

$W --version | grep -q '^wpptrace ' || fail "--version"
$W --help | grep -q 'script' || fail "--help"
$W help paths | grep -q -- '--top' || fail "help paths"
set +e
$W nosuchcmd 2>"$work/err"; [ $? -eq 2 ] || fail "unknown command exit"
$W script 2>"$work/err"; [ $? -eq 2 ] || fail "missing file exit"
$W script "$run" --format xml 2>"$work/err"; [ $? -eq 2 ] || fail "bad format exit"
set -e

# jsonl: one object per line; the first thread's records in order.
$W script "$run" --format jsonl >"$work/out.jsonl" 2>"$work/err"
python3 - "$work/out.jsonl" <<'PY'
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
t100 = [o for o in objs if o["tid"] == 100]
kinds = [o["type"] for o in t100]
want = ["path", "path", "path", "path", "unattributed", "unattributed", "gap", "corrupt",
        "block", "corrupt", "unattributed", "corrupt", "corrupt"]
assert kinds == want, kinds
p0 = t100[0]
assert p0["function"] == "diamond" and p0["path"] == 0 and p0["fid"] == 10, p0
assert p0["start"] == "entry" and p0["end"] == "return", p0
assert [b["block"] for b in p0["blocks"]] == [0, 1, 3], p0
assert [b["line"] for b in p0["blocks"]] == [1, 2, 4], p0
assert all(b["file"] == "t.c" for b in p0["blocks"])
assert t100[3]["path"] == 7 and t100[3]["start"] == "back-edge" and t100[3]["end"] == "back-edge"
assert [o["seq"] for o in t100] == list(range(len(t100)))
assert t100[6]["lost_words"] == 42
t101 = [o for o in objs if o["tid"] == 101]
assert [o["path"] for o in t101] == [3, 4], t101
PY
# json: one document with the same events
$W script "$run" --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert len(d["threads"]) == 2 and d["summary"]["paths"] == 6 and d["summary"]["complete"], d["summary"]
'
$W script "$run" --tid 101 | grep -q 'diamond  path 4' || fail "text script / --tid"
[ "$($W script "$run" --pid 100 --format jsonl | grep -c '"tid":101')" = 0 ] || fail "--pid filter"

# paths: counts, text width, json
$W paths "$run" >"$work/paths.txt"
awk 'length > 100 { print "line too long: " $0; bad = 1 } END { exit bad }' "$work/paths.txt"
$W paths "$run" --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
rows = {(r["function"], r.get("path", r.get("block"))): r for r in d["paths"]}
assert d["totals"]["executions"] == 7, d["totals"]
r = rows[("diamond", 0)]
assert r["count"] == 1 and r["blocks"] == 3 and r["insns"] == 1 + 2 + 4 and r["count_insns"] == 7, r
assert r["line_min"] == 1 and r["line_max"] == 4, r
assert d["totals"]["corrupt"] == 4 and d["totals"]["unattributed"] == 3, d["totals"]
'
[ "$($W paths "$run" --top 2 | grep -c 'diamond')" -ge 1 ] || fail "--top"

# Truncated file: intact prefix decoded, one warning with the offset, exit 3
# (incomplete input).
size=$(stat -c %s "$run")
head -c $((size - 30)) "$run" >"$work/trunc.wpp"
rc=0
$W script "$work/trunc.wpp" --format jsonl >"$work/t.out" 2>"$work/t.err" || rc=$?
[ $rc = 3 ] || fail "truncated exit"
# (the fixture's deliberately wrong build-id adds its own warning line)
[ "$(grep -c 'truncated' "$work/t.err")" = 1 ] && grep -q 'truncated chunk at offset [0-9]' "$work/t.err" &&
	! grep -q 'error:' "$work/t.err" || fail "truncated warning: $(cat "$work/t.err")"
[ -s "$work/t.out" ] || fail "truncated: nothing decoded"

# A flipped byte in the middle: error line, prefix still decoded, exit 1.
cp "$run" "$work/flip.wpp"
printf '\xff' | dd of="$work/flip.wpp" bs=1 seek=$((size / 2)) conv=notrunc status=none
set +e
$W paths "$work/flip.wpp" >/dev/null 2>"$work/f.err"; rc=$?
set -e
[ $rc -eq 1 ] && grep -q 'error:.*corrupt' "$work/f.err" || fail "corrupt file: rc=$rc $(cat "$work/f.err")"

# Not a .wpp / no metadata: exactly one line, non-zero.
set +e
$W script /bin/true 2>"$work/n.err"; rc=$?
set -e
[ $rc -ne 0 ] && [ "$(wc -l <"$work/n.err")" = 1 ] || fail "not a wpp"
set +e
$W paths "$work/nometa.wpp" >/dev/null 2>"$work/m.err"; rc=$?
set -e
[ $rc -eq 1 ] && [ "$(wc -l <"$work/m.err")" = 1 ] && grep -q 'no usable path metadata' "$work/m.err" ||
	fail "no metadata: rc=$rc $(cat "$work/m.err")"
echo "cli smoke: ok"
