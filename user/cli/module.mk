# user/cli: bin/wpptrace, the command dispatcher and the report commands.

CLI_SRCS := user/cli/main.c user/cli/session.c user/cli/json_out.c user/cli/cmd_script.c \
	user/cli/cmd_paths.c
# `record` lives in user/record (RECORD_OBJS) on top of the shm collector
# (KMODFREE_COLLECTOR_OBJS).  Until that room's fragment defines them, a
# placeholder command says plainly that record is not built.
ifeq ($(strip $(RECORD_OBJS)),)
CLI_SRCS += user/cli/record_unavailable.c
endif
CLI_OBJS := $(call objs,,$(CLI_SRCS))
$(CLI_OBJS): CPPFLAGS += $(DECODE_SIDE_CPPFLAGS)

# Every user/common source that exists (the writer may not yet).
CLI_COMMON_OBJS := $(call objs,,$(wildcard $(COMMON_SRCS)))
WPPTRACE_OBJS := $(CLI_OBJS) $(DECODE_OBJS) $(SYMBOLIZER_OBJS) $(RECORD_OBJS) \
	$(KMODFREE_COLLECTOR_OBJS) $(CLI_COMMON_OBJS)

$(BIN)/wpptrace: $(sort $(WPPTRACE_OBJS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(SYMBOLIZER_LIBS) $(RECORD_LIBS) -lpthread

ALL_TARGETS += $(BIN)/wpptrace
