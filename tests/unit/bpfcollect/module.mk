# tests/unit/bpfcollect: the BPF transport with real BPF (needs root).  The
# producer fires the wpptrace USDT probes from its own sites (usdt_emit.h,
# on the shared note layout of wpp/usdt.h), so these tests do not depend on
# libwpprt.
BPFTEST_DIR := $(BUILD)/tests/unit/bpfcollect
BPFTEST_PRODUCER := $(BPFTEST_DIR)/usdt_producer
BPFTEST_BIN := $(BPFTEST_DIR)/test_bpf_transport

$(BPFTEST_PRODUCER): tests/unit/bpfcollect/usdt_producer.c tests/unit/bpfcollect/usdt_emit.h user/include/wpp/usdt.h \
		user/include/wpp/trace_abi.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -lpthread

$(BPFTEST_BIN): tests/unit/bpfcollect/test_bpf_transport.c $(BPFCOLLECT_SAN_LIB) \
		$(call objs,san,user/common/log.c) | $(BPFTEST_PRODUCER)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(BPFCOLLECT_CPPFLAGS) $(CFLAGS) $(SANFLAGS) \
		-DPRODUCER_PATH='"$(abspath $(BPFTEST_PRODUCER))"' -o $@ $< \
		$(BPFCOLLECT_SAN_LIB) $(call objs,san,user/common/log.c) $(BPFCOLLECT_LDLIBS) $(CMOCKA_LIBS)

TEST_TARGETS += $(BPFTEST_PRODUCER) $(BPFTEST_BIN)
TESTS += $(BPFTEST_BIN)

# The live-count reader (user/bpfcollect/count_snapshot.c) on blocks laid
# out in the test's own memory (no root, no BPF).
COUNTSNAP_BIN := $(BPFTEST_DIR)/test_count_snapshot
$(COUNTSNAP_BIN): tests/unit/bpfcollect/test_count_snapshot.c \
		$(call objs,san,user/bpfcollect/count_snapshot.c user/runtime/rt_count_pages.c)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(BPFCOLLECT_CPPFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CMOCKA_LIBS)
TEST_TARGETS += $(COUNTSNAP_BIN)
TESTS += $(COUNTSNAP_BIN)

# registry_read (user/bpfcollect/registry.c) on a registry in the test's
# own executable, read through its /proc/PID/mem (no BPF).
REGISTRY_BIN := $(BPFTEST_DIR)/test_registry
$(REGISTRY_BIN): tests/unit/bpfcollect/test_registry.c \
		$(call objs,san,user/bpfcollect/registry.c user/bpfcollect/elfinfo.c \
		user/bpfcollect/procinfo.c)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(BPFCOLLECT_CPPFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $^ -lelf $(CMOCKA_LIBS)
TEST_TARGETS += $(REGISTRY_BIN)
TESTS += $(REGISTRY_BIN)

# uprobe_multi cookies from USDT argument strings (multi_attach.c; no root).
MULTICOOKIE_BIN := $(BPFTEST_DIR)/test_multi_cookie
$(MULTICOOKIE_BIN): tests/unit/bpfcollect/test_multi_cookie.c \
		$(call objs,san,user/bpfcollect/multi_attach.c)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(BPFCOLLECT_CPPFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $^ -lbpf $(CMOCKA_LIBS)
TEST_TARGETS += $(MULTICOOKIE_BIN)
TESTS += $(MULTICOOKIE_BIN)

# The kernel BTF walk bc_open asks about tracepoints (kernel_btf.c; no
# root): against libbpf on this machine's BTF, and on BTF built by the test.
KERNELBTF_BIN := $(BPFTEST_DIR)/test_kernel_btf
$(KERNELBTF_BIN): tests/unit/bpfcollect/test_kernel_btf.c \
		$(call objs,san,user/bpfcollect/kernel_btf.c)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(BPFCOLLECT_CPPFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $^ -lbpf $(CMOCKA_LIBS)
TEST_TARGETS += $(KERNELBTF_BIN)
TESTS += $(KERNELBTF_BIN)

# Pre-faulted heap room for libbpf's BTF load (warm_heap.c; no root).  No
# sanitizers: their allocator is not the glibc malloc under test.
WARMHEAP_BIN := $(BPFTEST_DIR)/test_warm_heap
$(WARMHEAP_BIN): tests/unit/bpfcollect/test_warm_heap.c \
		$(call objs,,user/bpfcollect/warm_heap.c)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(BPFCOLLECT_CPPFLAGS) $(CFLAGS) -o $@ $^ -lbpf $(CMOCKA_LIBS)
TEST_TARGETS += $(WARMHEAP_BIN)
TESTS += $(WARMHEAP_BIN)

# Descriptors closed by a process that outlives the caller (close_later.c;
# on pipes, no root).
CLOSELATER_BIN := $(BPFTEST_DIR)/test_close_later
$(CLOSELATER_BIN): tests/unit/bpfcollect/test_close_later.c \
		$(call objs,san,user/bpfcollect/close_later.c)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(BPFCOLLECT_CPPFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CMOCKA_LIBS)
TEST_TARGETS += $(CLOSELATER_BIN)
TESTS += $(CLOSELATER_BIN)
