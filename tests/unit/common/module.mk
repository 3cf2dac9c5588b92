# Unit tests of user/common.
COMMON_TEST_BIN := $(BUILD)/tests/unit/common/test_crc32c
$(COMMON_TEST_BIN): $(call objs,san,tests/unit/common/test_crc32c.c user/common/crc32c.c)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CMOCKA_LIBS) -lpthread
TEST_TARGETS += $(COMMON_TEST_BIN)
TESTS += $(COMMON_TEST_BIN)

# The one way our arrays grow (array_grow.h), under ASan/UBSan.
ARRAY_GROW_TEST_BIN := $(BUILD)/tests/unit/common/test_array_grow
$(ARRAY_GROW_TEST_BIN): $(call objs,san,tests/unit/common/test_array_grow.c)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CMOCKA_LIBS)
TEST_TARGETS += $(ARRAY_GROW_TEST_BIN)
TESTS += $(ARRAY_GROW_TEST_BIN)

# The file rules (out_file, in_file, the reader's shrink check); read() is
# wrapped to shrink a file under the reader.
FILES_TEST_BIN := $(BUILD)/tests/unit/common/test_files
$(FILES_TEST_BIN): $(call objs,san,tests/unit/common/test_files.c) $(COMMON_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -Wl,--wrap=read -o $@ $^ $(CMOCKA_LIBS) -lpthread
TEST_TARGETS += $(FILES_TEST_BIN)
TESTS += $(FILES_TEST_BIN)

# The option tables' parser and help (options.h), under ASan/UBSan.
OPTIONS_TEST_BIN := $(BUILD)/tests/unit/common/test_options
$(OPTIONS_TEST_BIN): $(call objs,san,tests/unit/common/test_options.c user/common/options.c \
		user/common/opt_error.c user/common/log.c)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CMOCKA_LIBS)
TEST_TARGETS += $(OPTIONS_TEST_BIN)
TESTS += $(OPTIONS_TEST_BIN)

# The batch word codec and BATCH_Z heads, under ASan/UBSan.
CODEC_TEST_BIN := $(BUILD)/tests/unit/common/test_word_codec
$(CODEC_TEST_BIN): $(call objs,san,tests/unit/common/test_word_codec.c user/common/crc32c.c \
		user/common/log.c user/common/wppfile_read.c user/common/wppfile_write.c \
		user/common/in_file.c user/common/out_file.c \
		$(CODEC_WRITE_SRCS)) $(CODEC_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CODEC_LIBS) $(CMOCKA_LIBS)
TEST_TARGETS += $(CODEC_TEST_BIN)
TESTS += $(CODEC_TEST_BIN)

# The word codec's match stage (codecs 4-6), under ASan/UBSan.
WORD_LZ_TEST_BIN := $(BUILD)/tests/unit/common/test_word_lz
$(WORD_LZ_TEST_BIN): $(call objs,san,tests/unit/common/test_word_lz.c \
		user/common/word_codec.c user/common/word_lz.c user/common/path_records.c)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CODEC_LIBS) $(CMOCKA_LIBS)
TEST_TARGETS += $(WORD_LZ_TEST_BIN)
TESTS += $(WORD_LZ_TEST_BIN)

# The JSON writer (json_out.h), under ASan/UBSan.
JSON_OUT_TEST_BIN := $(BUILD)/tests/unit/common/test_json_out
$(JSON_OUT_TEST_BIN): $(call objs,san,tests/unit/common/test_json_out.c user/common/json_out.c)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CMOCKA_LIBS)
TEST_TARGETS += $(JSON_OUT_TEST_BIN)
TESTS += $(JSON_OUT_TEST_BIN)

# Counting path records (both the vector fast path and the word-by-word
# blocks) against the rule written out, under ASan/UBSan.
PATH_RECORDS_TEST_BIN := $(BUILD)/tests/unit/common/test_path_records
$(PATH_RECORDS_TEST_BIN): $(call objs,san,tests/unit/common/test_path_records.c \
		user/common/path_records.c)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CMOCKA_LIBS)
TEST_TARGETS += $(PATH_RECORDS_TEST_BIN)
TESTS += $(PATH_RECORDS_TEST_BIN)
