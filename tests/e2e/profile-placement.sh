#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Profile-guided placement (wppcc --wpp-profile, wpptrace edges; issue 27):
# for deterministic corpus programs, a build placed by a recording's edge
# profile must
#   - run with the same output and decode to exactly the same path profile
#     (`wpptrace paths`, byte for byte but the file name) as the static build;
#   - execute no more path-register increments than the static build (the
#     tree is a maximum spanning tree of the measured counts), fewer on at
#     least one program;
#   - be the same code whether given the edge profile or the recording
#     (converted once into XDG_CACHE_HOME);
# and the edge profile itself must conserve flow (into every block as much
# as out of it) and count each path's executions on its entry edge; two
# recordings given together sum edge by edge.  A
# function changed since the profile: one warning line naming it, the
# build goes on.  A corrupt or missing profile: one error line, exit 1.
# Two static functions of one name in two files are told apart by their
# source file (edge profile version 2): the one that never ran is not
# "changed"; a version 1 profile is still read, with the same code.
# What the profile steers besides placement — codegen's branch weights and
# which loops count runs, by measured trip counts — changes the code and
# the words written, never the paths: a search loop with five ways out,
# which the static trip estimate leaves alone, counts runs in the guided
# build (far fewer words), and every build reads the same path profile.
. "$(dirname "$0")/corpus-lib.sh"

# flow conservation and entry counts of an edge profile
check_flow() {
	python3 - "$1" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[0] == "wpp-edge-profile 2", "magic"
fn, edges, bad = None, [], []
def close():
    if fn is None:
        return
    nb = max(max(s, d) for s, d, k, c in edges) - 1  # EXIT = nblocks + 1
    inflow, outflow = {}, {}
    for s, d, k, c in edges:
        outflow[s] = outflow.get(s, 0) + c
        inflow[d] = inflow.get(d, 0) + c
    for v in range(nb):
        if inflow.get(v, 0) != outflow.get(v, 0):
            bad.append("%s block %d: in %d out %d" % (fn, v, inflow.get(v, 0), outflow.get(v, 0)))
    if inflow.get(nb + 1, 0) != outflow.get(nb, 0):
        bad.append("%s: ENTRY %d != EXIT %d" % (fn, outflow.get(nb, 0), inflow.get(nb + 1, 0)))
for l in lines[1:]:
    if not l or l.startswith("#"):
        continue
    f = l.split(" ")
    if f[0] == "f":
        close()
        assert len(f) == 5, "f line without its source file: " + l
        fn, edges = f[3], []
    else:
        edges.append(tuple(int(x) for x in f[1:5]))
close()
if bad:
    print("\n".join(bad[:5]))
    sys.exit(1)
PY
}

increments() { sed -n 's/.* \([0-9]*\) increments executed.*/\1/p' "$1"; }

lower=0
for spec in branches: switches: interp: recursion:12 wide_paths: callbacks: variadic:; do
	corpus_prepare "$spec"
	run() { # BINARY TAG
		(cd "$d" && "$WPPTRACE" record -q -o "$2.wpp" -- "./$1" $args >"$2.out" 2>&1)
	}
	"$WPPCC" -O2 -o "$d/static" "$src" || { fail "$name: static build"; continue; }
	run static s || { fail "$name: static record"; continue; }
	"$WPPTRACE" edges "$d/s.wpp" -o "$d/s.edges" 2>"$d/s.sum" || { fail "$name: edges"; continue; }
	check_flow "$d/s.edges" || fail "$name: the edge profile does not conserve flow"
	"$WPPCC" -O2 --wpp-profile="$d/s.edges" -o "$d/guided" "$src" 2>"$d/guided.err" ||
		{ fail "$name: guided build: $(head -1 "$d/guided.err")"; continue; }
	[ -s "$d/guided.err" ] && fail "$name: guided build said: $(head -1 "$d/guided.err")"
	"$WPPCC" -O2 --wpp-profile="$d/s.wpp" -o "$d/guided2" "$src" ||
		{ fail "$name: build from the recording"; continue; }
	cmp -s <(objdump -d "$d/guided" | tail -n +3) <(objdump -d "$d/guided2" | tail -n +3) ||
		fail "$name: the recording and its edge profile give different code"
	run guided g || { fail "$name: guided record"; continue; }
	cmp -s "$d/s.out" "$d/g.out" || fail "$name: output differs"
	"$WPPTRACE" paths "$d/s.wpp" | tail -n +2 >"$d/s.paths"
	"$WPPTRACE" paths "$d/g.wpp" | tail -n +2 >"$d/g.paths"
	if ! cmp -s "$d/s.paths" "$d/g.paths"; then
		fail "$name: path profiles differ: $(diff "$d/s.paths" "$d/g.paths" | sed -n 2p)"
		continue
	fi
	"$WPPTRACE" edges "$d/g.wpp" -o "$d/g.edges" 2>"$d/g.sum"
	s=$(increments "$d/s.sum") g=$(increments "$d/g.sum")
	if [ -z "$s" ] || [ -z "$g" ] || [ "$g" -gt "$s" ]; then
		fail "$name: increments executed: static ${s:-?}, guided ${g:-?}"
		continue
	fi
	[ "$g" -lt "$s" ] && lower=$((lower + 1))
	ok "$name: same paths, increments executed $s -> $g"
