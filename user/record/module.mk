# user/record: `wpptrace record` (cmd_record), linked into bin/wpptrace by
# user/cli/module.mk through RECORD_OBJS and RECORD_LIBS: the shm collector
# (KMODFREE_COLLECTOR_OBJS) and the BPF collector (user/bpfcollect).
# Included twice (user/runtime/module.mk, then the top-level fragment list);
# only the second time, after user/bpfcollect/module.mk, is complete, and
# every assignment here is a plain overwrite so that one wins.
RECORD_OWN_SRCS := user/record/record.c user/record/record_opts.c user/record/record_sink.c \
	user/record/record_child.c user/record/record_info.c user/record/record_bpf.c \
	user/record/record_bpf_sink.c user/record/cmd_info.c
RECORD_OWN_OBJS := $(call objs,,$(RECORD_OWN_SRCS))
RECORD_OBJS := $(RECORD_OWN_OBJS) $(BPFCOLLECT_OBJS)
RECORD_SAN_OBJS := $(call objs,san,$(RECORD_OWN_SRCS)) $(BPFCOLLECT_SAN_OBJS)
RECORD_LIBS := $(BPFCOLLECT_LDLIBS)
$(RECORD_OWN_OBJS) $(call objs,san,$(RECORD_OWN_SRCS)): CPPFLAGS += -Iuser/common -Ikmod-free \
	$(BPFCOLLECT_CPPFLAGS)
