#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/real/pinned-sources.sh — scripts/real/fetch gets the versions
# scripts/real/sources.lock pins whatever deb-src suites apt knows, and says
# in one line when a pinned version cannot be had.
#
# A private apt configuration (APT_CONFIG: its own source list and parts
# directory, index lists and cache; the machine's apt is not touched) lists
# bookworm and also trixie as deb-src, as many developers' machines do.
# There an unpinned `apt-get source zlib` takes trixie's zlib (checked: it
# would), yet fetch unpacks the pinned zlib and xz, stamped with their pins.
# Then, with locks of its own: a version no suite has, and one whose files
# are gone from the mirror, are each one line "real: missing pinned source:
# PKG=VERSION ..." and exit 3, which run-oracles turns into a SKIP naming
# it (and passes); a .dsc whose sha256 is not the lock's is an error (exit
# 1), never a skip.  Needs root (apt downloads as _apt into the private
# directories) and Debian's mirror.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: $(basename "$0") needs root (apt-get update into private lists)"
	exit 0
fi
work=$root/tests/work/real/pinned-sources
rm -rf "$work"
mkdir -p "$work"
failures=0 checks=0
fail() { failures=$((failures + 1)); echo "FAIL: $*"; }
pass() { checks=$((checks + 1)); echo "ok:   $*"; }
lock=$root/scripts/real/sources.lock
pinned() { awk -v p="$1" '$1 == p && !/^#/ { print $3 }' "$lock"; }

