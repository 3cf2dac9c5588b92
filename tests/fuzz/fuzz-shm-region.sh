#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fuzz-shm-region — the shm collector's view of a hostile region
# (fuzz_shm_region.c), for FUZZ_SECONDS (default 20); see run-fuzzer.
exec "$(dirname "$0")/run-fuzzer" shm_region
