#!/usr/bin/env bash
# uvcuse's command line on a machine without a camera or CUSE (suite unit):
# help, version, usage errors (status 2), and --list with nothing plugged in.
set -u
uvcuse=${1:?usage: daemon-cli.sh UVCUSE}
# shellcheck source-path=SCRIPTDIR source=../common/cli-check.sh
. "$(dirname "$0")/../common/cli-check.sh"
check "--help" 0 "^Usage: uvcuse" "$uvcuse" --help
check "--version" 0 "^uvcuse [0-9]+\.[0-9]+" "$uvcuse" --version
check "bad option" 2 "Usage:" "$uvcuse" --bogus
check "stray argument" 2 "unexpected argument 'extra'" "$uvcuse" extra
check "bad --device" 2 "VID:PID in hex" "$uvcuse" --device 12345
check "bad --device hex" 2 "VID:PID in hex" "$uvcuse" --device 12zz:0001
check "bad --name" 2 "wants videoN" "$uvcuse" --name camera
check "bad --name number" 2 "wants videoN" "$uvcuse" --name video1x
check "bad --log-level" 2 "unknown log level" "$uvcuse" --log-level loud
check "--help: remembered controls" 0 "--reset-controls" "$uvcuse" --help
check "empty --state-dir" 2 "--state-dir wants a directory" "$uvcuse" --state-dir ""
check "--state-dir without DIR" 2 "Usage:" "$uvcuse" --state-dir
check "--no-restore-controls takes no value" 2 "Usage:" "$uvcuse" --no-restore-controls=yes
check "--reset-controls and a stray argument" 2 "unexpected argument 'x'" "$uvcuse" --reset-controls x
check "--help: conversion" 0 "--no-convert" "$uvcuse" --help
check "--convert takes no value" 2 "Usage:" "$uvcuse" --convert=yes
[ "$failures" -eq 0 ] || { echo "$failures failed"; exit 1; }
