# user/analysis: SEQUITUR(1) grammars, the WPP DAG, hot subpaths.
ANALYSIS_SRCS := user/analysis/sequitur.c user/analysis/sequitur_digram.c \
	user/analysis/sequitur_export.c user/analysis/sequitur_check.c \
	user/analysis/sequitur_grammar.c user/analysis/sequitur_serial.c \
	user/analysis/wppdag.c user/analysis/hotsub.c user/common/crc32c.c
ANALYSIS_OBJS := $(call objs,,$(ANALYSIS_SRCS))
ANALYSIS_SAN_OBJS := $(call objs,san,$(ANALYSIS_SRCS))
ANALYSIS_LIB := $(LIBDIR)/libwppanalysis.a

$(ANALYSIS_LIB): $(ANALYSIS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

ALL_TARGETS += $(ANALYSIS_LIB)
