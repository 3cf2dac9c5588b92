#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check-layers.sh — scripts/check-layers and scripts/include-paths against
# planted includes.  check-layers: on a
# copy of this tree it passes as the tree is, and fails (exit 1, one line
# naming the file, the header and both layers) on an include that points
# up (decode including a report header), on one of a test's header, and on
# a bare name that reaches up; an include across one layer (costs and
# kpaths, both "analyze") and one down stay allowed.
set -u
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
# A scratch copy outside the checkout: the copy is a git repository of its
# own, which the checkout's git must not come across.
WORK=$(mktemp -d) && mkdir -p "$WORK/tree" || exit 1
trap 'rm -rf "$WORK"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok:   $*"; }

(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard -- user symbolizer kmod-free bpf |
	xargs -0 cp --parents -t "$WORK/tree")
git -C "$WORK/tree" init -q && git -C "$WORK/tree" add -A

# expect RC PATTERN WHAT: check-layers on the copy exits RC, output matches PATTERN.
expect() {
	"$ROOT/scripts/check-layers" --root "$WORK/tree" >"$WORK/out" 2>&1
	local rc=$?
	if [ $rc -eq "$1" ] && grep -qE -- "$2" "$WORK/out"; then
		ok "$3: exit $rc, $(head -1 "$WORK/out")"
	else
		fail "$3: exit $rc (want $1): $(head -3 "$WORK/out")"
	fi
}
# plant FILE LINE: append an include to FILE of the copy (git sees it).
plant() { cp "$ROOT/$1" "$WORK/tree/$1" && echo "$2" >>"$WORK/tree/$1"; }
unplant() { cp "$ROOT/$1" "$WORK/tree/$1"; }

expect 0 "^check-layers: [0-9]+ includes of [0-9]+ rooms point down or across$" "the tree as it is"
plant user/decode/decoder.c '#include "report/profile.h"'
expect 1 "^user/decode/decoder.c:[0-9]+: includes report/profile.h: user/report \(report\) is above user/decode \(decode\)$" \
	"decode includes a report header"
unplant user/decode/decoder.c
plant user/common/log.c '#include "cli/commands.h"'
expect 1 "^user/common/log.c:[0-9]+: includes cli/commands.h: user/cli \(commands\) is above user/common \(base\)$" \
	"common includes a CLI header"
unplant user/common/log.c
plant user/analysis/grammar/hotsub.c '#include "report_html.h"'
expect 1 "^user/analysis/grammar/hotsub.c:[0-9]+: includes report_html.h: user/report \(report\) is above" \
	"a bare name (code written before the rewrite) reaching up"
unplant user/analysis/grammar/hotsub.c
plant user/runtime/rt_hello.c '#include "collect/online.h"'
expect 1 "user/collect \(collect\) is above user/runtime \(run\)" "the runtime includes the collector"
unplant user/runtime/rt_hello.c
mkdir -p "$WORK/tree/tests/unit/decode" && cp "$ROOT/tests/unit/decode/testlib.h" "$WORK/tree/tests/unit/decode/" &&
	git -C "$WORK/tree" add -A
plant user/decode/stream.c '#include "tests/unit/decode/testlib.h"'
expect 1 "^user/decode/stream.c:[0-9]+: includes tests/unit/decode/testlib.h: a room includes a test's header$" \
	"a room includes a test's header"
unplant user/decode/stream.c
plant user/costs/cost_attr.c '#include "analysis/kpaths/kslab.h"'
expect 0 "point down or across" "across one layer (costs -> kpaths) is allowed"
unplant user/costs/cost_attr.c

# include-paths on the same copy.
paths() { "$ROOT/scripts/include-paths" --root "$WORK/tree" "$@" >"$WORK/out" 2>&1; }
paths --check
rc=$?
[ $rc -eq 0 ] && ok "include-paths --check: nothing due" || fail "include-paths --check: exit $rc, $(head -3 "$WORK/out")"
plant user/costs/cost_attr.c '#include "trace_file.h"'
paths --check
rc=$?
[ $rc -eq 1 ] && grep -q "needs rewriting: user/costs/cost_attr.c" "$WORK/out" &&
	ok "include-paths --check: a bare name is due" || fail "include-paths --check on a bare name: exit $rc"
paths && tail -n 1 "$WORK/tree/user/costs/cost_attr.c" | grep -qx '#include "decode/trace_file.h"' &&
	ok "include-paths: the bare name now names its folder" || fail "include-paths: $(tail -n 1 "$WORK/tree/user/costs/cost_attr.c")"
cp "$WORK/tree/user/costs/cost_attr.c" "$WORK/once.c"
paths && cmp -s "$WORK/once.c" "$WORK/tree/user/costs/cost_attr.c" && paths --check &&
	ok "include-paths: a second run changes nothing" || fail "include-paths is not idempotent"
unplant user/costs/cost_attr.c
cp "$ROOT/user/common/log.h" "$WORK/tree/user/decode/log.h" && git -C "$WORK/tree" add -A
plant user/collect/online.c '#include "log.h"'
plant user/costs/cost_attr.c '#include "trace_file.h"' # due, but must not be written
paths
rc=$?
if [ $rc -ne 0 ] && grep -q 'user/collect/online.c: "log.h" is ambiguous: .*user/common/log.h' "$WORK/out" &&
	grep -q "user/decode/log.h" "$WORK/out" && tail -n 1 "$WORK/tree/user/collect/online.c" | grep -qx '#include "log.h"' &&
	tail -n 1 "$WORK/tree/user/costs/cost_attr.c" | grep -qx '#include "trace_file.h"'; then
	ok "include-paths: an ambiguous name fails, names both, changes nothing ($(cat "$WORK/out"))"
else
	fail "include-paths on an ambiguous name: exit $rc, $(head -3 "$WORK/out")"
fi

[ "$fails" -eq 0 ] && echo "all check-layers checks passed"
exit $((fails > 0))
