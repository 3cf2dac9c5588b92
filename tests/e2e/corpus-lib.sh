# SPDX-License-Identifier: MIT
# corpus-lib.sh — shared by the e2e scripts that build corpus programs with
# bin/wppcc in a fresh work directory and feed recordings back to it or to
# wpptrace (profile-placement.sh, ppp-interesting.sh, count-cli.sh,
# dual-tests.sh, dual-random.sh; sourced, bash).  Sets ROOT WPPCC WPPTRACE
# CORPUS and WORK (tests/work/<script>, emptied, with src/ for copied
# sources), points XDG_CACHE_HOME into it (the recordings wppcc converts
# stay there), and keeps the pass/fail count.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WPPCC=$ROOT/bin/wppcc
WPPTRACE=$ROOT/bin/wpptrace
CORPUS=$ROOT/tests/corpus
WORK=$ROOT/tests/work/$(basename "$0" .sh)
rm -rf "$WORK"
mkdir -p "$WORK/src"
export XDG_CACHE_HOME=$WORK/cache
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok:   $*"; }

# finish: the summary line; the script's exit status.
finish() {
	local name
	name=$(basename "$0" .sh)
	[ $fails -eq 0 ] && echo "$name: all passed" || echo "$name: $fails failed"
	[ $fails -eq 0 ]
	exit $?
}

# corpus_prepare SPEC: SPEC is NAME:ARGS (a corpus program and the
# arguments it runs with).  Copies its source into $WORK/src and sets
# name, args, d (its directory $WORK/NAME, made) and src (the copy).
corpus_prepare() {
	name=${1%%:*} args=${1#*:}
	d=$WORK/$name
	src=$WORK/src/$name.c
	mkdir -p "$d"
	cp "$CORPUS/$name.c" "$CORPUS/corpus.h" "$WORK/src/"
}

# change_interp: edit the copied interp.c so that its function `run` (and
# only it) has another CFG: a function changed since a recording.
change_interp() {
	sed 's/m->steps++;/m->steps++; if (m->sp > 250) m->sp = 250;/' "$WORK/src/interp.c" \
		>"$WORK/src/interp.c.new" && mv "$WORK/src/interp.c.new" "$WORK/src/interp.c"
}

# expect_refused OPTION FILE...: `wppcc OPTION=FILE` (FILE names under
# $WORK, commas kept) must fail with exit 1, one error line and no output.
expect_refused() {
	local opt=$1 bad list rc
	shift
	for bad; do
		rm -f "$WORK/bad.out"
		list=$(echo "$bad" | sed "s|\([^,]*\)|$WORK/\1|g")
		"$WPPCC" -O2 "$opt=$list" -o "$WORK/bad.out" "$WORK/src/branches.c" 2>"$WORK/bad.err"
		rc=$?
		if [ $rc -ne 1 ] || [ "$(wc -l <"$WORK/bad.err")" -ne 1 ] || [ -e "$WORK/bad.out" ]; then
			fail "$bad: rc=$rc, $(wc -l <"$WORK/bad.err") lines: $(head -1 "$WORK/bad.err")"
		else
			ok "$bad: $(cat "$WORK/bad.err")"
		fi
	done
}
