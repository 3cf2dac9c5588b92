# tests/unit/symbolizer: the path metadata's inlined_from agrees with the
# inlined instances libdw finds in DWARF (inline-agree.sh builds programs
# with inlined calls with bin/wppcc and runs inline_agree on them).
SYMB_TEST_DIR := $(BUILD)/tests/unit/symbolizer

$(SYMB_TEST_DIR)/inline_agree: $(call objs,san,tests/unit/symbolizer/inline_agree.c) \
		$(SYMBOLIZER_SAN_OBJS) $(COMMON_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(SYMBOLIZER_LIBS) -lpthread

TEST_TARGETS += $(SYMB_TEST_DIR)/inline_agree
TESTS += tests/unit/symbolizer/inline-agree.sh
