# wpptrace — top-level build.  `make` builds everything, `make test` runs
# every test (unit, end-to-end, oracles).  Each room contributes a module.mk
# fragment; this file only holds what they share.

WPP_CLANG   ?= clang-19
WPP_CLANGXX ?= clang++-19
LLVM_CONFIG ?= llvm-config-19
CC          := $(WPP_CLANG)
CXX         := $(WPP_CLANGXX)

BUILD := build
BIN   := bin
LIBDIR := lib/wpptrace

WARN     := -Wall -Wextra -Werror
# One include root for the project's headers, named with their folder
# ("decode/trace_file.h"; scripts/include-paths, docs/design.md "Rooms and
# their order"): -iquote, so that a folder of ours can never shadow a system
# header such as <bpf/libbpf.h>.  The public headers keep -Iuser/include
# ("wpp/trace_abi.h"), as an installed copy would be found.
INCLUDE_ROOT := -iquote user -iquote .
CPPFLAGS := -Iuser/include $(INCLUDE_ROOT) -D_GNU_SOURCE
CFLAGS   := -std=gnu11 -O2 -g $(WARN) -fno-omit-frame-pointer
# Tests and test builds of the tools run under ASan+UBSan where they fit.
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all

ALL_TARGETS  :=
TEST_TARGETS :=
TESTS        :=
CLEAN_DIRS   := $(BUILD) $(BIN) lib

.PHONY: all test run-tests clean format check-format check-layers example
all:

# $(call objs,DIR,SRCS): object paths under build/ for sources
objs = $(patsubst %.c,$(BUILD)/$(if $(1),$(1)/)%.o,$(2))

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SANFLAGS) -MMD -MP -c $< -o $@

# Order matters: a fragment's rules may name variables (object lists) that
# earlier fragments define; the CLI links everything, so it comes last.
FRAGMENTS := user/common/module.mk user/instrument/module.mk kmod-free/module.mk \
	user/runtime/module.mk bpf/module.mk user/bpfcollect/module.mk symbolizer/module.mk \
	user/costs/module.mk user/report/module.mk user/decode/module.mk user/analysis/grammar/module.mk \
	user/analysis/kpaths/module.mk user/analysis/wet/module.mk user/collect/module.mk \
	user/record/module.mk \
	user/cli/module.mk tests/module.mk scripts/bench-drivers/module.mk
include $(wildcard $(FRAGMENTS))

all: $(ALL_TARGETS)

# `make test` works on a fresh machine: dependencies first (a no-op when
# present), then a fresh make so fragments see the installed toolchain.
test:
	@scripts/install-deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory run-tests

run-tests: all $(TEST_TARGETS)
	@scripts/run-tests $(TESTS)

example: all
	scripts/example

# The tool's own sources.  Traced test programs (tests/, docs/example/) are
# left as written: their line numbers are in expected outputs, and some are
# macro-built shapes clang-format does not lay out stably.
FORMAT_SRCS = $$(git ls-files '*.c' '*.h' | grep -v -E '^(tests|docs)/')

format:
	clang-format-19 -i $(FORMAT_SRCS)

# No room includes a room of a higher layer (docs/design.md, "Rooms and
# their order"); `make test` runs it first, with the layer check's own test.
check-layers:
	@scripts/check-layers
TESTS += scripts/check-layers tests/unit/layers/check-layers.sh

check-format:
	clang-format-19 --dry-run --Werror $(FORMAT_SRCS)

clean:
	rm -rf $(CLEAN_DIRS)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
