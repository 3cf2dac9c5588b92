# user/record: `wpptrace record` (cmd_record), linked into bin/wpptrace by
# user/cli/module.mk through RECORD_OBJS, on top of KMODFREE_COLLECTOR_OBJS.
RECORD_SRCS := user/record/record.c user/record/record_opts.c user/record/record_sink.c \
	user/record/record_child.c
RECORD_OBJS := $(call objs,,$(RECORD_SRCS))
RECORD_SAN_OBJS := $(call objs,san,$(RECORD_SRCS))
RECORD_LIBS :=
$(RECORD_OBJS) $(RECORD_SAN_OBJS): CPPFLAGS += -Iuser/common -Ikmod-free
