# scripts/real/common.sh — shared settings for the real-program scripts
# (fetch, build, workloads, oracles, bench).  Sourced, not run.

REAL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
REAL_WORK=${WPP_REAL_WORK:-$REAL_ROOT/scripts/work/real}
REAL_SRC=$REAL_WORK/src
REAL_BUILD=$REAL_WORK/build
REAL_CLANG=${WPP_CLANG:-clang-19}
REAL_WPPCC=${WPP_WPPCC:-$REAL_ROOT/bin/wppcc}
REAL_WPPTRACE=${WPP_WPPTRACE:-$REAL_ROOT/bin/wpptrace}

# pigz (multi-threaded) is wanted too, but this mirror answers 404 for its
# bookworm source files; `scripts/real/fetch pigz` tries again.
REAL_PROGRAMS=(lua zlib bzip2)
REAL_MODES=(plain pgo wpp wpp-blocks pgo-relayout)

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

# Directory holding the helper tools (gendata, cputime, detmalloc.so),
# built on demand with plain clang: they are never instrumented.
real_tools() {
	local dir=$REAL_WORK/tools t src flags
	mkdir -p "$dir"
	for t in gendata cputime detmalloc.so; do
		case $t in
		*.so) src=$REAL_ROOT/tests/real/${t%.so}.c flags="-fPIC -shared" ;;
		*) src=$REAL_ROOT/scripts/real/$t.c flags= ;;
		esac
		if [ ! -x "$dir/$t" ] || [ "$src" -nt "$dir/$t" ]; then
			# shellcheck disable=SC2086
			$REAL_CLANG -std=gnu11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE $flags \
				"$src" -o "$dir/$t.$$" || die "cannot build $t"
			mv "$dir/$t.$$" "$dir/$t"
		fi
	done
	echo "$dir"
}

# Generate the inputs of workload SIZE (once); print their directory.
prepare_data() {
	local size=$1 dir=$REAL_WORK/data/$1 tools file kind bytes seed
	tools=$(real_tools)
	mkdir -p "$dir"
	while read -r file kind bytes seed; do
		if [ ! -f "$dir/$file" ] || [ "$(stat -c %s "$dir/$file")" != "$bytes" ] ||
			[ "$tools/gendata" -nt "$dir/$file" ]; then
			"$tools/gendata" "$kind" "$bytes" "$seed" >"$dir/$file.$$" ||
				die "gendata $kind failed"
			mv "$dir/$file.$$" "$dir/$file"
		fi
	done < <(workload_data "$size")
	echo "$dir"
}

# "WORDS BYTES" of a .wpp file.  WORDS comes from its last chunk, which in a
# cleanly closed file is WPP_CHUNK_END (wpp_file.h: a 16-byte chunk header,
# then batches, words, ... as u64); "?" if the file was not closed cleanly.
trace_stats() {
	local f=$1 magic type words="?"
	magic=$(tail -c 56 "$f" | od -An -tu4 -N4 | tr -d ' ')
	type=$(tail -c 56 "$f" | od -An -tu2 -j4 -N2 | tr -d ' ')
	if [ "$magic" = 1262702679 ] && [ "$type" = 7 ]; then
		words=$(tail -c 56 "$f" | od -An -tu8 -j24 -N8 | tr -d ' ')
	fi
	echo "$words $(stat -c %s "$f")"
}
