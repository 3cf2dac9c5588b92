#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cli-help.sh — every command's help agrees with itself and with
# docs/cli.md (issue 25).  The help is generated from the command's option
# table (user/common/options.h), so comparing it with the manual compares
# the table with the manual.  For each command `wpptrace --help` lists:
#   1. `wpptrace help CMD`, `wpptrace CMD --help` and `wpptrace CMD -h`
#      print the same text, exit 0, nothing on stderr;
#   2. docs/cli.md has a section "## CMD";
#   3. the section's synopsis (the code block after the heading, or the
#      `wpptrace CMD ...` lines in backquotes; "# ..." comments left out)
#      names only options the help
#      lists, and names every option the help lists — or, where the
#      synopsis says "[options]", the section's text names every one;
#   4. an option that takes one of a list of words shows the same words
#      ("--format text|json") in the synopsis as in the help;
#   5. a bad option and a bad value are one "wpptrace: error: CMD: ..."
#      line naming it, exit 2;
#   6. the shared thread filter means the same in every command: on a
#      recording whose thread exec()s (two images, generations 0 and 1),
#      `--gen G` of paths, report, residual's profile, edges, kpaths, hot,
#      wpp and script selects what `script --gen G` lists (the oracle:
#      script's events counted by hand), and a generation that does not
#      exist is a usage error (exit 2) in each;
#   7. a report that cannot be written (stdout is /dev/full) is one line,
#      "CMD: writing the output failed", exit 1 — said once, by main.c.
# An option is named by its long name, or its letter when it has none.
. "$(dirname "$0")/../oracle/lib.sh"
require_tools "$WPPTRACE"
w=$WORK/cli-help
rm -rf "$w" && mkdir -p "$w"
DOC=$ROOT/docs/cli.md

cmds=$("$WPPTRACE" --help | awk '/^commands:/ { on = 1; next } on && !NF { exit } on { print $1 }')
[ -n "$cmds" ] || fail "wpptrace --help lists no commands"

for cmd in $cmds; do
	check_done
	"$WPPTRACE" help "$cmd" >"$w/$cmd.help" 2>"$w/$cmd.err1"
	rc1=$?
	"$WPPTRACE" "$cmd" --help >"$w/$cmd.help2" 2>"$w/$cmd.err2"
	rc2=$?
	"$WPPTRACE" "$cmd" -h >"$w/$cmd.help3" 2>"$w/$cmd.err3"
	rc3=$?
	if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ] || [ $rc3 -ne 0 ] || [ -s "$w/$cmd.err1" ] ||
		[ -s "$w/$cmd.err2" ] || [ -s "$w/$cmd.err3" ]; then
		fail "$cmd: help exit $rc1/$rc2/$rc3 or stderr: $(cat "$w/$cmd".err?)"
	elif ! cmp -s "$w/$cmd.help" "$w/$cmd.help2" || ! cmp -s "$w/$cmd.help" "$w/$cmd.help3"; then
		fail "$cmd: 'help $cmd', '$cmd --help' and '$cmd -h' differ"
	elif ! grep -q "^usage: wpptrace $cmd" "$w/$cmd.help"; then
		fail "$cmd: the help has no 'usage: wpptrace $cmd' line"
	else
		pass "$cmd: help, --help and -h print the same"
	fi

	check_done
	if python3 - "$cmd" "$w/$cmd.help" "$DOC" >"$w/$cmd.cmp" 2>&1 <<'PY'; then
import re, sys

cmd, help_file, doc_file = sys.argv[1:]
help_text = open(help_file).read()
doc = open(doc_file).read()

# The help's option lines: "  -s, --long ARG", "      --long ARG", "  -s ARG".
opts = {}  # name -> (letter, value)
letters = {}
for line in help_text.splitlines():
    m = re.match(r"^(?:  -(\w)(?:, --([\w-]+))?|      --([\w-]+))(?: (\S+))?", line)
    if not m:
        continue
    letter, long, value = m.group(1), m.group(2) or m.group(3), m.group(4)
    name = long or letter
    if name == "help":
        continue
    opts[name] = (letter, value)
    if letter:
        letters[letter] = name

