# user/common: small shared pieces (crc32c, logging, .wpp file I/O, CPU clock,
# option errors).
COMMON_SRCS := user/common/crc32c.c user/common/log.c user/common/wppfile_write.c \
	user/common/wppfile_read.c user/common/cpu_clock.c user/common/opt_error.c \
	user/common/out_file.c user/common/in_file.c
COMMON_OBJS := $(call objs,,$(COMMON_SRCS))
COMMON_SAN_OBJS := $(call objs,san,$(COMMON_SRCS))
