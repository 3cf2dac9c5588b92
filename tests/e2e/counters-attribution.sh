#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# counters-attribution.sh — exact attribution: faults.c touches NA fresh
# pages in touch_a and NB in touch_b; recorded with page-faults sampled at
# period 1, touch_a must carry exactly NA faults and touch_b exactly NB
# (the trace buffers are pre-faulted, so recording adds none), spread over
# their loop paths (also in annotate, hot and the pprof export); the per-batch
# counts must cover them; a machine without
# a PMU refuses hardware events in one line naming the software ones.
#
# Built without runs (-fwpp-no-runs) every loop iteration has its own
# record, so every path's faults are exact.  Built with runs
# (WPP_CTRL_REPEAT), a loop's repeated iterations share the REPEAT word's
# position, and so does the iteration that ends the run (its record comes
# after the REPEAT word).  The sampler saves the interrupted registers and
# wppcc -g says where the run's count lives (DWARF variable
# __wpp_run_count), so a sample there lands on the repetition the count
# names, or on the record after the run when the count equals the REPEAT
# word's (cost_run_end.h).  So with runs too, at -O1 every path of touch_b
# and touch_c carries exactly one fault per execution (executions counted
# independently from `script --format jsonl`), touch_c's last one sits on
# its own store's line, and hot's per-execution costs are exact; at -O2
# (which unrolls the loops before instrumentation: a path stores to several
# pages) every path of touch_b and touch_c costs exactly what it costs in
# the same program built -O2 without runs.  Built -g0 neither the count's
# location nor the source-position rule is available: the run-ending
# iteration's fault stays with the run (one per run, checked).  -old is
# the -O1 recording with its SAMPLE_REGS chunks dropped (a file from an
# older recorder): the source-position rule alone, touch_c exact, touch_b
# within one per run.
. "$(dirname "$0")/counters-lib.sh"

build faults "$PROGS/faults.c" -fwpp-no-runs
build faults-runs "$PROGS/faults.c"
build faults-O2 "$PROGS/faults.c" -O2 -fwpp-no-runs
build faults-runs-O2 "$PROGS/faults.c" -O2
build faults-runs-nog "$PROGS/faults.c" -g0
# The line of touch_c's last-iteration store.
cline=$(grep -n "volatile short" "$PROGS/faults.c" | cut -d: -f1)
for spec in "faults 300 700 50" "faults 1234 17 2" "faults-runs 300 700 50" "faults-runs 1234 17 2" \
	"faults-O2 300 700 50" "faults-runs-O2 300 700 50" "faults-runs-nog 300 700 50" \
	"faults-runs-old 300 700 50"; do
	set -- $spec
	prog=$1 na=$2 nb=$3 nc=$4
	out=$WORK/$prog-$na-$nb.wpp
	echo "== $prog $na $nb"
	# -old: faults-runs recorded, then its SAMPLE_REGS chunks dropped (a
	# file of a recorder from before 2026-11-27): the older rule alone.
	if ! "$WPPTRACE" record -q -e page-faults -c 1 -o "$out" -- "$WORK/${prog%-old}" "$na" "$nb" "$nc" \
		2>"$WORK/rec.err"; then
		fail "record -e page-faults -c 1 ($na $nb): $(head -1 "$WORK/rec.err")"
		continue
	fi
	if [ "$prog" = faults-runs-old ]; then
		check "the recording has SAMPLE_REGS chunks; dropped" \
			'python3 - "$out" <<'"'PY'"'
import struct, sys
data = open(sys.argv[1], "rb").read()
out, off, dropped = bytearray(data[:32]), 32, 0
while off + 16 <= len(data):
    magic, typ, flags, length, crc = struct.unpack_from("<IHHII", data, off)
    end = off + 16 + length  # header (with its CRC), payload
    if typ == 13:
        dropped += 1
    else:
        out += data[off:end]
    off = end
