# kmod-free: the shared-memory transport (no BPF, no privilege).
#  KMODFREE_PRODUCER_SRCS   linked into libwpprt (position independent, never sanitized)
#  KMODFREE_COLLECTOR_OBJS  linked into bin/wpptrace (the drain side)
KMODFREE_SHARED_SRCS := kmod-free/shm_layout.c kmod-free/shm_entries.c
KMODFREE_PRODUCER_SRCS := kmod-free/shm_producer.c $(KMODFREE_SHARED_SRCS)
KMODFREE_COLLECTOR_SRCS := kmod-free/shm_collector.c $(KMODFREE_SHARED_SRCS)
KMODFREE_SRCS := $(sort $(KMODFREE_PRODUCER_SRCS) $(KMODFREE_COLLECTOR_SRCS))
KMODFREE_OBJS := $(call objs,,$(KMODFREE_SRCS))
KMODFREE_COLLECTOR_OBJS := $(call objs,,$(KMODFREE_COLLECTOR_SRCS))
KMODFREE_SAN_OBJS := $(call objs,san,$(KMODFREE_SRCS))
