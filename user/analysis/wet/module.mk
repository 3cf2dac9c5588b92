# user/analysis/wet: whole execution traces (issue 28, docs/wet.md).  This
# room holds the label-stream libraries: tier 2 (bidirectional predictor
# streams) and tier 1 (value groups); the builder, its chunks and the
# queries plug in here later.

WET_SRCS := user/analysis/wet/wet_bits.c user/analysis/wet/wet_segment.c \
	user/analysis/wet/wet_stream.c user/analysis/wet/wet_stream_serial.c \
	user/analysis/wet/wet_tier1.c user/analysis/wet/wet_cdg.c user/analysis/wet/wet_shadow.c \
	$(CRC32C_SRCS)
WET_OBJS := $(call objs,,$(WET_SRCS))
WET_SAN_OBJS := $(call objs,san,$(WET_SRCS))
WET_LIB := $(LIBDIR)/libwppwet.a

$(WET_LIB): $(WET_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

ALL_TARGETS += $(WET_LIB)
