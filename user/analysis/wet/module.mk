# user/analysis/wet: whole execution traces (issue 28, docs/wet.md).  This
# room holds the label-stream libraries: tier 2 (bidirectional predictor
# streams) and tier 1 (value groups), control dependences and the shadow
# memory; then the builder (wet_build, wet_node) and the queries.

WET_SRCS := user/analysis/wet/wet_bits.c user/analysis/wet/wet_segment.c \
	user/analysis/wet/wet_stream.c user/analysis/wet/wet_stream_serial.c \
	user/analysis/wet/wet_tier1.c user/analysis/wet/wet_cdg.c user/analysis/wet/wet_shadow.c \
	user/analysis/wet/wet_xorder.c \
	$(CRC32C_SRCS)
WET_OBJS := $(call objs,,$(WET_SRCS))
WET_SAN_OBJS := $(call objs,san,$(WET_SRCS))
WET_LIB := $(LIBDIR)/libwppwet.a

$(WET_LIB): $(WET_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

ALL_TARGETS += $(WET_LIB)

# The builder and the queries work on decoded threads and their metadata
# (user/decode, symbolizer): linked into wpptrace with the libraries above.
WET_BUILD_SRCS := user/analysis/wet/wet_build.c user/analysis/wet/wet_node.c \
	user/analysis/wet/wet_query.c user/analysis/wet/wet_file.c user/analysis/wet/wet_dedup.c
WET_BUILD_OBJS := $(call objs,,$(WET_BUILD_SRCS))
WPPTRACE_EXTRA_OBJS += $(WET_OBJS) $(WET_BUILD_OBJS)
