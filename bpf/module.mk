# bpf/: the BPF transport programs, compiled with clang -target bpf and
# turned into libbpf skeleton headers (build/bpf/<name>.skel.h) that
# user/bpfcollect/ embeds.  vmlinux.h is generated from the running kernel's
# BTF at build time and never committed.
BPFTOOL     ?= bpftool
BPF_BUILD   := $(BUILD)/bpf
BPF_VMLINUX := $(BPF_BUILD)/vmlinux.h
BPF_SRCS    := bpf/wpp_transport.bpf.c bpf/wpp_counters.bpf.c
BPF_OBJS    := $(patsubst bpf/%.bpf.c,$(BPF_BUILD)/%.bpf.o,$(BPF_SRCS))
BPF_SKELS   := $(patsubst bpf/%.bpf.c,$(BPF_BUILD)/%.skel.h,$(BPF_SRCS))
# usdt.bpf.h pulls in <linux/errno.h>, which needs the multiarch asm/ dir
# (x86-64 only, like the rest of wpptrace).
BPF_CFLAGS  := -target bpf -g -O2 -Wall -Werror -D__TARGET_ARCH_x86 \
	-I$(BPF_BUILD) $(INCLUDE_ROOT) -I/usr/include/x86_64-linux-gnu

$(BPF_VMLINUX):
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp
	mv $@.tmp $@

$(BPF_BUILD)/%.bpf.o: bpf/%.bpf.c bpf/wpp_bpf_records.h bpf/wpp_counter_records.h \
		bpf/wpp_position_records.h bpf/wpp_position.bpf.h bpf/wpp_multi_records.h \
		bpf/wpp_multi.bpf.h $(BPF_VMLINUX)
	$(CC) $(BPF_CFLAGS) -c $< -o $@

$(BPF_BUILD)/%.skel.h: $(BPF_BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $* > $@.tmp
	mv $@.tmp $@
