# user/decode: .wpp loading, module maps, stream assembly, word decoding,
# path regeneration.  Included from user/cli/module.mk.
DECODE_SRCS := user/decode/trace_file.c user/decode/batch_words.c user/decode/stream.c \
	user/decode/module_map.c user/decode/path_regen.c user/decode/decoder.c \
	user/decode/trace_words.c user/decode/wet_values.c
DECODE_OBJS := $(call objs,,$(DECODE_SRCS))
DECODE_SAN_OBJS := $(call objs,san,$(DECODE_SRCS))
$(DECODE_OBJS) $(DECODE_SAN_OBJS): CPPFLAGS += $(DECODE_SIDE_CPPFLAGS)
# The reader half of user/common (the writer is the recorder's) and the file
# opening rules both halves share (in_file.h, out_file.h); linked by
# whatever sources of user/common exist so a missing writer does not block us.
WPPREAD_SRCS := user/common/crc32c.c user/common/log.c user/common/wppfile_read.c \
	user/common/in_file.c user/common/out_file.c $(CODEC_SRCS)
WPPREAD_OBJS := $(call objs,,$(WPPREAD_SRCS))
WPPREAD_SAN_OBJS := $(call objs,san,$(WPPREAD_SRCS))
# Loading decodes BATCH_Z chunks (libzstd).  Every binary that links the
# decoder links the symbolizer's libraries too, so the codec's ride along.
SYMBOLIZER_LIBS += $(CODEC_LIBS)
