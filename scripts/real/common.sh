# scripts/real/common.sh — shared settings for the real-program scripts
# (fetch, build, workloads, oracles, bench).  Sourced, not run.

REAL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
REAL_WORK=${WPP_REAL_WORK:-$REAL_ROOT/scripts/work/real}
REAL_SRC=$REAL_WORK/src
REAL_BUILD=$REAL_WORK/build
REAL_CLANG=${WPP_CLANG:-clang-19}
REAL_WPPCC=${WPP_WPPCC:-$REAL_ROOT/bin/wppcc}
REAL_WPPTRACE=${WPP_WPPTRACE:-$REAL_ROOT/bin/wpptrace}

REAL_PROGRAMS=(lua zlib bzip2 pigz)
REAL_MODES=(plain pgo wpp wpp-blocks)

die() { echo "real: $*" >&2; exit 1; }

debian_package() {
	case $1 in
	lua) echo lua5.4 ;;
	zlib) echo zlib ;;
	bzip2) echo bzip2 ;;
	pigz) echo pigz ;;
	*) die "unknown program '$1' (known: ${REAL_PROGRAMS[*]})" ;;
	esac
}

# Unpacked source tree of PROGRAM (fetching it if needed).
source_dir() {
	local line
	line=$("$REAL_ROOT/scripts/real/fetch" "$1") || exit 1
	echo "${line##* }"
}