done
[ $lower -gt 0 ] || fail "no program executed fewer increments with its profile"

# Several recordings make one profile: their counts summed, edge by edge.
d=$WORK/interp
"$WPPTRACE" edges -q "$d/s.wpp" "$d/g.wpp" -o "$WORK/both.edges"
if python3 - "$d/s.edges" "$d/g.edges" "$WORK/both.edges" <<'PY'; then
import sys
def counts(path):
    out, fn = {}, None
    for l in open(path).read().split("\n")[1:]:
        f = l.split(" ")
        if f[0] == "f":
            fn, k = f[1], 0
        elif f[0] == "e":
            out[(fn, k)] = int(f[4]); k += 1
    return out
a, b, both = (counts(p) for p in sys.argv[1:4])
assert set(a) == set(b) == set(both)
sys.exit(0 if all(both[k] == a[k] + b[k] for k in a) else 1)
PY
	ok "two recordings: one profile, counts summed"
else
	fail "two recordings: the counts are not the sums"
fi

# A function changed since the profile: one warning naming it.
d=$WORK/interp
change_interp
"$WPPCC" -O2 --wpp-profile="$d/s.edges" -o "$d/changed" "$WORK/src/interp.c" 2>"$d/changed.err"
rc=$?
if [ $rc -ne 0 ] || ! grep -q "warning: run changed since the profile" "$d/changed.err" ||
	grep -q "warning: main changed" "$d/changed.err"; then
	fail "changed function: rc=$rc, said: $(head -2 "$d/changed.err" | tr '\n' '|')"
else
	ok "changed function: $(head -1 "$d/changed.err")"
fi
[ -x "$d/changed" ] && (cd "$d" && ./changed >/dev/null) || fail "changed build does not run"

# Bad profiles: one error line, exit 1, no output file.
printf 'wpp-edge-profile 1\nf 00000000000000ff 3 f\ne 0 1 0 5 0\n' >"$WORK/short.edges"
printf 'not a profile\n' >"$WORK/garbage.edges"
expect_refused --wpp-profile short.edges garbage.edges missing.edges
"$WPPTRACE" edges "$WORK/garbage.edges" >/dev/null 2>"$WORK/bad.err"
rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$WORK/bad.err")" -eq 1 ] || fail "edges on a non-recording: rc=$rc"

# Static functions of one name in two files, of different CFGs: only
# a.c's ran.  The profile names each function's file, so b.c's helper is
# not taken for a changed a.c helper.
t=$WORK/twins
mkdir -p "$t"
cat >"$t/a.c" <<'EOF'
static int helper(int x) { return x > 3 ? x * 2 : x + 1; }
int call_a(int x) { return helper(x); }
EOF
cat >"$t/b.c" <<'EOF'
static int helper(int x)
{
	int s = 0;
	for (int i = 0; i < x; i++)
		s += i % 3 ? i : -i;
	return s;
}
int call_b(int x) { return helper(x); }
EOF
printf 'int call_a(int);\nint call_b(int);\nint main(int c, char **v) { (void)v; return call_a(c) == 99 ? call_b(c) : 0; }\n' \
	>"$t/main.c"
if (cd "$t" && "$WPPCC" -O1 -fno-inline -o twins a.c b.c main.c &&
	"$WPPTRACE" record -q -o r.wpp -- ./twins && "$WPPTRACE" edges -q r.wpp -o r.edges); then
	(cd "$t" && "$WPPCC" -O1 -fno-inline --wpp-profile=r.edges -o guided a.c b.c main.c 2>err)
	if [ -s "$t/err" ] || [ ! -x "$t/guided" ]; then
		fail "static twins: $(head -1 "$t/err")"
	elif ! grep -q "^f [0-9a-f]* [0-9]* helper a.c$" "$t/r.edges"; then
		fail "static twins: the profile does not name a.c's helper with its file"
	else
		ok "static twins: the helper that never ran is not taken for a changed one"
	fi
	# Version 1 (no source file) is still read: the same placement, and
	# its name-only check warns about b.c's helper as before.
	sed -e '1s/ 2$/ 1/' -e 's/^\(f [0-9a-f]* [0-9]* [^ ]*\) [^ ]*$/\1/' "$t/r.edges" >"$t/v1.edges"
	(cd "$t" && "$WPPCC" -O1 -fno-inline --wpp-profile=v1.edges -o guided1 a.c b.c main.c 2>err1)
	if [ "$(head -1 "$t/v1.edges")" != "wpp-edge-profile 1" ] || [ ! -x "$t/guided1" ] ||
		! cmp -s <(objdump -d "$t/guided" | tail -n +3) <(objdump -d "$t/guided1" | tail -n +3); then
		fail "version 1 profile: not read, or other code: $(head -1 "$t/err1")"
	elif ! grep -q "warning: helper changed since the profile" "$t/err1"; then
		fail "version 1 profile: no name-only warning: $(head -1 "$t/err1")"
	else
		ok "version 1 profile: read, same code; name-only match as before"
	fi
