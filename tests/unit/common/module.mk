# Unit tests of user/common.
COMMON_TEST_BIN := $(BUILD)/tests/unit/common/test_crc32c
$(COMMON_TEST_BIN): $(call objs,san,tests/unit/common/test_crc32c.c user/common/crc32c.c)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CMOCKA_LIBS) -lpthread
$(call objs,san,tests/unit/common/test_crc32c.c): CPPFLAGS += -Iuser/common
TEST_TARGETS += $(COMMON_TEST_BIN)
TESTS += $(COMMON_TEST_BIN)
