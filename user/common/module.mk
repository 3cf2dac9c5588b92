# user/common: small shared pieces (crc32c, logging, .wpp file I/O, CPU clock,
# option tables and errors).
# crc32c alone: the analysis libraries' chunks check their sums with it.
CRC32C_SRCS := user/common/crc32c.c
# The reader half of the .wpp file I/O (the writer is the recorder's) and
# the file opening rules both halves share (in_file.h, out_file.h).
READ_SRCS := $(CRC32C_SRCS) user/common/log.c user/common/wppfile_read.c \
	user/common/in_file.c user/common/out_file.c
COMMON_SRCS := $(READ_SRCS) user/common/wppfile_write.c user/common/cpu_clock.c \
	user/common/opt_error.c user/common/json_out.c user/common/options.c
COMMON_OBJS := $(call objs,,$(COMMON_SRCS))
COMMON_SAN_OBJS := $(call objs,san,$(COMMON_SRCS))
# BATCH_Z chunks: the word codec (libzstd, liblz4) and the chunk's
# pack/unpack.  Kept out of COMMON_SRCS so that binaries that never see a
# batch do not link them; the reader half (WPPREAD_SRCS) and bin/wpptrace take it.
CODEC_SRCS := user/common/word_codec.c user/common/word_lz.c user/common/wppfile_batch.c user/common/path_records.c
CODEC_OBJS := $(call objs,,$(CODEC_SRCS))
CODEC_SAN_OBJS := $(call objs,san,$(CODEC_SRCS))
CODEC_LIBS := -lzstd -llz4
# The writing half (the recorder's groups of batches) needs the writer.
CODEC_WRITE_SRCS := user/common/wppfile_batch_group.c
WPPTRACE_EXTRA_OBJS += $(CODEC_OBJS) $(call objs,,$(CODEC_WRITE_SRCS))
WPPTRACE_EXTRA_LIBS += $(CODEC_LIBS)
# What every binary that reads recordings links, with the decoder.
WPPREAD_SRCS := $(READ_SRCS) $(CODEC_SRCS)
WPPREAD_OBJS := $(call objs,,$(WPPREAD_SRCS))
WPPREAD_SAN_OBJS := $(call objs,san,$(WPPREAD_SRCS))