sec = re.search(r"^## " + re.escape(cmd) + r"\b.*?$(.*?)(?=^## |\Z)", doc, re.M | re.S)
if not sec:
    sys.exit(f"docs/cli.md has no section '## {cmd}'")
body = sec.group(1)
block = re.match(r"\s*```\n(.*?)```", body, re.S)
if block:
    synopsis = block.group(1)
else:
    synopsis = "\n".join(re.findall(r"`(wpptrace " + re.escape(cmd) + r"\b[^`]*)`", body))
if not synopsis:
    sys.exit(f"docs/cli.md, ## {cmd}: no synopsis")
synopsis = re.sub(r"#.*", "", synopsis)  # a line's comment is prose

def named(text):
    """Option names in text, letters mapped to the help's long names."""
    out = {}
    for m in re.finditer(r"(?<![\w-])--([a-z][\w-]*)(?:[ =]([\w.|]+))?", text):
        out.setdefault(m.group(1), m.group(2))
    for m in re.finditer(r"(?<![\w-])-([a-zA-Z])(?![\w-])(?: ([\w.|]+))?", text):
        out.setdefault(letters.get(m.group(1), m.group(1)), m.group(2))
    return out

syn = named(synopsis)
errors = []
for name in sorted(set(syn) - set(opts)):
    errors.append(f"the synopsis names {name}, which the help does not list")
everywhere = named(body) if "[options]" in synopsis else syn
for name in sorted(set(opts) - set(everywhere)):
    errors.append(f"the help lists {name}, which the "
                  + ("section" if "[options]" in synopsis else "synopsis") + " does not name")
for name, value in syn.items():
    helps = opts.get(name, (None, None))[1]
    if value and "|" in value and helps and "|" in helps and helps != value:
        errors.append(f"{name}: the synopsis says {value}, the help {opts[name][1]}")
if errors:
    sys.exit("\n".join(errors))
print(f"{len(opts)} options agree")
PY
		pass "$cmd: docs/cli.md agrees with the help ($(cat "$w/$cmd.cmp"))"
	else
		fail "$cmd: docs/cli.md and the help disagree:"
		sed 's/^/    | /' "$w/$cmd.cmp"
	fi
done

# A bad option or value: one line naming it, exit 2.
expect_usage() {
	local what=$1 want=$2
	shift 2
	check_done
	"$WPPTRACE" "$@" >"$w/out" 2>"$w/err"
	local rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$w/err")" -eq 1 ] && grep -q -- "^wpptrace: error: $want" "$w/err"; then
		pass "$what: $(cat "$w/err")"
	else
		fail "$what: exit $rc, stderr: $(cat "$w/err")"
	fi
}
expect_usage "unknown option" "paths: unknown option '--bogus' (try wpptrace help paths)" \
	paths x.wpp --bogus
expect_usage "word not in the list" "report: --by takes path, function or process, not 'file'" \
	report x.wpp --by file
expect_usage "number out of range" "kpaths: -k must be 1..32, not '33'" kpaths x.wpp -k 33
expect_usage "not a number" "script: --gen needs a number, not 'one'" script x.wpp --gen one
expect_usage "missing value" "wet dump: -n needs a value" wet dump x.wpp -n
expect_usage "flag with a value" "edges: --quiet takes no value" edges x.wpp --quiet=1
expect_usage "no operand" "annotate: expected a .wpp file and a function name" annotate
expect_usage "record's own check" "record: --no-count and --count-only leave nothing to record" \
	record -e cpu-clock --no-count --count-only -- /bin/true

