#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Files against a hostile local user (issue 24, items 5-8; docs/security.md,
# "Files"):
#   - every command that writes a file (record, export, report, cfg, wpp -o
#     and --raw-out) refuses a planted symbolic link and never writes into a
#     file someone else created (as root: replaced by a fresh file; as
#     nobody, in a sticky directory: refused), creates mode 0600 whatever
#     the umask, and leaves the previous file alone when it fails;
#   - an output naming the command's own input (by any name: a hard link)
#     is refused and the input kept (the output would be renamed over it);
#   - `record -o FILE` of a program that cannot run keeps FILE;
#   - a crafted REPEAT count of 0xffffffff is added, not walked: paths,
#     report, annotate, cfg, export, kpaths, wpp --rebuild and hot finish at
#     once, in little memory, with the right totals;
#   - a FIFO as input ends every reader in one error line, at once;
#   - a file truncated while a reader reads it never kills the reader.
. "$(dirname "$0")/../oracle/lib.sh"
require_tools "$WPPCC" "$WPPTRACE"
HERE=$(cd "$(dirname "$0")" && pwd)
w=$ROOT/tests/work/hostile-files
rm -rf "$w" && mkdir -p "$w/bin" && chmod 755 "$w" "$w/bin"
umask 022

# one_error WHAT STATUS ERRFILE: failed (status 1..123) with exactly one
# "wpptrace: " line on stderr.
one_error() {
	local what=$1 rc=$2 err=$3
	if [ "$rc" -eq 0 ] || [ "$rc" -ge 124 ]; then
		fail "$what: exit status $rc (expected one error line and a failure)"
		show_file_head "$err" 4
		return 1
	fi
	if [ "$(wc -l <"$err")" -ne 1 ] || ! grep -q '^wpptrace: ' "$err"; then
		fail "$what: status $rc but stderr is not one 'wpptrace: ' line:"
		show_file_head "$err" 4
		return 1
	fi
	return 0
}

mode_of() { stat -c %a "$1"; }
owner_of() { stat -c %U "$1"; }
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }

check_done
if ! "$WPPCC" -fwpp-mode=paths -O1 -g -I"$CORPUS" -o "$w/bin/prog" "$CORPUS/branches.c" \
	>"$w/build.log" 2>&1; then
	fail "cannot build the test program"
	show_file_head "$w/build.log"
	finish
fi
"$WPPTRACE" record --transport=shm -q -o "$w/good.wpp" -- "$w/bin/prog" >/dev/null 2>"$w/rec.err"
"$WPPTRACE" wpp "$w/good.wpp" --raw-out "$w/good.u32" 2>/dev/null
if [ ! -s "$w/good.wpp" ] || [ ! -s "$w/good.u32" ]; then
	fail "baseline recording or raw stream missing"
	show_file_head "$w/rec.err"
	finish
fi
pass "baseline recording"
chmod 644 "$w/good.wpp" "$w/good.u32"
FN=nested_loops

# writer NAME TARGET: the command line of one file-writing command.
writer() {
	case $1 in
	record) echo record --transport=shm -q -o "$2" -- "$w/bin/prog" ;;
	record-bpf) echo record -q -o "$2" -- "$w/bin/prog" ;;
	export) echo export --format pprof -o "$2" "$w/good.wpp" ;;
	report-html) echo report "$w/good.wpp" --html -o "$2" ;;
	report) echo report "$w/good.wpp" -o "$2" ;;
	cfg) echo cfg "$w/good.wpp" "$FN" -o "$2" ;;
	cfg-svg) echo cfg "$w/good.wpp" "$FN" -o "$2.svg" ;;
	raw-out) echo wpp "$w/good.wpp" --raw-out "$2" ;;
	from-raw) echo wpp --from-raw "$w/good.u32" -o "$2" ;;
	esac
}
WRITERS="record export report-html report cfg cfg-svg raw-out from-raw"
# target_of NAME PATH: the file a writer really writes for -o PATH.
target_of() { [ "$1" = cfg-svg ] && echo "$2.svg" || echo "$2"; }

