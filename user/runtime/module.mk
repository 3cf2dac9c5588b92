# user/runtime: libwpprt, linked into every instrumented program.  Built
# position independent, with hidden visibility except for the ABI symbols,
# and never instrumented or sanitized: it runs inside the traced program,
# in its signal handlers and fork children.
RUNTIME_SRCS := user/runtime/rt_buffers.c user/runtime/rt_process.c \
	user/runtime/rt_transport.c user/runtime/rt_shm_client.c user/runtime/rt_registry.c \
	user/runtime/rt_lifecycle.c user/runtime/rt_signal.c user/runtime/rt_position.c user/runtime/rt_vfork.c user/runtime/rt_hello.c user/runtime/rt_clone.c \
	user/runtime/rt_count.c user/runtime/rt_count_table.c user/runtime/rt_count_pages.c user/runtime/rt_dual.c \
	$(KMODFREE_PRODUCER_SRCS)
RUNTIME_OBJS := $(call objs,rt,$(RUNTIME_SRCS))
RUNTIME_CFLAGS := -fPIC -fvisibility=hidden -ftls-model=initial-exec -fno-sanitize=all

$(BUILD)/rt/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(RUNTIME_CFLAGS) -MMD -MP -c $< -o $@

$(LIBDIR)/libwpprt.so: $(RUNTIME_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libwpprt.so -Wl,-z,defs -o $@ $^ -lpthread -ldl

$(LIBDIR)/libwpprt.a: $(RUNTIME_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

ALL_TARGETS += $(LIBDIR)/libwpprt.so $(LIBDIR)/libwpprt.a