assert off == len(data) and dropped > 0, (off, len(data), dropped)
open(sys.argv[1], "wb").write(out)
PY'
	fi
	"$WPPTRACE" report "$out" --cost page-faults --by function --format json --top 1000 \
		>"$WORK/fn.json" 2>"$WORK/rep.err" || { fail "report --cost page-faults"; continue; }
	a=$(fn_cost "$WORK/fn.json" touch_a)
	b=$(fn_cost "$WORK/fn.json" touch_b)
	check "touch_a has exactly $na faults (got $a)" '[ "$a" = "$na" ]'
	check "touch_b has exactly $nb faults (got $b)" '[ "$b" = "$nb" ]'
	c=$(fn_cost "$WORK/fn.json" touch_c)
	check "touch_c has exactly $nc faults (got $c)" '[ "$c" = "$nc" ]'
	# Per path: the faults sit on paths of the two loops only, and every
	# execution of touch_b's steady loop path touched exactly one page.
	"$WPPTRACE" report "$out" --cost page-faults --format json --top 1000 >"$WORK/path.json"
	python3 - "$WORK/path.json" "$nb" >"$WORK/paths.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for p in r["paths"]:
    if p["function"] in ("touch_a", "touch_b") and p["cost"]:
        print(p["function"], p["kind"], p["count"], p["cost"])
PY
	case $prog in
	faults)
		check "every touch_b loop>loop execution took one fault" \
			'awk "\$1==\"touch_b\" && \$2==\"loop>loop\" && \$3!=\$4 {bad=1} END {exit bad}" "$WORK/paths.txt"'
		;;
	faults-runs*)
		check "the trace has runs (REPEAT words)" \
			'"$WPPTRACE" script "$out" --format jsonl | grep -q "\"repeat\":1,"'
		;;
	esac
	# Each path's faults = its executions, counted by brute force over the
	# script's events (a run's repetitions are events of their own there):
	# touch_c with runs or without; touch_b too, except without -g, where
	# its loop path may carry one extra fault per run (one run here).
	"$WPPTRACE" script "$out" --format jsonl >"$WORK/events.jsonl"
	per_exec() { # FUNCTION PAGES SLACK
		python3 - "$WORK/path.json" "$WORK/events.jsonl" "$1" "$2" "$3" <<'PY'
import collections, json, sys
fn, pages, slack = sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
runs = collections.Counter()
for line in open(sys.argv[2]):
    e = json.loads(line)
    if e.get("type") == "path" and e.get("function") == fn:
        runs[e["path"]] += 1
assert sum(runs.values()) == pages, runs
cost = {p["path"]: p["cost"] for p in json.load(open(sys.argv[1]))["paths"] if p["function"] == fn}
if slack:
    assert sum(cost.values()) == pages and all(abs(c - runs[p]) <= slack for p, c in cost.items()), (cost, dict(runs))
else:
    assert cost == dict(runs), (cost, dict(runs))
PY
	}
	case $prog in
	*-O2)
		# -O2 unrolls the loops before wppcc instruments them: a path
		# stores to several pages.  The reference is the same program
		# built -O2 without runs (every record its own position, exact):
		# with runs every path of touch_b and touch_c must cost the same.
		python3 - "$WORK/path.json" >"$WORK/$prog.bc.txt" <<'PY'
import json, sys
for p in json.load(open(sys.argv[1]))["paths"]:
    if p["function"] in ("touch_b", "touch_c") and (p["cost"] or p["count"]):
        print(p["function"], p["path"], p["count"], p["cost"])
