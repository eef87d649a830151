#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# uvcuse's command line on a machine without a camera or CUSE (suite unit):
# help, version, usage errors (status 2), and --list with nothing plugged in.
set -u
uvcuse=${1:?usage: daemon-cli.sh UVCUSE}
# shellcheck source-path=SCRIPTDIR source=../common/cli-check.sh
. "$(dirname "$0")/../common/cli-check.sh"
check "--help" 0 "^Usage: uvcuse" "$uvcuse" --help
check "--version" 0 "^uvcuse [0-9]+\.[0-9]+" "$uvcuse" --version
check "bad option" 2 "unrecognized option '--bogus'" "$uvcuse" --bogus
check "bad option: Try --help" 2 "^Try 'uvcuse --help' for more information.$" "$uvcuse" --bogus
check "bad option: two lines, no help text" 0 "^2$" sh -c "'$uvcuse' --bogus 2>&1 | wc -l"
check "stray argument" 2 "unexpected argument 'extra'" "$uvcuse" extra
check "-V" 0 "^uvcuse [0-9]+\.[0-9]+" "$uvcuse" -V
check "-h" 0 "^Usage: uvcuse" "$uvcuse" -h
check "bad --device" 2 "VID:PID in hex" "$uvcuse" --device 12345
check "bad --device hex" 2 "VID:PID in hex" "$uvcuse" --device 12zz:0001
check "bad --name" 2 "wants videoN" "$uvcuse" --name camera
check "bad --name number" 2 "wants videoN" "$uvcuse" --name video1x
check "bad --camera" 2 "wants serial-VVVV-PPPP-SERIAL" "$uvcuse" --camera 046d:0825
check "bad --camera port" 2 "wants serial-VVVV-PPPP-SERIAL" "$uvcuse" --camera port-046d-0825-x
check "--help: --camera" 0 "--camera IDENTITY" "$uvcuse" --help
check "bad --log-level" 2 "unknown log level" "$uvcuse" --log-level loud
check "--help: remembered controls" 0 "--reset-controls" "$uvcuse" --help
check "empty --state-dir" 2 "--state-dir wants a directory" "$uvcuse" --state-dir ""
check "--state-dir without DIR" 2 "requires an argument" "$uvcuse" --state-dir
check "--no-restore-controls takes no value" 2 "doesn.t allow an argument" "$uvcuse" --no-restore-controls=yes
check "--reset-controls and a stray argument" 2 "unexpected argument 'x'" "$uvcuse" --reset-controls x
check "--help: --linger" 0 "--linger S" "$uvcuse" --help
check "bad --linger" 2 "--linger wants 0 to 86400 seconds, not '5s'" "$uvcuse" --linger 5s
check "negative --linger" 2 "--linger wants 0 to 86400 seconds" "$uvcuse" --linger -1
check "--help: linger default" 0 "\(default 30\)" "$uvcuse" --help
check "--help: --exit-on-unplug" 0 "--exit-on-unplug .*uvcvideo" "$uvcuse" --help
check "--exit-on-unplug takes no value" 2 "doesn.t allow an argument" "$uvcuse" --exit-on-unplug=yes
# config files (src/service/config.c has its own unit test; here: what the daemon does)
conf=$(mktemp -d)
trap 'rm -rf "$conf"' EXIT
printf '[uvcuse]\n\nconvert = maybe\n' >"$conf/bad.conf"
check "bad config value: file:line, status 1" 1 "bad.conf:3: convert wants yes or no" \
	"$uvcuse" --config "$conf/bad.conf" --config-dir "$conf/none"
check "missing --config file" 1 "missing.conf: No such file" "$uvcuse" --config "$conf/missing.conf"
mkdir "$conf/d"
printf '[uvcuse]\nignore = no\n' >"$conf/main.conf"
printf '[uvcuse]\nignore = yes\ncolour = red\n' >"$conf/d/50-all.conf"
check "conf.d overrides, unknown key warned, ignore exits 0" 0 "50-all.conf:3: unknown key 'colour'" \
	"$uvcuse" --config "$conf/main.conf" --config-dir "$conf/d"
check "ignore: says why" 0 "the config says ignore" \
	"$uvcuse" --config "$conf/main.conf" --config-dir "$conf/d"
: >"$conf/empty.conf"
check "--user without such a user" 1 "no user 'no-such-user-uvcuse'" \
	"$uvcuse" --config "$conf/empty.conf" --user no-such-user-uvcuse
# status sockets: none served here
check "--status, no daemon: status 1" 1 "^uvcuse: no camera served$" env RUNTIME_DIRECTORY="$conf/run" "$uvcuse" --status
check "--udev-properties, no daemon" 1 "no daemon answers for video10" \
	env RUNTIME_DIRECTORY="$conf/run" "$uvcuse" --udev-properties /dev/video10
check "--help: conversion" 0 "--no-convert" "$uvcuse" --help
check "--convert takes no value" 2 "doesn't allow an argument" "$uvcuse" --convert=yes
check "--help: --errored-frames" 0 "--errored-frames deliver\|drop" "$uvcuse" --help
check "bad --errored-frames" 2 "--errored-frames wants deliver or drop, not 'keep'" "$uvcuse" --errored-frames keep
check "--help: --no-camera-clock" 0 "--no-camera-clock" "$uvcuse" --help
check "--no-camera-clock takes no value" 2 "doesn't allow an argument" "$uvcuse" --no-camera-clock=yes
check "--list with no camera: status 1" 1 "no UVC camera found|cannot use libusb" "$uvcuse" --list
[ "$failures" -eq 0 ] || { echo "$failures failed"; exit 1; }
