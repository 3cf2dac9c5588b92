# user/instrument: the wppcc driver and the LLVM pass plugin.
LLVM_INCDIR := $(shell $(LLVM_CONFIG) --includedir)
# LLVM headers as system headers: our warnings apply to our code only.
LLVM_CXXFLAGS := $(patsubst -I%,-isystem %,$(shell $(LLVM_CONFIG) --cxxflags))
LLVM_LDFLAGS := $(shell $(LLVM_CONFIG) --ldflags)
LLVM_LIBNAME := LLVM-$(shell $(LLVM_CONFIG) --version | cut -d. -f1)

# What wppcc itself reads (profiles, interesting sets) with the pass's DAG.
INSTR_READ_SRCS := user/instrument/dag.c user/instrument/edge_profile_read.c \
	user/instrument/text_lines.c user/instrument/interesting_read.c \
	user/instrument/profile_program.c
# LLVM-independent graph algorithms (also linked into the unit tests).
INSTR_GRAPH_SRCS := $(INSTR_READ_SRCS) user/instrument/dag_walk.c user/instrument/numbering.c \
	user/instrument/placement.c user/instrument/weights.c user/instrument/meta_blob.c \
	user/instrument/loops.c user/instrument/runs.c user/instrument/ppp.c user/instrument/ppp_compact.c user/instrument/ppp_plan.c \
	user/instrument/ppp_cost.c
INSTR_GRAPH_SRCS += user/instrument/tpp_regions.c user/instrument/tpp_plan.c \
	user/instrument/tpp_profile.c user/instrument/tpp_meta.c user/instrument/tpp_accum.c
# LLVM-C side of the pass.
INSTR_IR_SRCS := user/instrument/ir_split.c user/instrument/ir_calls.c \
	user/instrument/ir_wet.c user/instrument/ir_wet_emit.c user/instrument/ir_wet_meta.c \
	user/instrument/ir_cfg.c user/instrument/ir_branch_weights.c user/instrument/ir_probes.c user/instrument/ir_counts.c user/instrument/ir_meta.c \
	user/instrument/ir_function.c user/instrument/ir_module.c user/instrument/ir_attrs.c \
	user/instrument/runs_debug.c user/instrument/ir_stats.c user/instrument/ir_tpp.c \
	user/instrument/ir_dual_tags.c
INSTR_PIC_OBJS := $(patsubst %.c,$(BUILD)/pic/%.o,$(INSTR_GRAPH_SRCS) $(INSTR_IR_SRCS))
INSTR_SHIM_OBJ := $(BUILD)/pic/user/instrument/plugin_shim.o \
	$(BUILD)/pic/user/instrument/runs_debug_kind.o $(BUILD)/pic/user/instrument/ir_dual.o

$(BUILD)/pic/user/instrument/%.o: user/instrument/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -I$(LLVM_INCDIR) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

$(BUILD)/pic/user/instrument/%.o: user/instrument/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(LLVM_CXXFLAGS) -Iuser/include $(INCLUDE_ROOT) -fPIC -Wall -Wextra -Werror -MMD -MP -c $< -o $@

$(LIBDIR)/wpp-pass.so: $(INSTR_PIC_OBJS) $(INSTR_SHIM_OBJ)
	@mkdir -p $(dir $@)
	$(CXX) -shared -o $@ $^ $(LLVM_LDFLAGS) -l$(LLVM_LIBNAME) -lm

WPPCC_SRCS := user/instrument/wppcc/wppcc_main.c user/instrument/wppcc/wppcc_args.c \
	user/instrument/wppcc/wppcc_profile.c user/instrument/wppcc/wppcc_convert.c \
	user/instrument/wppcc/wppcc_interesting.c user/instrument/wppcc/wppcc_listed.c \
	user/instrument/wppcc/wppcc_help.c $(INSTR_READ_SRCS)

$(BIN)/wppcc: $(call objs,,$(WPPCC_SRCS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^

ALL_TARGETS += $(BIN)/wppcc $(LIBDIR)/wpp-pass.so
