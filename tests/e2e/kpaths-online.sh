#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kpaths-online.sh — `record -k 8` builds each thread's k-slab forest online
# in the collector and stores it as KIPF chunks; `kpaths` reading those
# chunks (--source stored) must give exactly the k-IPF built offline from
# the batches of the same file (--source trace): every k-path, every count,
# at k = 8 and cut to k = 3 and 1.  The stored forests are per activation
# (the collector has the modules' metadata, kslab_online.h);
# the test checks that view, and that the other view is
# built from the trace.  With --prune-nodes the stored forests keep the
# error bound against the exact offline forest.
. "$(dirname "$0")/kpaths-lib.sh"

same_kpaths() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
def load(p, want_source):
    d = json.load(open(p)); out = {}
    for pr in d["processes"]:
        if pr["source"] != want_source:
            sys.exit("%s: source %s, expected %s" % (p, pr["source"], want_source))
        for k in pr["kpaths"]:
            key = (pr["pid"], pr["gen"], tuple((s["fid"], s.get("path", s.get("block"))) for s in k["paths"]))
            out[key] = k["count"]
    return out
stored = load(sys.argv[1], "stored"); trace = load(sys.argv[2], "trace")
if stored != trace or not stored:
    diff = [k for k in set(stored) | set(trace) if stored.get(k) != trace.get(k)]
    sys.exit("%d of %d k-paths differ, e.g. %r: stored %s trace %s" % (
        len(diff), len(trace), diff[0][2] if diff else None,
        stored.get(diff[0]) if diff else None, trace.get(diff[0]) if diff else None))
print("k = %s: %d k-paths, %d records identical" % (sys.argv[3], len(trace),
      sum(c for (p, g, ks), c in trace.items() if len(ks) == 1)))
PY
}

for t in "$WPPCC" "$WPPTRACE"; do
	[ -x "$t" ] || { echo "FAIL: $t missing (run make)"; exit 1; }
done
for prog in interp threads recursion; do
	args=()
	[ "$prog" = recursion ] && args=(12)
	"$WPPCC" -O1 -pthread -o "$WORK/$prog.online" "$ROOT/tests/corpus/$prog.c" ||
		{ fail "$prog: wppcc failed"; continue; }
	w=$WORK/$prog.online.wpp
	"$WPPTRACE" -q record --transport=shm -k 8 -o "$w" -- "$WORK/$prog.online" "${args[@]}" \
		>/dev/null 2>"$WORK/$prog.online.err" </dev/null ||
		{ fail "$prog: record -k 8: $(head -3 "$WORK/$prog.online.err")"; continue; }
	# The collector has the modules' metadata, so it stores the
	# per-activation view (--source stored fails for the other).
	if "$WPPTRACE" kpaths "$w" --source stored -k 1 >/dev/null 2>&1; then
		view=(); vname=activation; other=(--flat); oname=flat
	else
		fail "$prog: record -k stored no per-activation forest"
		view=(--flat); vname=flat; other=(); oname=activation
	fi
	for k in 8 3 1; do
		for src in stored trace; do
			"$WPPTRACE" kpaths "$w" "${view[@]}" --source $src -k $k --all --top 0 --format json \
				>"$WORK/$prog.online.$src.k$k.json" ||
				{ fail "$prog: kpaths ${view[*]} --source $src -k $k"; continue 2; }
		done
		if out=$(same_kpaths "$WORK/$prog.online.stored.k$k.json" "$WORK/$prog.online.trace.k$k.json" $k); then
			ok "$prog: stored ($vname view) == offline, $out"
		else
			fail "$prog: stored ($vname view) != offline: $out"
		fi
	done
	# Without -k, kpaths picks the stored depth.
	if "$WPPTRACE" kpaths "$w" "${view[@]}" --format json | python3 -c '
import json, sys; d = json.load(sys.stdin)
sys.exit(d["k"] != 8 or any(p["source"] != "stored" or p["view"] != sys.argv[1] for p in d["processes"]))' "$vname"; then
		ok "$prog: the $vname view uses the stored forests at their depth"
	else
		fail "$prog: the $vname view did not use the stored depth-8 forests"
	fi
	if "$WPPTRACE" kpaths "$w" "${other[@]}" -k 8 --format json | python3 -c '
import json, sys; d = json.load(sys.stdin)
sys.exit(any(p["source"] != "trace" or p["view"] != sys.argv[1] for p in d["processes"]))' "$oname"; then
		ok "$prog: the $oname view is built from the trace"
	else
		fail "$prog: the $oname view did not come from the trace"
	fi
	rm -f "$w"
done

# record -k 8 --prune-nodes: the stored forests were pruned on the fly and
# keep the error bound against the exact offline forest: every count c of
# the stored forest satisfies c <= true <= c + lost_items.
prog=interp
"$WPPCC" -O1 -pthread -o "$WORK/$prog" "$ROOT/tests/corpus/$prog.c" || fail "$prog: wppcc failed"
w=$WORK/$prog.pruned.wpp
if "$WPPTRACE" -q record --transport=shm -k 8 --prune-nodes 128 -o "$w" -- "$WORK/$prog" \
	>/dev/null 2>"$WORK/$prog.pruned.err" </dev/null &&
	"$WPPTRACE" kpaths "$w" --source stored -k 8 --all --top 0 --format json >"$WORK/$prog.ps.json" &&
	"$WPPTRACE" kpaths "$w" --source trace -k 8 --all --top 0 --format json >"$WORK/$prog.pt.json"; then
	if out=$(python3 - "$WORK/$prog.ps.json" "$WORK/$prog.pt.json" <<'PY'
import json, sys
def load(p):
    d = json.load(open(p)); out = {}; lost = 0
    for pr in d["processes"]:
        lost = max(lost, pr["lost_items"])
        for k in pr["kpaths"]:
            out[(pr["pid"], tuple((s["fid"], s.get("path", s.get("block"))) for s in k["paths"]))] = k["count"]
    return out, lost
pruned, lost = load(sys.argv[1]); exact, _ = load(sys.argv[2])
if not lost:
    sys.exit("the stored forests were not pruned")
for key, c in exact.items():
    p = pruned.get(key, 0)
    if not (p <= c <= p + lost):
        sys.exit("%r: stored %d, exact %d, lost %d" % (key[1], p, c, lost))
if set(pruned) - set(exact):
    sys.exit("stored k-paths the trace does not have")
print("lost %d; %d of %d k-paths kept, every count within the bound" % (lost, len(pruned), len(exact)))
PY
); then
		ok "$prog: record --prune-nodes: $out"
	else
		fail "$prog: record --prune-nodes: $out"
	fi
else
	fail "$prog: record -k 8 --prune-nodes 128 / kpaths: $(head -1 "$WORK/$prog.pruned.err")"
fi
rm -f "$w"
finish
