# user/collect: the analyses the collector runs on live traces, and their
# glue to the analysis libraries: the online stream assembler (it shares
# the decoder's splice rule, user/decode/stream.c), its worker thread, the
# grammar and k-path consumers, top's live path counts; and reading a
# recorded thread's grammar (or rebuilding it) for the commands.
COLLECT_SRCS := user/collect/online.c user/collect/online_worker.c user/collect/thread_loads.c \
	user/collect/sequitur_online.c user/collect/path_tally.c
COLLECT_OBJS := $(call objs,,$(COLLECT_SRCS))
COLLECT_SAN_OBJS := $(call objs,san,$(COLLECT_SRCS))
# The k-path consumer and the live source of path kinds (user/analysis/kpaths).
COLLECT_KPATHS_SRCS := user/collect/kslab_online.c user/collect/kipf_kinds_live.c
COLLECT_KPATHS_OBJS := $(call objs,,$(COLLECT_KPATHS_SRCS))
COLLECT_CLI_SRCS := user/collect/thread_grammar.c
COLLECT_CLI_OBJS := $(call objs,,$(COLLECT_CLI_SRCS))

WPPTRACE_EXTRA_OBJS += $(COLLECT_OBJS) $(COLLECT_KPATHS_OBJS) $(COLLECT_CLI_OBJS)
