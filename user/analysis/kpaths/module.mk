# user/analysis/kpaths: k-paths (issue 6, docs/kpaths.md) — streaming k-slab
# forests, k-IPFs, their chunks, costs and ranking, and their offline
# construction from a decoded trace.  The online consumer that feeds them
# from a live trace is user/collect's (COLLECT_KPATHS_SRCS).
KSLAB_SRCS := user/analysis/kpaths/kslab_map.c user/analysis/kpaths/kslab.c \
	user/analysis/kpaths/kslab_prune.c user/analysis/kpaths/kslab_words.c \
	user/analysis/kpaths/kipf.c user/analysis/kpaths/kipf_serial.c \
	user/analysis/kpaths/kipf_rank.c user/analysis/kpaths/kslab_act.c \
	user/analysis/kpaths/kipf_cost.c user/analysis/kpaths/kipf_inst_cost.c
# These read the decoder's model of a trace.
KSLAB_SIDE_SRCS := user/analysis/kpaths/kipf_build.c user/analysis/kpaths/kipf_kinds.c

KSLAB_OBJS := $(call objs,,$(KSLAB_SRCS) $(KSLAB_SIDE_SRCS))
KSLAB_SAN_OBJS := $(call objs,san,$(KSLAB_SRCS) $(KSLAB_SIDE_SRCS))

WPPTRACE_EXTRA_OBJS += $(KSLAB_OBJS)
