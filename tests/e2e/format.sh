#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# format — the tool's own C sources are laid out as .clang-format says
# (`make format` fixes them).  Traced test programs are exempt: see the
# Makefile's FORMAT_SRCS.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v clang-format-19 >/dev/null || { echo "FAIL: clang-format-19 is not installed"; exit 1; }
make --no-print-directory -s check-format >/dev/null 2>format.err.$$ || {
	grep -m 20 "error:" format.err.$$ | sed 's/^/  /'
	echo "FAIL: sources differ from .clang-format; run 'make format'"
	rm -f format.err.$$
	exit 1
}
rm -f format.err.$$
echo "ok: every tool source matches .clang-format"
