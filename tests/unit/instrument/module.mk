# tests/unit/instrument: graph algorithms against brute force (ASan/UBSan),
# and end-to-end decoding of programs compiled with bin/wppcc against the
# test-double runtime (tests/unit/instrument/testrt.c, never shipped).
INSTR_TEST_GRAPH := $(BIN)/tests/instrument-graph
INSTR_TEST_E2E := $(BIN)/tests/instrument-e2e
INSTR_TEST_PPP := $(BIN)/tests/instrument-ppp
INSTR_TEST_PPP_RUN := $(BIN)/tests/instrument-ppp-run
INSTR_TEST_PROFILE := $(BIN)/tests/instrument-edge-profile
INSTR_TEST_TPP := $(BIN)/tests/instrument-tpp
INSTR_TEST_INTERESTING := $(BIN)/tests/instrument-interesting

# The graph-algorithm tests: one test source each, with the LLVM-independent
# sources, under ASan/UBSan.
INSTR_UNIT_TESTS := $(INSTR_TEST_GRAPH) $(INSTR_TEST_PPP) $(INSTR_TEST_PPP_RUN) $(INSTR_TEST_PROFILE) \
	$(INSTR_TEST_TPP) $(INSTR_TEST_INTERESTING)
$(INSTR_TEST_GRAPH): $(call objs,san,tests/unit/instrument/test_graph.c)
$(INSTR_TEST_PPP): $(call objs,san,tests/unit/instrument/test_ppp.c)
$(INSTR_TEST_PPP_RUN): $(call objs,san,tests/unit/instrument/test_ppp_run.c)
$(INSTR_TEST_PROFILE): $(call objs,san,tests/unit/instrument/test_edge_profile.c)
$(INSTR_TEST_TPP): $(call objs,san,tests/unit/instrument/test_tpp.c)
$(INSTR_TEST_INTERESTING): $(call objs,san,tests/unit/instrument/test_interesting.c)
$(INSTR_UNIT_TESTS): $(call objs,san,$(INSTR_GRAPH_SRCS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CMOCKA_LIBS) -lm

# Runs from the repository root; needs the driver and the plugin.
$(INSTR_TEST_E2E): $(call objs,san,tests/unit/instrument/test_e2e.c) | $(BIN)/wppcc $(LIBDIR)/wpp-pass.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CMOCKA_LIBS)

TEST_TARGETS += $(INSTR_UNIT_TESTS) $(INSTR_TEST_E2E)
# Runs (REPEAT words) through the real runtime and shm transport, against
# blocks mode, including a counting loop interrupted by a looping handler.
TESTS += $(INSTR_UNIT_TESTS) $(INSTR_TEST_E2E) tests/unit/instrument/runs_signal.sh
