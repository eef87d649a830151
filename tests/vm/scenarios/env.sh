#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Checks what the runner promises to carry into the guest.
# Usage: env.sh EXPECTED_CWD EXPECTED_UVCUSE_VM_SELFTEST ARG3 ARG4
set -u
fail=0
check() { # what expected actual
    if [ "$2" = "$3" ]; then
        echo "ok: $1"
    else
        echo "FAIL: $1: expected [$2], got [$3]"
        fail=1
    fi
}
check cwd "$1" "$(pwd -P)"
check UVCUSE_VM_SELFTEST "$2" "${UVCUSE_VM_SELFTEST-<unset>}"
check "argument with blanks" "two  words" "$3"
check "argument with quotes" "it's \"quoted\" \$HOME" "$4"
check uid 0 "$(id -u)"
check stdin /dev/null "$(readlink /proc/self/fd/0)"
check HOME "$HOME" "$(getent passwd root | cut -d: -f6)"
if [ -n "${PATH:-}" ]; then echo "ok: PATH=$PATH"; else echo "FAIL: no PATH"; fail=1; fi
echo "to stderr" >&2
exit $fail