PY
		if [ "$prog" = faults-runs-O2 ]; then
			check "-O2 with runs: every touch_b and touch_c path costs what it costs without runs" \
				'sort "$WORK/faults-O2.bc.txt" >"$WORK/ref.txt"; sort "$WORK/$prog.bc.txt" | diff "$WORK/ref.txt" -'
		fi
		;;
	*)
		if [ "$prog" = faults-runs-old ]; then
			# No registers: the source-position rule (touch_c's last
			# store has a block of its own; touch_b's does not).
			check "touch_c without registers: one fault per execution" \
				'per_exec touch_c "$nc" 0'
			check "touch_b without registers: one fault per execution, one moved at most (the run's end)" \
				'per_exec touch_b "$nb" 1'
		elif [ "$prog" = faults-runs-nog ]; then
			# No -g: neither the count nor the source position is known;
			# the run-ending iteration's fault stays with the run (one
			# run per loop here).
			check "touch_b, touch_c without -g: one fault per execution, one moved at most (the run's end)" \
				'per_exec touch_b "$nb" 1 && per_exec touch_c "$nc" 1'
		else
			check "touch_c: every path has exactly one fault per execution (script's events)" \
				'per_exec touch_c "$nc" 0'
			check "touch_b: every path has exactly one fault per execution (script's events)" \
				'per_exec touch_b "$nb" 0'
		fi
		;;
	esac
	# (-O2's unrolled touch_c has other paths; their costs are checked above.)
	case $prog in *-O2 | *-nog) ;; *)
		check "touch_c: the last iteration's fault is on its own line ($cline)" \
			'"$WPPTRACE" report "$out" --cost page-faults --top 1000 | grep -A1 "touch_c .*loop>ret" | grep -q "\[$cline: 1\]"' ;;
	esac

	# Counting mode: the exact per-batch total covers every attributed
	# fault, or the recorder said why it is low (never silently low).
	counted=$("$WPPTRACE" report "$out" --cost page-faults --top 0 | sed -n 's/.*counted exactly per batch: \([0-9]*\).*/\1/p')
	if grep -q "per-batch counts are low" "$WORK/rec.err"; then
		echo "note: $(grep "per-batch counts are low" "$WORK/rec.err")"
		check "counted total ($counted) is low, and the recorder said so" '[ -n "$counted" ]'
	else
		check "counted total ($counted) >= $((na + nb + nc))" '[ -n "$counted" ] && [ "$counted" -ge $((na + nb + nc)) ]'
	fi
	# Every sample is on a path or in one class, the same in the report's
	# JSON, in info's JSON and in info's text.
	"$WPPTRACE" info --format json "$out" >"$WORK/info.json" 2>/dev/null
	"$WPPTRACE" info "$out" >"$WORK/info.txt" 2>/dev/null
	check "JSON class counts: report and info agree, samples = on paths + classes; info's records" \
		'python3 - "$WORK/path.json" "$WORK/info.json" "$WORK/info.txt" "$counted" <<'"'PY'"'
import json, re, sys
whole = json.load(open(sys.argv[1]))
rep = whole["cost_samples"]
info = json.load(open(sys.argv[2]))
c = info["counters"][0]
assert info["info_version"] == 1 and c == rep, (c, rep)
assert c["samples"] == c["samples_on_paths"] + sum(c["by_class"].values()), c
assert c["outside_recording"] == sum(c["by_class"][k] for k in ("before_exec", "start_up", "after_last_record"))
assert c["samples_while_recording"] == c["samples"] - c["outside_recording"]
assert str(c["counted"]) == sys.argv[4], (c["counted"], sys.argv[4])
txt = open(sys.argv[3]).read()
assert re.search(r"^words +%d " % info["words"], txt, re.M) and re.search(r"^records +%d " % info["records"], txt, re.M)
line = re.search(r"on no path: (.*)", txt).group(1)
assert dict((k, int(v)) for k, v in (x.split() for x in line.split(", "))) == c["by_class"], line
# Path executions = records + the executions REPEAT words add (no metadata needed).
assert info["records"] + info["repeated_executions"] == whole["totals"]["count"], (info, whole["totals"])
PY'
	# annotate --cost: touch_a's paths together carry exactly its faults.
	"$WPPTRACE" annotate "$out" touch_a --cost page-faults --format json >"$WORK/ann.json" 2>/dev/null
	ann=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sum(h["cost"] for f in r["functions"] for h in f["hot_paths"]))' "$WORK/ann.json" 2>/dev/null)
	check "annotate --cost: touch_a's hot paths carry $na faults (got $ann)" '[ "$ann" = "$na" ]'
	"$WPPTRACE" annotate "$out" touch_a --cost page-faults >"$WORK/ann.txt" 2>/dev/null
	check "annotate --cost text: the estimate summary and per-path faults" \
		'head -1 "$WORK/ann.txt" | grep -q "^page-faults: ~" && grep -q "page-faults: loop" "$WORK/ann.txt"'
	# hot --cost: single-path "subpaths" weigh each path by its faults per
	# execution, so touch_a's add up to exactly its faults again.
	"$WPPTRACE" hot "$out" --cost page-faults --min-len 1 --max-len 1 --min-cost 1 --top 1000 \
		--format json >"$WORK/hot.json" 2>/dev/null
	hot=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sum(h["cost"] for t in r["threads"] for h in t["subpaths"] if h["sequence"][0]["function"] == "touch_a"))' "$WORK/hot.json" 2>/dev/null)
	# (Per-execution means are exact when every path's total is: not
	# without -g or registers, where a run's end may stay with the run.)
	case $prog in *-nog | *-old) ;; *) false ;; esac ||
		check "hot --cost: touch_a's paths weigh $na faults (got $hot)" '[ "$hot" = "$na" ]'
	# export --cost: pprof's second value is the counter, and its samples
	# sum to the report's attributed total (protoc decodes independently).
	total=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sum(p["cost"] for p in r["paths"]))' "$WORK/path.json")
	if command -v protoc >/dev/null && "$WPPTRACE" export "$out" --format pprof --cost page-faults \
		-o "$WORK/run.pb.gz" 2>/dev/null; then
		zcat "$WORK/run.pb.gz" | protoc --decode=perftools.profiles.Profile -I"$ROOT/user/report" \
			"$ROOT/user/report/profile.proto" >"$WORK/pb.txt" 2>/dev/null
		pb=$(python3 - "$WORK/pb.txt" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
strings = re.findall(r'^string_table: "(.*)"$', t, re.M)
types = re.findall(r'^sample_type \{\s*type: (\d+)', t, re.M)
cost = 0
for body in re.findall(r'^sample \{(.*?)^\}', t, re.M | re.S):
    vals = re.findall(r'^  value: (-?\d+)', body, re.M)
    cost += int(vals[1]) if len(vals) > 1 else 0
print(strings[int(types[1])] if len(types) > 1 else "?", cost)
PY
)
		check "export --cost: pprof value 'page-faults' sums to $total (got $pb)" '[ "$pb" = "page-faults $total" ]'
	else
		fail "export --format pprof --cost page-faults (or protoc missing)"
	fi