# A sticky world-writable directory, as /tmp is.
shared=$w/shared
mkdir -p "$shared" && chmod 1777 "$shared"

# --- planted symbolic links: refused, the victim untouched (as root) ---
echo "root only" >"$w/victim" && chmod 600 "$w/victim"
for name in $WRITERS record-bpf; do
	check_done
	link=$shared/link-$name
	t=$(target_of "$name" "$link")
	as_nobody ln -sf "$w/victim" "$t"
	# shellcheck disable=SC2046
	timeout -k 5 60 "$WPPTRACE" $(writer "$name" "$link") >/dev/null 2>"$w/err"
	rc=$?
	if one_error "$name -o planted symlink" $rc "$w/err"; then
		if [ "$(cat "$w/victim")" != "root only" ] || [ ! -L "$t" ]; then
			fail "$name: the symlink's target was written or the link replaced"
		else
			pass "$name: symlink refused: $(cat "$w/err")"
		fi
	fi
done

# --- an output that is the command's own input: refused, the input kept ---
cp "$w/good.wpp" "$w/self.wpp" && ln -f "$w/self.wpp" "$w/self-link.wpp"
sum=$(sha256sum <"$w/self.wpp")
for cmd in "export --format pprof" "report --html" report "cfg @ $FN" edges interesting; do
	for out in self.wpp self-link.wpp; do
		check_done
		# shellcheck disable=SC2086
		set -- ${cmd/@/$w/self.wpp}
		[ "$1" = cfg ] || set -- "$@" "$w/self.wpp"
		timeout -k 5 60 "$WPPTRACE" "$@" -o "$w/$out" >/dev/null 2>"$w/err"
		rc=$?
		if one_error "$cmd -o $out (its input)" $rc "$w/err"; then
			if [ "$(sha256sum <"$w/self.wpp")" != "$sum" ]; then
				fail "$cmd -o $out: the input recording changed"
			else
				pass "$cmd -o $out: refused, input kept: $(cat "$w/err")"
			fi
		fi
	done
done

# --- a file another user created: never reused (as root) ---
for name in $WRITERS; do
	check_done
	t=$(target_of "$name" "$shared/pre-$name")
	as_nobody sh -c "umask 0; echo planted >'$t'; ln '$t' '$t.keep'"
	ino=$(stat -c %i "$t")
	# shellcheck disable=SC2046
	timeout -k 5 60 "$WPPTRACE" $(writer "$name" "$shared/pre-$name") >/dev/null 2>"$w/err"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$name over nobody's file: status $rc"
		show_file_head "$w/err" 3
	elif [ "$(stat -c %i "$t")" = "$ino" ] || [ "$(owner_of "$t")" != root ] ||
		[ "$(mode_of "$t")" != 600 ]; then
		fail "$name over nobody's file: reused it ($(stat -c '%U %a inode %i' "$t"))"
	elif [ "$(cat "$t.keep")" != planted ]; then
		fail "$name over nobody's file: nobody's inode was written"
	else
		pass "$name over nobody's file: a fresh root file, mode 600"
	fi
done

# --- as nobody, in the sticky directory: another user's file is refused ---
for name in $WRITERS; do
	check_done
	t=$(target_of "$name" "$shared/rootfile-$name")
	(umask 0 && echo "root's" >"$t")
	# shellcheck disable=SC2046
	as_nobody timeout -k 5 60 "$WPPTRACE" $(writer "$name" "$shared/rootfile-$name") \
		>/dev/null 2>"$w/err"
	rc=$?
	if one_error "$name as nobody over root's file" $rc "$w/err"; then
		if [ "$(cat "$t")" != "root's" ] || [ "$(owner_of "$t")" != root ]; then
			fail "$name as nobody: root's file was changed"
		else
			pass "$name as nobody over root's file: refused: $(cat "$w/err")"
		fi
	fi
done

