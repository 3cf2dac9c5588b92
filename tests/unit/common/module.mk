# Unit tests of user/common.
COMMON_TEST_BIN := $(BUILD)/tests/unit/common/test_crc32c
$(COMMON_TEST_BIN): $(call objs,san,tests/unit/common/test_crc32c.c user/common/crc32c.c)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CMOCKA_LIBS) -lpthread
$(call objs,san,tests/unit/common/test_crc32c.c): CPPFLAGS += -Iuser/common
TEST_TARGETS += $(COMMON_TEST_BIN)
TESTS += $(COMMON_TEST_BIN)

# The file rules (out_file, in_file, the reader's shrink check); read() is
# wrapped to shrink a file under the reader.
FILES_TEST_BIN := $(BUILD)/tests/unit/common/test_files
$(FILES_TEST_BIN): $(call objs,san,tests/unit/common/test_files.c) $(COMMON_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -Wl,--wrap=read -o $@ $^ $(CMOCKA_LIBS) -lpthread
$(call objs,san,tests/unit/common/test_files.c): CPPFLAGS += -Iuser/common
TEST_TARGETS += $(FILES_TEST_BIN)
TESTS += $(FILES_TEST_BIN)
