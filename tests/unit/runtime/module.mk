# tests/unit/runtime: shm ring protocol (ASan/UBSan), .wpp writer round trip,
# and end-to-end runs of hand-written traced programs under `wpptrace record`.
RT_TEST_DIR := $(BUILD)/tests/unit/runtime

$(RT_TEST_DIR)/test_shm_ring: $(call objs,san,tests/unit/runtime/test_shm_ring.c) \
		$(call objs,san,$(KMODFREE_SRCS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CMOCKA_LIBS) -lpthread

$(RT_TEST_DIR)/test_wppfile_write: $(call objs,san,tests/unit/runtime/test_wppfile_write.c) \
		$(COMMON_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CMOCKA_LIBS) -lpthread

# The traced test program: plain build (never sanitized), linked to libwpprt
# like wppcc output would be.
$(RT_TEST_DIR)/rt_prog: tests/unit/runtime/rt_prog.c tests/unit/runtime/rt_emit.h \
		$(LIBDIR)/libwpprt.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -L$(LIBDIR) \
		-Wl,-rpath,$(abspath $(LIBDIR)) -lwpprt -lpthread
$(RT_TEST_DIR)/rt_prog_static: tests/unit/runtime/rt_prog.c tests/unit/runtime/rt_emit.h \
		$(LIBDIR)/libwpprt.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LIBDIR)/libwpprt.a -lpthread

$(RT_TEST_DIR)/test_record: $(call objs,san,tests/unit/runtime/test_record.c) $(COMMON_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CMOCKA_LIBS) -lpthread

# Counting mode's hash, drains and encoding (user/runtime/rt_count_table.c),
# and the pagemap-guided drain of sparse arrays (rt_count_pages.c).
$(RT_TEST_DIR)/test_count_table: $(call objs,san,tests/unit/runtime/test_count_table.c \
		user/runtime/rt_count_table.c user/runtime/rt_count_pages.c)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CMOCKA_LIBS)

# A hashed function's path cache in front of the hash (rt_count_table.h).
$(RT_TEST_DIR)/test_count_cache: $(call objs,san,tests/unit/runtime/test_count_cache.c \
		user/runtime/rt_count_table.c)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CMOCKA_LIBS) -lpthread

RT_TEST_BINS := $(RT_TEST_DIR)/test_shm_ring $(RT_TEST_DIR)/test_wppfile_write \
	$(RT_TEST_DIR)/test_record $(RT_TEST_DIR)/test_count_table $(RT_TEST_DIR)/test_count_cache
TEST_TARGETS += $(RT_TEST_BINS) $(RT_TEST_DIR)/rt_prog $(RT_TEST_DIR)/rt_prog_static \
	$(BIN)/wpptrace
TESTS += $(RT_TEST_BINS)
