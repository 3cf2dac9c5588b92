# tests/fuzz: libFuzzer targets (clang -fsanitize=fuzzer with ASan/UBSan).
# `make test` runs each for a short fixed time from its seed corpus
# (tests/fuzz/corpus/<target>/); a longer run is the same script with
# FUZZ_SECONDS set, e.g. FUZZ_SECONDS=600 tests/fuzz/fuzz-shm-region.sh.
FUZZ_DIR := $(BUILD)/tests/fuzz
FUZZ_FLAGS := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all

# The shm collector's view of a region hostile producers write, built
# from the transport's sources (collector and producer) in one go.
$(FUZZ_DIR)/fuzz_shm_region: tests/fuzz/fuzz_shm_region.c $(KMODFREE_SRCS) $(wildcard kmod-free/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -O1 $(FUZZ_FLAGS) -o $@ \
		tests/fuzz/fuzz_shm_region.c $(KMODFREE_SRCS)

TEST_TARGETS += $(FUZZ_DIR)/fuzz_shm_region
TESTS += tests/fuzz/fuzz-shm-region.sh

# Tier-2 WET streams from hostile bytes: parse, check, read, round trip.
FUZZ_WET_SRCS := user/analysis/wet/wet_bits.c user/analysis/wet/wet_segment.c \
	user/analysis/wet/wet_stream.c user/analysis/wet/wet_stream_serial.c user/common/crc32c.c
$(FUZZ_DIR)/fuzz_wet_stream: tests/fuzz/fuzz_wet_stream.c $(FUZZ_WET_SRCS) \
		$(wildcard user/analysis/wet/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -O1 $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_wet_stream.c \
		$(FUZZ_WET_SRCS)

TEST_TARGETS += $(FUZZ_DIR)/fuzz_wet_stream
TESTS += tests/fuzz/fuzz-wet-stream.sh
