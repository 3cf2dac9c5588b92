# user/analysis/grammar: SEQUITUR(1) grammars, the WPP DAG and hot subpaths
# (docs/sequitur.md) — algorithms over symbol streams, no I/O of their own.
# The collector builds grammars online with them (user/collect), the
# commands offline; both link $(ANALYSIS_OBJS), installed as libwppanalysis.a.
ANALYSIS_SRCS := user/analysis/grammar/sequitur.c user/analysis/grammar/sequitur_digram.c \
	user/analysis/grammar/sequitur_export.c user/analysis/grammar/sequitur_check.c \
	user/analysis/grammar/sequitur_grammar.c user/analysis/grammar/sequitur_serial.c \
	user/analysis/grammar/sequitur_serial_v2.c user/analysis/grammar/sequitur_rc.c \
	user/analysis/grammar/sequitur_recency.c user/analysis/grammar/sequitur_chunked.c \
	user/analysis/grammar/sequitur_chunked_export.c \
	user/analysis/grammar/wppdag.c user/analysis/grammar/hotsub.c $(CRC32C_SRCS)
ANALYSIS_OBJS := $(call objs,,$(ANALYSIS_SRCS))
ANALYSIS_SAN_OBJS := $(call objs,san,$(ANALYSIS_SRCS))
ANALYSIS_LIB := $(LIBDIR)/libwppanalysis.a

$(ANALYSIS_LIB): $(ANALYSIS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

WPPTRACE_EXTRA_OBJS += $(ANALYSIS_OBJS)
ALL_TARGETS += $(ANALYSIS_LIB)
