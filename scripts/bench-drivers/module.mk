# scripts/bench-drivers: the C drivers of the benchmark scripts, built
# optimized and without sanitizers into build/bench/.  They are not tests
# (they measure, and pass or fail nothing), but `make test` builds them so
# that they do not rot.  The generators they share with the unit tests
# (tracegen.c, wet_gen.c) stay with those tests.
BENCH_DIR := $(BUILD)/bench

# scripts/bench-sequitur: grammar construction on generated traces.
BENCH_SEQUITUR := $(BENCH_DIR)/bench_sequitur
$(BENCH_SEQUITUR): $(call objs,,scripts/bench-drivers/bench_sequitur.c \
		tests/unit/grammar/tracegen.c) $(ANALYSIS_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@ -lm -lpthread

# scripts/bench-kpaths: k-slab forests over recorded .wpp files, read with
# the decoder's loader and stream assembly.
BENCH_KPATHS := $(BENCH_DIR)/bench_kpaths
BENCH_KPATHS_SRCS := scripts/bench-drivers/bench_kpaths.c user/decode/trace_file.c \
	user/decode/batch_words.c user/decode/stream.c user/decode/trace_words.c \
	$(KSLAB_SRCS) $(WPPREAD_SRCS)
$(BENCH_KPATHS): $(call objs,,$(BENCH_KPATHS_SRCS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(sort $^) -o $@ $(CODEC_LIBS)

# scripts/bench-wet: tier-2 label streams against the raw values.
BENCH_WET := $(BENCH_DIR)/bench_wet
$(BENCH_WET): $(call objs,,scripts/bench-drivers/bench_wet.c $(WET_TEST_HELPERS)) $(WET_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@ $(CODEC_LIBS)

# scripts/bench-keepup: the batch coders compared on recorded batches.
BENCH_CODEC := $(BENCH_DIR)/bench_codec
$(BENCH_CODEC): $(call objs,,scripts/bench-drivers/bench_codec.c $(WPPREAD_SRCS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@ $(CODEC_LIBS)

TEST_TARGETS += $(BENCH_SEQUITUR) $(BENCH_KPATHS) $(BENCH_WET) $(BENCH_CODEC)

# scripts/bench-drivers/bench_pack: what packing loop iterations at the
# probe would save the collector (docs/benchmarks.md, "Packing loop
# iterations at the probe"): raw recordings decoded with their metadata,
# rewritten as packed streams, coded as the collector codes them.
BENCH_PACK := $(BENCH_DIR)/bench_pack
BENCH_PACK_SRCS := scripts/bench-drivers/bench_pack.c $(DECODE_SRCS) $(SESSION_SRCS) \
	$(SYMBOLIZER_SRCS) $(COMMON_SRCS) $(CODEC_SRCS)
$(BENCH_PACK): $(call objs,,$(BENCH_PACK_SRCS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(sort $^) -o $@ $(SYMBOLIZER_LIBS) $(CODEC_LIBS)

TEST_TARGETS += $(BENCH_PACK)