# --- mode 0600 whatever the umask; no temporary left behind ---
for name in $WRITERS record-bpf; do
	for um in 022 000; do
		check_done
		mkdir -p "$w/mode-$um"
		t=$(target_of "$name" "$w/mode-$um/$name")
		# shellcheck disable=SC2046
		(umask $um && timeout -k 5 60 "$WPPTRACE" $(writer "$name" "$w/mode-$um/$name")) \
			>/dev/null 2>"$w/err"
		rc=$?
		if [ $rc -ne 0 ] || [ ! -s "$t" ]; then
			fail "$name (umask $um): status $rc, no output"
			show_file_head "$w/err" 3
		elif [ "$(mode_of "$t")" != 600 ]; then
			fail "$name (umask $um): mode $(mode_of "$t"), expected 600"
		else
			pass "$name (umask $um): mode 600"
		fi
	done
done
check_done
if ls -A "$w"/mode-* "$shared" | grep -q '^\.'; then
	fail "temporaries left behind: $(ls -A "$w"/mode-* "$shared" | grep '^\.' | head -3)"
else
	pass "no temporary left behind"
fi

# --- a run that cannot start keeps the file that had the name ---
mkdir -p "$w/adir"
for tr in shm bpf; do
	for cmd in /nonexistent "$w/adir"; do
		check_done
		echo "previous recording" >"$w/keep.wpp"
		timeout -k 5 60 "$WPPTRACE" record --transport=$tr -o "$w/keep.wpp" -- "$cmd" \
			>/dev/null 2>"$w/err"
		rc=$?
		# 127: the shell's "command not found", what record exits with
		[ $rc -eq 127 ] && rc=1
		if one_error "record --transport=$tr -o existing -- $cmd" $rc "$w/err"; then
			if [ "$(cat "$w/keep.wpp" 2>/dev/null)" != "previous recording" ]; then
				fail "record --transport=$tr -- $cmd: the existing file was lost"
			else
				pass "record --transport=$tr -- $cmd: existing file kept: $(cat "$w/err")"
			fi
		fi
	done
done

# --- a crafted REPEAT count: added, not walked ---
# The forger rewrites raw BATCH chunks: it starts from a --compress none
# recording (BATCH_Z decodes to the same words, so the bound is the same).
check_done
"$WPPTRACE" record --transport=shm -q --compress none -o "$w/raw.wpp" -- "$w/bin/prog" >/dev/null 2>&1
added=$($PY "$HERE/hostile-files.py" repeat "$w/raw.wpp" "$w/repeat.wpp" 0xffffffff)
execs() { awk '/path executions/ { print $1; exit }'; }
good_total=$("$WPPTRACE" paths "$w/raw.wpp" | execs)
if [ -z "$added" ] || [ -z "$good_total" ]; then
	fail "cannot craft the REPEAT file"
else
	pass "crafted a REPEAT of 0xffffffff (+$added executions on $good_total)"
fi
# bounded WHAT ARGS...: output in $w/out
bounded() {
	local what=$1
	shift
	bounded_wpptrace "$w/out" "$what on the crafted REPEAT" "$@"
}
if bounded paths paths "$w/repeat.wpp"; then
	check_done
	got=$(execs <"$w/out")
	if [ "$got" = $((good_total + added)) ]; then
		pass "paths counts the run: $got executions"
	else
		fail "paths: $got executions, expected $((good_total + added))"
	fi
fi
bounded report report "$w/repeat.wpp"
bounded "report --format json" report "$w/repeat.wpp" --format json
bounded annotate annotate "$w/repeat.wpp" "$FN"
bounded cfg cfg "$w/repeat.wpp" "$FN"
bounded export export --format pprof -o "$w/repeat.pb.gz" "$w/repeat.wpp"
bounded kpaths kpaths "$w/repeat.wpp"
bounded "kpaths --flat" kpaths "$w/repeat.wpp" --flat
bounded info info "$w/repeat.wpp"
# The grammar builder takes the run whole (O(log n) rules), so wpp and hot
# rebuilding the grammar from the batches are bounded too.
if bounded "wpp --rebuild" wpp --rebuild "$w/repeat.wpp"; then
	check_done
	stream() { awk '/path stream/ { print $3; exit }'; }
	got=$(stream <"$w/out")
	base=$("$WPPTRACE" wpp --rebuild "$w/raw.wpp" | stream)
	if [ -n "$base" ] && [ "$got" = $((base + added)) ]; then
		pass "wpp --rebuild: the grammar stands for $got paths"
	else
		fail "wpp --rebuild: $got paths, expected $base + $added"
	fi
