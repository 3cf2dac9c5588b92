#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pprof export round trip: the file is gzip + profile.proto; read back with
# protoc (an independent decoder): schema-free (--decode_raw, field numbers
# of the published profile.proto) and typed (--decode).  The samples must
# add up to the report's totals, every id must resolve, string_table[0]
# must be "", and every path's blocks must appear as its locations.
. "$(dirname "$0")/report-lib.sh"
command -v protoc >/dev/null || { fail "protoc not installed (protobuf-compiler)"; finish; }
cp "$DATA/golden.c" "$WORK/"
( cd "$WORK" && "$WPPCC" -O1 -g golden.c -o golden ) || { fail build; finish; }
record "$WORK/run.wpp" "$WORK/golden" >/dev/null 2>&1 || fail record
"$WPPTRACE" export "$WORK/run.wpp" --format pprof -o "$WORK/run.pb.gz" || fail "export"
"$WPPTRACE" report "$WORK/run.wpp" --format json --top 1000 >"$WORK/report.json" || fail "report json"
gzip -dc "$WORK/run.pb.gz" >"$WORK/run.pb" || fail "not gzip"
protoc --decode_raw <"$WORK/run.pb" >"$WORK/raw.txt" || fail "decode_raw"
protoc --decode=perftools.profiles.Profile --proto_path="$ROOT/user/report" profile.proto \
	<"$WORK/run.pb" >"$WORK/typed.txt" || fail "typed decode"
python3 - "$WORK/raw.txt" "$WORK/typed.txt" "$WORK/report.json" <<'PY' && pass "pprof round trip" || fail "pprof checks"
import json, re, sys
raw, typed, rep = open(sys.argv[1]).read(), open(sys.argv[2]).read(), json.load(open(sys.argv[3]))
# Schema-free: field 6 (string_table) holds our names, field 1 (sample_type) exists.
strings = re.findall(r'^6: "(.*)"$', raw, re.M)
assert strings and 'executions' in strings and 'main' in strings and 'weigh' in strings, strings[:10]
assert re.search(r'^1 \{', raw, re.M)
# Typed: parse the text format into blocks.
def blocks(name):
    return re.findall(r'^%s \{\n(.*?)^\}' % name, typed, re.M | re.S)
st = re.findall(r'^string_table: "(.*)"$', typed, re.M)
assert st[0] == '' and st == strings, (st[:5], strings[:5])
locs = {int(re.search(r'^  id: (\d+)', b, re.M).group(1)): b for b in blocks('location')}
fns = {int(re.search(r'^  id: (\d+)', b, re.M).group(1)): b for b in blocks('function')}
maps = {int(re.search(r'^  id: (\d+)', b, re.M).group(1)) for b in blocks('mapping')}
total = [0, 0]
samples = blocks('sample')
for s in samples:
    ids = [int(x) for x in re.findall(r'^  location_id: (\d+)', s, re.M)]
    vals = [int(x) for x in re.findall(r'^  value: (\d+)', s, re.M)]
    assert ids and all(i in locs for i in ids) and len(vals) == 2, s
    total[0] += vals[0]; total[1] += vals[1]
for l in locs.values():
    assert int(re.search(r'mapping_id: (\d+)', l).group(1)) in maps
    assert int(re.search(r'function_id: (\d+)', l).group(1)) in fns
names = {st[int(re.search(r'^  name: (\d+)', b, re.M).group(1))] for b in fns.values()}
assert names == {'main', 'weigh'}, names
t = rep['totals']
assert total == [t['count'], t['cost']], (total, t)
assert len(samples) == t['process_paths'], (len(samples), t)
# Each report path: one sample whose locations count equals its blocks.
lens = sorted(len(re.findall(r'location_id', s)) for s in samples)
assert lens == sorted(p['blocks'] for p in rep['paths']), (lens,)
print("samples", len(samples), "locations", len(locs), "functions", len(fns), "totals", total)
PY
finish
