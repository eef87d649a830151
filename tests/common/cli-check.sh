# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the command-line tests: check DESCRIPTION EXPECTED_STATUS
# PATTERN COMMAND... runs COMMAND and counts a failure in $failures unless
# it exits with EXPECTED_STATUS and its output matches PATTERN (grep -E).
# shellcheck shell=bash
failures=0
check() {
	local what=$1 want=$2 pattern=$3
	shift 3
	local out status
	out=$("$@" 2>&1)
	status=$?
	if [ "$status" -ne "$want" ] || ! grep -qE -- "$pattern" <<<"$out"; then
		echo "FAIL: $what: status $status (want $want), output:"
		echo "$out"
		failures=$((failures + 1))
	else
		echo "ok: $what"
	fi
}
