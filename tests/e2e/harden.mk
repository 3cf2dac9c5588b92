# tests/e2e/harden.mk — the runtime and the shm transport against a hostile
# local user (issue 24, docs/security.md).  Need root; SKIP without it.
TESTS += tests/e2e/harden-setuid.sh \
	tests/e2e/harden-shm-kill.sh \
	tests/e2e/harden-forged.sh \
	tests/e2e/harden-squat.sh \
	tests/e2e/harden-corrupt.sh
