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
# File operands are written  -  (stdin from /dev/null), data:F (generated
# input F, see workload_data), src:F (file F of the build tree, e.g. the
# package's own samples), tests:F (tests/real/F) or @NAME (the output of
# an earlier step).  Each step runs in its own scratch directory.
#
# SIZE is `test` (small: the oracles decode the traces block by block) or
# `bench` (about 1-3 s of plain -O2 CPU time per program on this machine).
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
	*) die "no workload for '$prog' size '$size'" ;;
	esac
}
