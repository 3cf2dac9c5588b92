#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kpaths-profile.sh — a 1-IPF is the plain path profile: `kpaths -k 1 --all`
# lists exactly the (function, path, count) rows of `paths --format json`,
# on real wppcc-built programs recorded with --transport=shm.  Also: bad
# command lines and a damaged file give one "wpptrace: " line and exit != 0.
. "$(dirname "$0")/kpaths-lib.sh"

compare_profile() {
	python3 - "$1" "$2" <<'PY'
import collections, json, sys
paths = json.load(open(sys.argv[1]))
kp = json.load(open(sys.argv[2]))
want = collections.Counter()
for r in paths["paths"]:
    want[(r["function"], r.get("path", r.get("block")))] += r["count"]
got = collections.Counter()
for p in kp["processes"]:
    for k in p["kpaths"]:
        assert len(k["paths"]) == 1, k
        st = k["paths"][0]
        got[(st["function"], st.get("path", st.get("block")))] += k["count"]
if want != got or not want:
    print("differ:", sorted((want - got).items())[:5], sorted((got - want).items())[:5])
    sys.exit(1)
print("%d paths, %d executions" % (len(want), sum(want.values())))
PY
}

for prog in interp threads recursion; do
	record_corpus "$prog" || continue
	w=$WORK/$prog.wpp
	"$WPPTRACE" paths "$w" --format json >"$WORK/$prog.paths.json" || { fail "$prog: paths"; continue; }
	"$WPPTRACE" kpaths "$w" -k 1 --all --top 0 --format json >"$WORK/$prog.k1.json" ||
		{ fail "$prog: kpaths -k 1"; continue; }
	if out=$(compare_profile "$WORK/$prog.paths.json" "$WORK/$prog.k1.json"); then
		ok "$prog: 1-IPF == paths profile ($out)"
	else
		fail "$prog: 1-IPF != paths profile: $out"
	fi
	# The text view runs and names the hottest k-path's function.
	if "$WPPTRACE" kpaths "$w" -k 8 --top 2 | grep -q '^#1  count'; then
		ok "$prog: text view"
	else
		fail "$prog: text view"
	fi
done

w=$WORK/interp.wpp
expect_error() {
	local what=$1
	shift
	local err
	err=$("$WPPTRACE" kpaths "$@" 2>&1 >/dev/null)
	local rc=$?
	if [ $rc -ne 0 ] && [ "$(printf '%s\n' "$err" | grep -c '^wpptrace: ')" -ge 1 ]; then
		ok "rejects $what (exit $rc)"
	else
		fail "$what: exit $rc, stderr: $err"
	fi
}
expect_error "-k 0" "$w" -k 0
expect_error "-k 33" "$w" -k 33
expect_error "bad --top" "$w" --top x
expect_error "no file" 
expect_error "missing file" "$WORK/nonexistent.wpp"
expect_error "--source stored without a stored per-activation forest" "$w" --source stored
expect_error "--source stored without a stored forest" "$w" --source stored --flat
printf 'garbage' >"$WORK/garbage.wpp"
expect_error "garbage file" "$WORK/garbage.wpp"
finish
