# k-paths (issue 6): streaming k-slab forests, k-IPFs, their chunks, the
# online consumer and offline construction (docs/kpaths.md).

KSLAB_SRCS := user/analysis/kslab_map.c user/analysis/kslab.c user/analysis/kslab_prune.c \
	user/analysis/kslab_words.c user/analysis/kipf.c user/analysis/kipf_serial.c \
	user/analysis/kipf_rank.c user/analysis/kslab_act.c user/analysis/kipf_cost.c \
	user/analysis/kipf_inst_cost.c \
	user/decode/trace_words.c
# These need the decoder and the collector's headers.
KSLAB_SIDE_SRCS := user/analysis/kipf_build.c user/analysis/kslab_online.c \
	user/analysis/kipf_kinds.c user/analysis/kipf_kinds_live.c
KSLAB_CPPFLAGS := $(DECODE_SIDE_CPPFLAGS) -Iuser/analysis -Iuser/collect

KSLAB_OBJS := $(call objs,,$(KSLAB_SRCS) $(KSLAB_SIDE_SRCS))
KSLAB_SAN_OBJS := $(call objs,san,$(KSLAB_SRCS) $(KSLAB_SIDE_SRCS))
$(KSLAB_OBJS) $(KSLAB_SAN_OBJS): CPPFLAGS += $(KSLAB_CPPFLAGS)
$(call objs,,user/cli/cmd_kpaths.c): CPPFLAGS += $(KSLAB_CPPFLAGS)

$(BIN)/wpptrace: $(KSLAB_OBJS)

