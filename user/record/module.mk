# user/record: `wpptrace record` (cmd_record), linked into bin/wpptrace by
# user/cli/module.mk through RECORD_OBJS and RECORD_LIBS: the shm collector
# (KMODFREE_COLLECTOR_OBJS) and the BPF collector (user/bpfcollect).
# Online analyses (user/collect, user/analysis) run inside the sink.
RECORD_OWN_SRCS := user/record/record.c user/record/record_opts.c user/record/record_sink.c \
	user/record/record_child.c user/record/record_info.c user/record/record_bpf.c \
	user/record/record_bpf_sink.c user/record/cmd_info.c user/record/record_sink_core.c \
	user/record/record_online.c user/record/record_counters.c \
	user/record/record_ready.c user/record/record_attach.c user/record/record_live_counts.c \
	user/record/record_idle.c user/record/summary_text.c \
	user/runtime/rt_count_table.c
# `wpptrace top`: counting builds from memory, tracing builds over BPF.
TOP_SRCS := user/record/cmd_top.c user/record/top_count.c user/record/top_trace.c \
	user/record/top_rows.c user/record/top_tu.c
RECORD_OWN_SRCS += $(TOP_SRCS)
RECORD_OWN_OBJS := $(call objs,,$(RECORD_OWN_SRCS))
RECORD_OBJS := $(RECORD_OWN_OBJS) $(BPFCOLLECT_OBJS)
RECORD_SAN_OBJS := $(call objs,san,$(RECORD_OWN_SRCS)) $(BPFCOLLECT_SAN_OBJS)
RECORD_LIBS := $(BPFCOLLECT_LDLIBS)
$(RECORD_OWN_OBJS) $(call objs,san,$(RECORD_OWN_SRCS)): CPPFLAGS += $(BPFCOLLECT_CPPFLAGS)
