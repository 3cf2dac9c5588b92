# scripts/real/workloads.sh — what each real program is run on.  Sourced.
#
# workload_steps PROGRAM SIZE prints the steps of the workload, one a line:
#   run  NAME STDIN PROG [ARG...]   run PROG (a binary of the build) with
#                                   ARGs, stdin from STDIN, stdout kept as
#                                   NAME's output
#   same NAME REF                   NAME's output must equal REF (round trip)
#   diff NAME                       NAME is also traced in blocks mode for the
#                                   differential oracle (test size only; kept
#                                   to steps of at most ~1M blocks, since the
#                                   comparison decodes every block to JSON)
#   threads NAME N FUNC XZ          NAME runs N worker threads whose share of
#                                   the work is scheduled nondeterministically
#                                   (xz -T N): no block-by-block differential
#                                   and no layout premise; instead the oracles
#                                   check that FUNC, entered once per xz block,
#                                   is entered as many times as file XZ (an
#                                   operand) has blocks, in both encodings, on
#                                   the worker threads (tests/real/mtcheck.py)
# File operands are written  -  (stdin from /dev/null), data:F (generated
# input F, see workload_data), src:F (file F of the build tree, e.g. the
# package's own samples), tests:F (tests/real/F) or @NAME (the output of
# an earlier step).  Each step runs in its own scratch directory.
#
# SIZE is `test` (small: the oracles decode the traces block by block),
# `bench` (about 1-3 s of plain -O2 CPU time per program on this machine)
# or, for multi-threaded programs, `threads1`, `threads2`, `threads4`: one
# bench-sized job run with that many threads (scripts/bench's scaling table).
# Every input is generated from a fixed seed, so all builds see the same
# bytes.

# workload_data SIZE: lines "FILE KIND BYTES SEED" for scripts/real/gendata.
workload_data() {
	case $1 in
	test)
		echo "text.small text 60000 1"
		echo "text.tiny text 6000 4"
		echo "mixed.small mixed 60000 2"
		echo "binary.small binary 20000 3"
		echo "text.mt text 16000 5"
		echo "mixed.mt mixed 16000 6"
		;;
	threads[124]) # scripts/bench's thread scaling (xz)
		echo "mixed.big mixed 6000000 12"
		;;
	bench)
		echo "text.big text 12000000 11"
		echo "mixed.big mixed 6000000 12"
		echo "binary.big binary 2000000 13"
		;;
	*) die "unknown workload size '$1' (test|bench)" ;;
	esac
}