else
	fail "static twins: build, record and edges"
fi

# Measured trips and branch weights: the guided build against the same
# profile with each turned off (WPP_PROFILE_RUNS=0, WPP_PROFILE_LAYOUT=0).
t=$WORK/trips
mkdir -p "$t"
cat >"$t/scan.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>

/* Five ways out: the static estimate (each exit as likely as LLVM's
 * loop-exit odds) expects about 7 trips and counts no runs here. */
static __attribute__((noinline)) long scan(const unsigned char *p, long n)
{
	for (long i = 0;; i++) {
		unsigned char c = p[i];
		if (c == 1)
			return i;
		if (c == 7)
			return -i;
		if (c == 19)
			return i * 2;
		if (c == 42)
			return i * 3;
		if (c == 99)
			return i * 5;
		if (i >= n)
			return -1;
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, s = 0;
	static const unsigned char stop[] = {1, 7, 19, 42, 99};
	unsigned char *buf = calloc((size_t)n + 1, 1);
	if (!buf)
		return 1;
	for (long r = 0; r < 40; r++) {
		buf[n - r] = stop[r % 5];
		s += scan(buf, n);
		buf[n - r] = 0;
	}
	printf("%ld\n", s);
	free(buf);
	return 0;
}
EOF
words() { "$WPPTRACE" info "$1" | sed -n 's/^words *\([0-9]*\) .*/\1/p'; }
# The hottest branch of scan() carries its measured count (+ 1) as a
# branch weight in the guided IR, and not without WPP_PROFILE_LAYOUT.
weights_from_profile() {
	python3 - "$1/train.edges" >"$1/want" <<'PY' || return 1
import sys
out, fn = {}, None
for l in open(sys.argv[1]).read().split("\n")[1:]:
    f = l.split(" ")
    if f[0] == "f":
        fn = f[3]
    elif f[0] == "e" and fn == "scan":
        out.setdefault(int(f[1]), []).append(int(f[4]))
print(max(max(c) for c in out.values() if len(c) >= 2) + 1)
PY
	(cd "$1" && "$WPPCC" -O2 --wpp-profile=train.edges -S -emit-llvm -o guided.ll scan.c &&
		WPP_PROFILE_LAYOUT=0 "$WPPCC" -O2 --wpp-profile=train.edges -S -emit-llvm -o nolayout.ll scan.c) ||
		return 1
	grep -q "branch_weights\".*i32 $(cat "$1/want")\b" "$1/guided.ll" &&
		! grep -q "branch_weights\".*i32 $(cat "$1/want")\b" "$1/nolayout.ll"
}
if (cd "$t" && "$WPPCC" -O2 -o static scan.c && "$WPPTRACE" record -q -o train.wpp -- ./static 300 >/dev/null &&
	"$WPPTRACE" edges -q train.wpp -o train.edges &&
	"$WPPCC" -O2 --wpp-profile=train.edges -o guided scan.c &&
	WPP_PROFILE_RUNS=0 "$WPPCC" -O2 --wpp-profile=train.edges -o noruns scan.c &&
	WPP_PROFILE_LAYOUT=0 "$WPPCC" -O2 --wpp-profile=train.edges -o nolayout scan.c); then
	for b in static guided noruns nolayout; do
		(cd "$t" && "$WPPTRACE" record -q -o $b.wpp -- ./$b 2000 >$b.out) || fail "trips: $b record"
		"$WPPTRACE" paths "$t/$b.wpp" | tail -n +2 >"$t/$b.paths"
	done
	ws=$(words "$t/static.wpp") wg=$(words "$t/guided.wpp") wn=$(words "$t/noruns.wpp")
	same=1
	for b in guided noruns nolayout; do
		cmp -s "$t/static.out" "$t/$b.out" && cmp -s "$t/static.paths" "$t/$b.paths" || same=0
	done
	if [ $same = 0 ] || [ ! -s "$t/static.paths" ]; then
		fail "trips: outputs or path profiles differ between the builds"
	elif [ -z "$ws" ] || [ -z "$wg" ] || [ "$wn" != "$ws" ] || [ $((wg * 20)) -gt "$ws" ]; then
		fail "trips: words static ${ws:-?}, guided ${wg:-?}, guided without measured trips ${wn:-?}"
	elif cmp -s <(objdump -d "$t/guided" | tail -n +3) <(objdump -d "$t/nolayout" | tail -n +3); then
		fail "trips: the profile's branch weights left the code as it was"
	elif ! weights_from_profile "$t"; then
		fail "trips: the guided IR lacks the measured branch weight $(cat "$t/want")"
	else
		ok "trips: same paths; words $ws static, $wg guided (measured trips), $wn without them"
	fi
else
	fail "trips: builds and training run"
fi

finish
