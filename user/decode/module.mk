# user/decode: .wpp loading, module maps, stream assembly, word decoding,
# path regeneration.  Included from user/cli/module.mk.
DECODE_SRCS := user/decode/trace_file.c user/decode/batch_words.c user/decode/stream.c \
	user/decode/module_map.c user/decode/path_regen.c user/decode/decoder.c \
	user/decode/trace_words.c user/decode/wet_values.c
# What a command does first with a recording (session.h): load it, say how
# intact it is, resolve its modules; the commands of user/cli, user/record
# and the report page link it.
SESSION_SRCS := user/decode/session.c
WPPTRACE_EXTRA_OBJS += $(call objs,,$(SESSION_SRCS))
DECODE_OBJS := $(call objs,,$(DECODE_SRCS))
DECODE_SAN_OBJS := $(call objs,san,$(DECODE_SRCS))
# Loading decodes BATCH_Z chunks (libzstd).  Every binary that links the
# decoder links the symbolizer's libraries too, so the codec's ride along.
SYMBOLIZER_LIBS += $(CODEC_LIBS)
