#!/bin/bash
# SPDX-License-Identifier: MIT
# check_lib.sh - sourced by gpu/'s shell tests and gpu_check.sh.
# check DESCRIPTION COMMAND...: run COMMAND, print the verdict ("  ok   ..." or
# "  FAIL ...") and remember a failure in $fail (the script ends with `exit $fail`).
fail=0
check() {
	local what=$1
	shift
	if "$@"; then echo "  ok   $what"; else echo "  FAIL $what"; fail=1; fi
}
