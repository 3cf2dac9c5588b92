# user/bpfcollect: the BPF transport's collector library (libbpf loader,
# USDT attacher, ring drainer, stream demux).  Linked into wpptrace by
# user/record or user/cli with $(BPFCOLLECT_LIB) $(BPFCOLLECT_LDLIBS).
# rt_count_pages.c: live count snapshots skip the pages of a process's
# counter arrays that were never written, as the runtime's drain does.
BPFCOLLECT_SRCS := $(wildcard user/bpfcollect/*.c) user/runtime/rt_count_pages.c
BPFCOLLECT_OBJS := $(call objs,,$(BPFCOLLECT_SRCS))
BPFCOLLECT_SAN_OBJS := $(call objs,san,$(BPFCOLLECT_SRCS))
BPFCOLLECT_LIB := $(BUILD)/bpfcollect/libbpfcollect.a
BPFCOLLECT_SAN_LIB := $(BUILD)/san/bpfcollect/libbpfcollect.a
BPFCOLLECT_LDLIBS := -lbpf -lelf -lz -lpthread
BPFCOLLECT_CPPFLAGS := -I$(BPF_BUILD)

$(BPFCOLLECT_OBJS) $(BPFCOLLECT_SAN_OBJS): CPPFLAGS += $(BPFCOLLECT_CPPFLAGS)
# The skeleton embeds the BPF object: sources must see the current one.
$(BPFCOLLECT_OBJS) $(BPFCOLLECT_SAN_OBJS): $(BPF_SKELS)

$(BPFCOLLECT_LIB): $(BPFCOLLECT_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BPFCOLLECT_SAN_LIB): $(BPFCOLLECT_SAN_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

ALL_TARGETS += $(BPFCOLLECT_LIB)
