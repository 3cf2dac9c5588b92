#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fuzz-wet-stream — tier-2 WET streams from hostile bytes
# (fuzz_wet_stream.c), for FUZZ_SECONDS (default 20); see run-fuzzer.
exec "$(dirname "$0")/run-fuzzer" wet_stream