workload_steps() {
	local prog=$1 size=$2
	case $prog/$size in
	lua/test)
		local s
		for s in tables strings closures coroutines gc; do
			echo "run $s - lua tests:lua/$s.lua 100"
			echo "diff $s"
		done
		;;
	lua/bench)
		echo "run tables - lua tests:lua/tables.lua 300000"
		echo "run strings - lua tests:lua/strings.lua 150000"
		echo "run closures - lua tests:lua/closures.lua 250000"
		echo "run coroutines - lua tests:lua/coroutines.lua 600000"
		echo "run gc - lua tests:lua/gc.lua 120000"
		;;
	zlib/test)
		# zlib's own self-test, then minigzip round trips in several modes
		echo "run example - example"
		echo "diff example"
		echo "run gzt data:text.tiny minigzip -c"
		echo "run gunzt @gzt minigzip -d -c"
		echo "same gunzt data:text.tiny"
		echo "diff gzt"
		echo "diff gunzt"
		echo "run gz6 data:text.small minigzip -c"
		echo "run gunz6 @gz6 minigzip -d -c"
		echo "same gunz6 data:text.small"
		echo "run gz9 data:mixed.small minigzip -9 -c"
		echo "run gunz9 @gz9 minigzip -d -c"
		echo "same gunz9 data:mixed.small"
		echo "run gz1h data:binary.small minigzip -1 -h -c"
		echo "run gunz1h @gz1h minigzip -d -c"
		echo "same gunz1h data:binary.small"
		echo "diff gz1h"
		echo "diff gunz1h"
		echo "run gzR data:text.small minigzip -r -c"
		echo "run gunzR @gzR minigzip -d -c"
		echo "same gunzR data:text.small"
		echo "run gzf data:mixed.small minigzip -f -c"
		echo "run gunzf @gzf minigzip -d -c"
		echo "same gunzf data:mixed.small"
		;;
	zlib/bench)
		echo "run gz6 data:text.big minigzip -c"
		echo "run gunz6 @gz6 minigzip -d -c"
		echo "same gunz6 data:text.big"
		echo "run gz9 data:mixed.big minigzip -9 -c"
		echo "run gunz9 @gz9 minigzip -d -c"
		echo "same gunz9 data:mixed.big"
		echo "run gz1 data:binary.big minigzip -1 -c"
		;;
	bzip2/test)
		# the package's `make test`: its three samples both ways
		echo "run s1 src:sample1.ref bzip2 -1"
		echo "same s1 src:sample1.bz2"
		echo "run s2 src:sample2.ref bzip2 -2"
		echo "same s2 src:sample2.bz2"
		echo "run s3 src:sample3.ref bzip2 -3"
		echo "same s3 src:sample3.bz2"
		echo "run d1 src:sample1.bz2 bzip2 -d"
		echo "same d1 src:sample1.ref"
		echo "run d2 src:sample2.bz2 bzip2 -d"
		echo "same d2 src:sample2.ref"
		echo "run d3 src:sample3.bz2 bzip2 -ds"
		echo "same d3 src:sample3.ref"
		echo "run mixed data:mixed.small bzip2 -9"
		echo "run unmixed @mixed bzip2 -d"
		echo "same unmixed data:mixed.small"
		echo "run tiny data:text.tiny bzip2 -1"
		echo "run untiny @tiny bzip2 -d"
		echo "same untiny data:text.tiny"
		echo "diff tiny"
		echo "diff untiny"
		;;
	bzip2/bench)
		echo "run bz9 data:text.big bzip2 -9"
		echo "run unbz9 @bz9 bzip2 -d"
		echo "same unbz9 data:text.big"
		echo "run bz1 data:mixed.big bzip2 -1"
		echo "run unbz1 @bz1 bzip2 -ds"
		echo "same unbz1 data:mixed.big"
		;;
	xz/test)
		# single-threaded round trips (the differential runs on the tiny ones)
		echo "run ct data:text.tiny xz -c -T1 -1"
		echo "run dt @ct xz -dc -T1"
		echo "same dt data:text.tiny"
		echo "diff ct"
		echo "diff dt"
		echo "run c1 data:text.small xz -c -T1 -3"
		echo "run d1 @c1 xz -dc -T1"
		echo "same d1 data:text.small"
		# multi-threaded block mode: blocks of a few kB, so 2 and 4 workers
		# really compress (and decompress) blocks of one stream side by side
		echo "run c2 data:mixed.mt xz -c -T2 --block-size=2KiB -1"
		echo "run d2 @c2 xz -dc -T2"
		echo "same d2 data:mixed.mt"
		echo "threads c2 2 lzma_block_header_encode @c2"
		echo "threads d2 2 lzma_block_header_decode @c2"
		echo "run c4 data:text.mt xz -c -T4 --block-size=2KiB -1 --check=sha256"
		echo "run d4 @c4 xz -dc -T4"
		echo "same d4 data:text.mt"
		echo "threads c4 4 lzma_block_header_encode @c4"
		echo "threads d4 4 lzma_block_header_decode @c4"
		echo "run cb data:binary.small xz -c -T2 --block-size=4KiB -e --check=crc32"
		echo "run db @cb xz -dc -T2"
		echo "same db data:binary.small"
		echo "threads cb 2 lzma_block_header_encode @cb"
		echo "threads db 2 lzma_block_header_decode @cb"
		# the package's own test files (its `make check` runs them the same
		# way): valid ones decode, corrupt ones are rejected with status 1
		local good="good-1-check-crc32 good-1-check-sha256 good-1-lzma2-3 good-1-delta-lzma2.tiff good-1-x86-lzma2 good-2-lzma2 good-1-block_header-2"
		local bad="bad-1-check-crc64 bad-1-lzma2-7 bad-2-index-3 bad-1-block_header-4 bad-0-footer_magic bad-1-vli-2"
		echo "run good - xz -dc$(printf ' src:tests/files/%s.xz' $good)"
		echo "run bad - xz -t$(printf ' src:tests/files/%s.xz' $bad)"
		;;
	xz/bench)
		echo "run c3 data:mixed.big xz -c -T1 -3"
		echo "run d3 @c3 xz -dc -T1"
		echo "same d3 data:mixed.big"
		echo "run c1 data:binary.big xz -c -T1 -1"
		echo "run d1 @c1 xz -dc -T1"
		echo "same d1 data:binary.big"
		;;
	xz/threads[124])
		# scripts/bench's thread scaling: the same work, 12 blocks of 512 kB,
		# with 1, 2 or 4 threads (-T1 is xz's single-threaded mode)
		local n=${size#threads}
		echo "run c data:mixed.big xz -c -T$n --block-size=512KiB -3"
		echo "run d @c xz -dc -T$n"
		echo "same d data:mixed.big"
		;;
	*) die "no workload for '$prog' size '$size'" ;;
	esac
}
