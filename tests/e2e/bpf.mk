# tests/e2e/bpf.mk — the BPF transport end to end (real BPF, needs root;
# the scripts SKIP without it).  Included after tests/e2e/module.mk.
TESTS += tests/e2e/bpf-identity.sh \
	tests/e2e/bpf-overload.sh \
	tests/e2e/bpf-attach.sh \
	tests/e2e/bpf-detach.sh \
	tests/e2e/bpf-system.sh \
	tests/e2e/bpf-system-short.sh \
	tests/e2e/bpf-lifecycle.sh \
	tests/e2e/bpf-sigkill.sh \
	tests/e2e/bpf-killcount.sh \
	tests/e2e/bpf-exec-static.sh \
	tests/e2e/bpf-salvage-unreadable.sh \
	tests/e2e/bpf-thread-table.sh \
	tests/e2e/bpf-ring-size.sh \
	tests/e2e/bpf-uprobe-multi.sh \
	tests/e2e/top-trace.sh \
	tests/e2e/dual-attach.sh