# 6. --gen: exec into recursion, built next to it (tests/corpus/exec.c).
WPPCC=$ROOT/bin/wppcc
rec=$w/exec.wpp
if "$WPPCC" -O2 -o "$w/recursion" "$CORPUS/recursion.c" 2>"$w/cc.err" &&
	"$WPPCC" -O2 -o "$w/exec" "$CORPUS/exec.c" 2>>"$w/cc.err" &&
	(cd "$w" && "$WPPTRACE" -q record --transport=shm -o "$rec" -- ./exec </dev/null \
		>/dev/null 2>"$w/rec.err"); then
	for g in 0 1; do
		check_done
		"$WPPTRACE" script "$rec" --gen "$g" --format jsonl >"$w/gen$g.jsonl" &&
			"$WPPTRACE" paths "$rec" --gen "$g" --format json >"$w/gen$g.paths" &&
			"$WPPTRACE" report "$rec" --gen "$g" --format json --top 0 >"$w/gen$g.report" &&
			"$WPPTRACE" edges "$rec" --gen "$g" -q -o "$w/gen$g.edges" &&
			"$WPPTRACE" kpaths "$rec" --gen "$g" -k 1 --all --top 0 --format json \
				>"$w/gen$g.kpaths" &&
			"$WPPTRACE" hot "$rec" --gen "$g" --format json >"$w/gen$g.hot" &&
			"$WPPTRACE" wpp "$rec" --gen "$g" --format json >"$w/gen$g.wpp" 2>/dev/null
		rc=$?
		if [ $rc -eq 0 ] && python3 - "$w/gen$g" "$g" >"$w/gen$g.cmp" 2>&1 <<'PY'; then
import collections, json, sys

base, gen = sys.argv[1], int(sys.argv[2])
want = collections.Counter()
for line in open(base + ".jsonl"):
    ev = json.loads(line)
    assert ev["gen"] == gen, f"script --gen {gen} listed gen {ev['gen']}"
    if ev["type"] == "path":
        want[(ev["function"], ev["path"])] += 1
total = sum(want.values())
paths = json.load(open(base + ".paths"))
got = collections.Counter()
for r in paths["paths"]:
    got[(r["function"], r["path"])] += r["count"]
assert got == want, f"paths --gen {gen}: {sum(got.values())} executions, script {total}"
report = json.load(open(base + ".report"))
assert report["totals"]["count"] == total, f"report --gen {gen}: {report['totals']}"
for doc, what in ((json.load(open(base + ".kpaths")), "processes"),
                  (json.load(open(base + ".hot")), "threads"),
                  (json.load(open(base + ".wpp")), "threads")):
    gens = {p["gen"] for p in doc[what]}
    assert gens == {gen}, f"{what} of generations {gens}"
kp = json.load(open(base + ".kpaths"))["processes"][0]
assert sum(k["count"] for k in kp["kpaths"]) == total, "kpaths -k 1 --all counts"
print(f"{total} path executions")
PY
			pass "--gen $g: paths, report, edges, kpaths, hot and wpp select script's $(cat "$w/gen$g.cmp")"
		else
			fail "--gen $g (rc $rc): $(cat "$w/gen$g.cmp" 2>/dev/null | tail -1)"
		fi
	done
	for cmd in paths report edges interesting residual kpaths hot wpp script annotate; do
		check_done
		args=("$rec")
		[ "$cmd" = annotate ] && args+=(main)
		"$WPPTRACE" "$cmd" "${args[@]}" --gen 7 >/dev/null 2>"$w/gen7.err"
		rc=$?
		if [ $rc -eq 2 ] && grep -q "matches --gen 7\|no module of the recording" "$w/gen7.err"; then
			pass "$cmd --gen 7: exit 2"
		elif [ "$cmd" = residual ] && [ $rc -eq 1 ]; then
			pass "residual --gen 7: not a ppp recording (exit 1, before any filter)"
		else
			fail "$cmd --gen 7: exit $rc: $(cat "$w/gen7.err")"
		fi
	done
	for cmd in paths report script hot kpaths wpp info edges interesting; do
		check_done
		"$WPPTRACE" "$cmd" "$rec" >/dev/full 2>"$w/full.err"
		rc=$?
		if [ $rc -eq 1 ] && [ "$(cat "$w/full.err")" = "wpptrace: error: $cmd: writing the output failed" ]; then
			pass "$cmd >/dev/full: one line, exit 1"
		else
			fail "$cmd >/dev/full: exit $rc: $(cat "$w/full.err")"
		fi
	done
else
	fail "building or recording exec: $(cat "$w/cc.err" "$w/rec.err" 2>/dev/null | head -3)"
fi

finish