done

# A trace without counters, and a counter it does not have: one line each.
"$WPPTRACE" record -q -o "$WORK/plain.wpp" -- "$WORK/faults" 3 3 2>/dev/null
"$WPPTRACE" report "$WORK/plain.wpp" --cost page-faults >/dev/null 2>"$WORK/none.err"
rc=$?
check "--cost on a trace without counters: one line, exit 2 (rc $rc)" \
	'[ $rc = 2 ] && [ $(wc -l <"$WORK/none.err") = 1 ] && grep -q "has no counters" "$WORK/none.err"'
"$WPPTRACE" report "$out" --cost cpu-clock >/dev/null 2>"$WORK/other.err"
rc=$?
check "--cost of an unrecorded counter names the recorded ones" \
	'[ $rc = 2 ] && grep -q "it has: page-faults" "$WORK/other.err"'

# A program that cannot be started (a directory) with counters on: one
# line and exit 127, no crash (the counter ring was freed under a running
# drain thread).
"$WPPTRACE" record -q -e page-faults -c 1 -o "$WORK/dir.wpp" -- "$WORK/" 2>"$WORK/dir.err"
rc=$?
check "counters with a program that cannot run: one line, exit 127 (rc $rc)" \
	'[ $rc = 127 ] && [ $(wc -l <"$WORK/dir.err") = 1 ] && grep -q "cannot run" "$WORK/dir.err"'

# No PMU: one line, the software events offered, no file, no crash.
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
	echo "note: this machine has a PMU; the no-PMU message is not exercised"
else
	rm -f "$WORK/pmu.wpp"
	"$WPPTRACE" record -e cache-misses -c 1000 -o "$WORK/pmu.wpp" -- "$WORK/faults" 3 3 \
		>"$WORK/pmu.out" 2>"$WORK/pmu.err"
	rc=$?
	check "no PMU: exit 1 (rc $rc)" '[ $rc = 1 ]'
	check "no PMU: exactly one line on stderr" '[ $(wc -l <"$WORK/pmu.err") = 1 ]'
	check "no PMU: says so and offers the software events" \
		'grep -q "^wpptrace: .*no hardware performance counters.*cpu-clock.*page-faults" "$WORK/pmu.err"'
	check "no PMU: no file left behind, program not run" '[ ! -e "$WORK/pmu.wpp" ] && [ ! -s "$WORK/pmu.out" ]'
fi
finish