fi
bounded hot hot "$w/repeat.wpp"
bounded "hot --format json" hot --format json "$w/repeat.wpp"

# --- a FIFO as input: one error line, at once ---
# (A reader that opened it would block for good: the bound catches that,
# far above what a loaded machine takes to start and refuse.)
mkfifo "$w/fifo"
for c in "paths F" "report F" "script F" "kpaths F" "hot F" "wpp F" "info F" \
	"annotate F $FN" "cfg F $FN" "export --format pprof -o $w/x.pb.gz F" \
	"wpp --from-raw F -o $w/x.wpp"; do
	check_done
	# shellcheck disable=SC2086
	timeout -k 5 60 "$WPPTRACE" ${c//F/$w/fifo} >/dev/null 2>"$w/err"
	one_error "${c%% *} on a FIFO" $? "$w/err" && pass "${c%% *} on a FIFO: $(cat "$w/err")"
done

# --- a file truncated while it is read: never a crash ---
# A recording of some 250 MB is copied and the copy truncated a little
# after a reader started on it; the reader must fail in one line or finish
# with the output the whole file gives, never die of a signal (a mapped
# file that shrinks raises SIGBUS at the next touch).
cat >"$w/big.c" <<'PROG'
#include <stdio.h>
#include <stdlib.h>
static unsigned s = 1;
__attribute__((noinline)) static int step(int x)
{
	s = s * 1103515245u + 12345u;
	if ((s >> 16) & 1)
		x += 3;
	else
		x -= 1;
	return (s >> 17) & 1 ? x ^ 5 : x;
}
int main(int argc, char **argv)
{
	long n = atol(argv[1]);
	int x = 0;
	for (long i = 0; i < n; i++)
		x = step(x);
	printf("%d\n", x);
	return 0;
}
PROG
big=$w/big.wpp
check_done
if "$WPPCC" -O1 -g -o "$w/bin/big" "$w/big.c" >"$w/build.log" 2>&1 &&
	"$WPPTRACE" record --transport=shm -q --no-grammar -o "$big" -- "$w/bin/big" 15000000 \
		>/dev/null 2>&1 && cp "$big" "$w/victim.wpp" &&
	"$WPPTRACE" paths "$w/victim.wpp" >"$w/big.ref" 2>/dev/null; then
	pass "a recording of $(($(stat -c %s "$big") >> 20)) MB to truncate"
else
	fail "cannot record the large program"
	show_file_head "$w/build.log"
fi
for cmd in paths script; do
	for delay in 0.05 0.3 1; do
		check_done
		cp "$big" "$w/victim.wpp"
		out=$w/out
		[ $cmd = script ] && out=/dev/null
		"$WPPTRACE" $cmd "$w/victim.wpp" >"$out" 2>"$w/err" &
		pid=$!
		sleep $delay
		: >"$w/victim.wpp"
		wait $pid
		rc=$?
		if [ $rc -ge 124 ]; then
			fail "$cmd, truncated after ${delay}s: status $rc (killed by a signal?)"
			show_file_head "$w/err" 3
		elif [ $rc -ne 0 ]; then
			one_error "$cmd, truncated after ${delay}s" $rc "$w/err" &&
				pass "$cmd, truncated after ${delay}s: $(cat "$w/err")"
		elif [ $cmd = paths ] && ! cmp -s "$w/out" "$w/big.ref"; then
			fail "$cmd, truncated after ${delay}s: finished with other output"
		else
			pass "$cmd, truncated after ${delay}s: finished on what it had read"
		fi
	done
done
rm -f "$big" "$w/victim.wpp"
finish
