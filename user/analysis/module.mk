# user/analysis: SEQUITUR(1) grammars, the WPP DAG, hot subpaths, the
# per-thread path grammar consumer; and user/collect (the online stream
# assembler, which has no fragment of its own in the top-level list).
ANALYSIS_SRCS := user/analysis/sequitur.c user/analysis/sequitur_digram.c \
	user/analysis/sequitur_export.c user/analysis/sequitur_check.c \
	user/analysis/sequitur_grammar.c user/analysis/sequitur_serial.c \
	user/analysis/sequitur_serial_v2.c user/analysis/sequitur_rc.c \
	user/analysis/sequitur_recency.c user/analysis/sequitur_chunked.c \
	user/analysis/sequitur_chunked_export.c \
	user/analysis/wppdag.c user/analysis/hotsub.c user/common/crc32c.c
ANALYSIS_OBJS := $(call objs,,$(ANALYSIS_SRCS))
ANALYSIS_SAN_OBJS := $(call objs,san,$(ANALYSIS_SRCS))
ANALYSIS_LIB := $(LIBDIR)/libwppanalysis.a

$(ANALYSIS_LIB): $(ANALYSIS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# Online analyses inside the collector: the assembler (shares the decoder's
# splice rule, user/decode/stream.c) and the grammar consumer.
COLLECT_SRCS := user/collect/online.c user/collect/online_worker.c user/collect/thread_loads.c \
	user/analysis/sequitur_online.c user/collect/path_tally.c
# Reading a recorded thread's grammar (or rebuilding it) for the CLI.
COLLECT_CLI_SRCS := user/collect/thread_grammar.c
COLLECT_OBJS := $(call objs,,$(COLLECT_SRCS))
COLLECT_SAN_OBJS := $(call objs,san,$(COLLECT_SRCS))
$(COLLECT_OBJS) $(COLLECT_SAN_OBJS): CPPFLAGS += -Iuser/decode -Iuser/common -Isymbolizer

COLLECT_CLI_OBJS := $(call objs,,$(COLLECT_CLI_SRCS))
$(COLLECT_CLI_OBJS): CPPFLAGS += $(DECODE_SIDE_CPPFLAGS) -Iuser/analysis

WPPTRACE_EXTRA_OBJS += $(ANALYSIS_OBJS) $(COLLECT_OBJS) $(COLLECT_CLI_OBJS)
# cmd_wpp.c / cmd_hot.c include the analysis headers by bare name.
$(call objs,,user/cli/cmd_wpp.c user/cli/cmd_hot.c): \
	CPPFLAGS += -Iuser/analysis -Iuser/collect

ALL_TARGETS += $(ANALYSIS_LIB)
