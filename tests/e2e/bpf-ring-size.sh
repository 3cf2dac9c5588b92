#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpf-ring-size — a BPF ring smaller than one batch of the program record
# starts is refused before the program runs, in one line naming the smallest
# ring that works (exit 2), with either --ring-full policy: such a ring
# dropped every full batch and the recording ended "nothing was traced
# (built without wppcc?)".  The ring the line suggests records the program
# with its paths intact (same jsonl as shm, which is lossless), also at a
# small --buffer-words; the half of it is refused.  With -p the batch size
# is the process's own, so a too-small ring is explained after the fact.
. "$(dirname "$0")/bpf-lib.sh"
unset WPP_BUFFER_WORDS # the batch size is what record chooses

build recursion "$CORPUS/recursion.c" || finish
ARG=26 # about 250 k words: four 64 Ki-word batches, 244 of 1 Ki words

# refused NAME EXPECT-SIZE-TEXT RECORD-OPTIONS...: exit 2, one error line
# naming --ring-size as typed, the program not started, no file; sets LEAST
# to the ring the line suggests.
refused() {
	local name=$1 size=$2
	shift 2
	LEAST=
	(cd "$WORK" && run_bounded "wpptrace at line $LINENO" "$WPPTRACE" record "$@" -o "$name.wpp" -- ./recursion $ARG \
		>"$name.out" 2>"$name.err")
	local rc=$? lines
	lines=$(wc -l <"$WORK/$name.err")
	local re="^wpptrace: error: record: --ring-size $size cannot hold one batch of [0-9]+ bytes; use at least ([0-9]+[KM])\$"
	if [ $rc = 2 ] && [ "$lines" = 1 ] && [[ $(cat "$WORK/$name.err") =~ $re ]] &&
		[ ! -s "$WORK/$name.out" ] && [ ! -e "$WORK/$name.wpp" ]; then
		LEAST=${BASH_REMATCH[1]}
		pass "$name: refused before the program ran: $(cat "$WORK/$name.err")"
	else
		fail "$name: exit $rc, $lines stderr lines, output $(wc -c <"$WORK/$name.out") bytes," \
			"file $([ -e "$WORK/$name.wpp" ] && echo left || echo none): $(head -3 "$WORK/$name.err")"
	fi
}

# bytes 64K -> 65536
bytes() { case $1 in *K) echo $((${1%K} << 10)) ;; *M) echo $((${1%M} << 20)) ;; *) echo "$1" ;; esac; }
# text 65536 -> 64K
text() { if [ $(($1 % 1048576)) = 0 ]; then echo $(($1 >> 20))M; else echo $(($1 >> 10))K; fi; }

# intact NAME RECORD-OPTIONS...: recorded with no loss, decodes to the shm
# recording's jsonl (same line count, same block sequences).
intact() {
	local name=$1
	shift
	(cd "$WORK" && run_bounded "wpptrace at line $LINENO" "$WPPTRACE" record "$@" -o "$name.wpp" -- ./recursion $ARG \
		>"$name.out" 2>"$name.err") || { fail "$name: record failed: $(head -3 "$WORK/$name.err")"; return; }
	if grep -Eq "lost|nothing was traced|dropped" "$WORK/$name.err"; then
		fail "$name: $(grep -E "lost|nothing|dropped" "$WORK/$name.err" | head -2)"
		return
	fi
	cmp -s "$WORK/shm.out" "$WORK/$name.out" || fail "$name: program output differs"
	jsonl "$WORK/$name.wpp" || { fail "$name: decode failed: $(head -3 "$WORK/$name.script.err")"; return; }
	local a b batches
	a=$(wc -l <"$WORK/shm.jsonl") b=$(wc -l <"$WORK/$name.jsonl")
	batches=$(info "$WORK/$name.wpp" | awk '$1 == "batches" { print $2 }')
	if [ "$a" = "$b" ] && [ "$b" -gt 1000 ] && out=$($CMP same "$WORK/shm.jsonl" "$WORK/$name.jsonl"); then
		pass "$name: $b jsonl lines in $batches batches, as through shm ($out)"
	else
		fail "$name: $b jsonl lines in $batches batches, shm $a: ${out:-}"
	fi
}

(cd "$WORK" && "$WPPTRACE" record -q --transport=shm -o shm.wpp -- ./recursion $ARG >shm.out) &&
	jsonl "$WORK/shm.wpp" || { fail "shm reference recording failed"; finish; }

# The acceptance tester's command, and the default policy: refused alike.
refused drop-64k 64K --ring-full drop --ring-size 64K
refused pause-64k 64K --ring-size 64K
min=$LEAST
if [ -z "$min" ]; then
	finish
fi
# The suggested ring is the smallest: half of it is refused too, naming it.
half=$(text $(($(bytes "$min") / 2)))
refused half "$half" --ring-size "$half"
[ "$LEAST" = "$min" ] || fail "--ring-size $half suggests $LEAST, 64K suggested $min"
# The suggested ring records the program whole (back-pressure: lossless) ...
intact "ring-$min" --ring-size "$min"
# ... and with --ring-full drop it accepts batches (a later one may find
# the ring still full: that is what drop means), never none at all.
(cd "$WORK" && run_bounded "wpptrace at line $LINENO" "$WPPTRACE" record --ring-full drop --ring-size "$min" -o drop-min.wpp -- \
	./recursion $ARG >/dev/null 2>drop-min.err)
got=$(info "$WORK/drop-min.wpp" | awk '$1 == "batches" { print $2 }')
if [ "${got:-0}" -ge 1 ] && ! grep -q "nothing was traced" "$WORK/drop-min.err"; then
	pass "--ring-full drop --ring-size $min: $got batches recorded"
else
	fail "--ring-full drop --ring-size $min: ${got:-no} batches: $(head -3 "$WORK/drop-min.err")"
fi

# Small batches (the runtime's --buffer-words, 1 Ki words): a smaller ring
# suffices; the ring below it is refused, the one suggested takes all 244.
refused b1k-8k 8K --transport=bpf --buffer-words 1024 --ring-size 8K
[ -n "$LEAST" ] && intact "b1k-$LEAST" --transport=bpf --buffer-words 1024 --ring-size "$LEAST"

# -p: the batch size is the running process's (the runtime's 8 Ki words), so
# the ring cannot be refused up front; the end of the recording says why
# nothing arrived and what ring would do.
build server "$PROGS/server.c" || finish
"$WORK/server" "$WORK/server.pid" >"$WORK/server.out" &
srv=$!
wait_file "$WORK/server.pid" "the server to start" || finish
run_bounded "record -p --ring-size 8K -d 1" "$WPPTRACE" record -q -p "$srv" --ring-size 8K -d 1 -o "$WORK/srv.wpp" 2>"$WORK/srv.err"
not_stopped "$srv" "-p --ring-size 8K -d 1"
kill -TERM "$srv"
wait_bounded "the server, after record -p and SIGTERM" "$srv" 2>/dev/null
if grep -Eq "^wpptrace: warning: record: all [0-9]+ batches were dropped: the ring \(8K per CPU\) cannot hold one batch \([0-9]+ bytes on average, plus record headers\); use --ring-size 128K or more$" \
	"$WORK/srv.err"; then
	pass "-p --ring-size 8K: $(grep "were dropped" "$WORK/srv.err")"
else
	fail "-p --ring-size 8K: no explanation: $(cat "$WORK/srv.err")"
fi
finish
