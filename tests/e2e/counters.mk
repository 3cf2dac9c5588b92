# tests/e2e/counters.mk — hardware/software counters end to end (perf
# events + BPF, needs root; the scripts SKIP without it).
TESTS += tests/e2e/counters-attribution.sh \
	tests/e2e/counters-sampling.sh \
	tests/e2e/counters-classes.sh \
	tests/e2e/counters-throttle.sh \
	tests/e2e/counters-select.sh
