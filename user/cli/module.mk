# user/cli: bin/wpptrace, the command dispatcher and the commands.
# Every user/cli/cmd_*.c is a command (declared in commands.h, listed in
# main.c); libraries that commands use append their objects and link flags
# to WPPTRACE_EXTRA_OBJS / WPPTRACE_EXTRA_LIBS in their own fragment.

CLI_SRCS := user/cli/main.c user/cli/paths_table.c user/cli/wpp_thread_report.c \
	user/cli/wet_store.c user/cli/wet_obtain.c user/cli/src_lines.c \
	$(wildcard user/cli/cmd_*.c)
CLI_OBJS := $(call objs,,$(CLI_SRCS))

WPPTRACE_OBJS := $(CLI_OBJS) $(DECODE_OBJS) $(SYMBOLIZER_OBJS) $(RECORD_OBJS) \
	$(KMODFREE_COLLECTOR_OBJS) $(call objs,,$(COMMON_SRCS)) $(WPPTRACE_EXTRA_OBJS)

$(BIN)/wpptrace: $(sort $(WPPTRACE_OBJS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(SYMBOLIZER_LIBS) $(RECORD_LIBS) $(WPPTRACE_EXTRA_LIBS) -lpthread

ALL_TARGETS += $(BIN)/wpptrace
