# tests/unit/decode: reader, metadata parser, path regeneration, stream
# assembly, decoder end to end, CLI smoke, fuzz driver smoke run.
DECODE_TEST_DIR := $(BUILD)/tests/unit/decode
DECODE_TEST_NAMES := test_reader test_meta test_meta_tpp test_regen test_stream test_decode test_words test_wet \
	test_batch_words
DECODE_TEST_BINS := $(addprefix $(DECODE_TEST_DIR)/,$(DECODE_TEST_NAMES))
DECODE_TESTLIB_SAN_OBJS := $(call objs,san,tests/unit/decode/testlib.c)
DECODE_UNDER_TEST := $(SYMBOLIZER_SAN_OBJS) $(DECODE_SAN_OBJS) $(WPPREAD_SAN_OBJS)

$(DECODE_TEST_DIR)/%: $(BUILD)/san/tests/unit/decode/%.o $(DECODE_TESTLIB_SAN_OBJS) $(DECODE_UNDER_TEST)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(SYMBOLIZER_LIBS) $(CMOCKA_LIBS) -lpthread

# libFuzzer driver over the .wpp reader/decoder and the metadata parser.
DECODE_FUZZ := $(DECODE_TEST_DIR)/fuzz_decode
DECODE_FUZZ_SRCS := tests/unit/decode/fuzz_decode.c $(DECODE_SRCS) $(SYMBOLIZER_SRCS) $(WPPREAD_SRCS)
$(DECODE_FUZZ): $(DECODE_FUZZ_SRCS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o $@ $(DECODE_FUZZ_SRCS) \
		$(SYMBOLIZER_LIBS) -lpthread

TEST_TARGETS += $(DECODE_TEST_BINS) $(DECODE_FUZZ) $(BIN)/wpptrace
TESTS += $(DECODE_TEST_BINS) tests/unit/decode/cli-smoke.sh tests/unit/decode/fuzz-smoke.sh