# The private apt configuration: deb-src only (no binary indexes to fetch).
apt=$work/apt
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/sources.list.d"
chown -R _apt "$apt/lists" "$apt/cache" 2>/dev/null
keys=/usr/share/keyrings/debian-archive-keyring.gpg
mirror=$(awk '$1 == "URIs:" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null)
mirror=${mirror:-http://deb.debian.org/debian}
cat >"$apt/sources.list" <<EOF
deb-src [signed-by=$keys] $mirror bookworm main
deb-src [signed-by=$keys] ${mirror}-security bookworm-security main
deb-src [signed-by=$keys] $mirror trixie main
EOF
cat >"$apt/apt.conf" <<EOF
Dir::Etc::sourcelist "$apt/sources.list";
Dir::Etc::sourceparts "$apt/sources.list.d";
Dir::State::lists "$apt/lists/";
Dir::Cache "$apt/cache/";
Acquire::PDiffs "false";
Acquire::Languages "none";
EOF
export APT_CONFIG=$apt/apt.conf
if ! apt-get update -qq >"$work/update.log" 2>&1; then
	echo "FAIL: apt-get update with the private configuration: $(grep -m1 '^[EW]:' "$work/update.log")"
	exit 1
fi

# The extra suite is live: unpinned, apt would take another zlib.
newest=$(cd "$work" && apt-get source --print-uris -qq zlib 2>/dev/null | awk 'NR == 1 { print $2 }')
if [ -n "$newest" ] && [[ "$newest" != "zlib_$(pinned zlib | sed 's/^[0-9]*://').dsc" ]]; then
	pass "unpinned, apt would fetch $newest from the extra suite"
else
	fail "the extra deb-src suite changes nothing (unpinned apt-get source zlib: '${newest:-nothing}')"
fi

# Pinned: exactly the lock's versions, stamped.
export WPP_REAL_WORK=$work/real
if out=$("$root/scripts/real/fetch" zlib xz 2>"$work/fetch.err"); then
	for prog in zlib xz; do
		want=$(pinned "$prog")
		line=$(awk -v p="$prog" '$1 == p' <<<"$out")
		dir=${line##* }
		if [ "$(cut -d' ' -f2 <<<"$line")" = "$want" ] && [ -d "$dir" ] &&
			grep -q " $want " "$dir/.wpp-pin" &&
			[ "$(dpkg-parsechangelog -l "$dir/debian/changelog" -S Version)" = "$want" ]; then
			pass "$prog: pinned $want fetched and unpacked ($(head -n1 "$dir/debian/changelog" | cut -d';' -f1))"
		else
			fail "$prog: wanted $want, got '$line'"
		fi
	done
else
	fail "fetch zlib xz failed: $(cat "$work/fetch.err")"
fi
# Again: the pinned trees are reused, nothing is downloaded.
if out2=$("$root/scripts/real/fetch" zlib xz 2>&1) && [ "$out2" = "$out" ]; then
	pass "a second fetch reuses the pinned trees"
else
	fail "second fetch: $out2"
fi

# Missing pinned versions: one line naming it, exit 3, and a SKIP in
# run-oracles.  zlib 1:1.2.13.dfsg-1+deb12u1 is in bookworm-security's
# index but its files 404 on this mirror (the issue's case); bzip2
# 1.0.8-99 is in no suite.
sed -e 's/^\(zlib *zlib *\)[^ ]*/\11:1.2.13.dfsg-1+deb12u1/' \
	-e 's/^\(bzip2 *bzip2 *\)[^ ]*/\11.0.8-99/' "$lock" >"$work/missing.lock"
missing_case() { # PROG PKG=VERSION WHAT
	local rc lines
	WPP_REAL_LOCK=$work/missing.lock WPP_REAL_WORK=$work/missing \
		"$root/scripts/real/fetch" "$1" >"$work/m.out" 2>"$work/m.err"
	rc=$?
	lines=$(wc -l <"$work/m.err")
	if [ $rc = 3 ] && [ "$lines" = 1 ] && [ ! -s "$work/m.out" ] &&
		[ "$(cut -d' ' -f1-5 "$work/m.err")" = "real: missing pinned source: $2" ] &&
		grep -qF "$3" "$work/m.err"; then
		pass "$1 $3: $(cat "$work/m.err")"
	else
		fail "$1 $3: exit $rc, $lines lines: $(cat "$work/m.err")"
	fi
}
missing_case bzip2 "bzip2=1.0.8-99" "in no configured deb-src suite"
apt_has_deb12u1=$(apt-cache showsrc zlib | grep -c '^Version: 1:1.2.13.dfsg-1+deb12u1$')
if [ "$apt_has_deb12u1" -gt 0 ] &&
	apt-get source --print-uris -qq zlib=1:1.2.13.dfsg-1+deb12u1 2>/dev/null |
	awk 'NR == 1 { gsub("\047", "", $1); print $1 }' | xargs curl -s -o /dev/null -w '%{http_code}' -I | grep -q 404; then
	missing_case zlib "zlib=1:1.2.13.dfsg-1+deb12u1" "the mirror no longer has its files"
else
	echo "note: zlib 1:1.2.13.dfsg-1+deb12u1 is served again (or gone from the index); its case is not run"
fi
WPP_REAL_LOCK=$work/missing.lock WPP_REAL_WORK=$work/missing \
	"$root/tests/real/run-oracles" bzip2 >"$work/oracles.out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "^SKIP bzip2: real: missing pinned source: bzip2=1\.0\.8-99 " "$work/oracles.out" &&
	grep -q "skipped for a missing pinned source: bzip2" "$work/oracles.out" && ! grep -q '^FAIL' "$work/oracles.out"; then
	pass "run-oracles: $(grep '^SKIP' "$work/oracles.out")"
else
	fail "run-oracles with a missing pin: exit $rc: $(cat "$work/oracles.out")"
fi

# A .dsc that is not the pinned one is an error, not a skip.
sed 's/^\(zlib *zlib *[^ ]* *\)[0-9a-f]*/\1'"$(printf '0%.0s' {1..64})"'/' "$lock" >"$work/badsum.lock"
WPP_REAL_LOCK=$work/badsum.lock WPP_REAL_WORK=$work/badsum \
	"$root/scripts/real/fetch" zlib >/dev/null 2>"$work/b.err"
rc=$?
if [ $rc = 1 ] && grep -q "^real: zlib_1.2.13.dfsg-1.dsc: sha256 [0-9a-f]\{64\}, but .*badsum.lock pins 0\{64\}$" "$work/b.err" &&
	[ -z "$(ls -d "$work/badsum/src/zlib-"* 2>/dev/null)" ]; then
	pass "a .dsc with another sha256: $(cat "$work/b.err")"
else
	fail "a .dsc with another sha256: exit $rc: $(cat "$work/b.err")"
fi

echo "$checks checks, $failures failures"
[ "$checks" -gt 0 ] && [ "$failures" = 0 ]
