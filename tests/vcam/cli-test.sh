#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# uvcuse-vcam's command line: help, profiles, bad options, and a clear error
# when vhci-hcd is missing (checked on a host without vhci-hcd only).
set -u
vcam=${1:?usage: cli-test.sh UVCUSE_VCAM}
# shellcheck source-path=SCRIPTDIR source=../common/cli-check.sh
. "$(dirname "$0")/../common/cli-check.sh"
check "--help" 0 "Usage: uvcuse-vcam" "$vcam" --help
check "--list-profiles names all" 0 "^usb3 " "$vcam" --list-profiles
for p in default bulk nv12 h264 usb3; do
	check "--list-profiles has $p" 0 "^$p " "$vcam" --list-profiles
done
check "--describe" 0 "^format MJPG 1920x1080 30.000$" "$vcam" --profile default --describe
check "bad option" 2 "Usage:" "$vcam" --bogus
check "unknown profile" 2 "unknown profile 'nope'" "$vcam" --profile nope
check "stray argument" 2 "unexpected argument" "$vcam" extra
check "bad --error-every" 2 "error-every" "$vcam" --error-every 0
check "bad --corrupt-jpeg-every" 2 "corrupt-jpeg-every" "$vcam" --corrupt-jpeg-every x
check "bad --ctrl-delay-ms" 2 "ctrl-delay-ms" "$vcam" --ctrl-delay-ms 0
check "--status-packet-size alone" 2 "go with --descriptors" "$vcam" --status-packet-size 16
check "bad --status-packet-size" 2 "status-packet-size" "$vcam" --status-packet-size 5000
if [ -n "${UVC_CORPUS:-}" ]; then
	# a camera from its lsusb text alone, its status endpoint repaired
	check "--descriptors TEXT" 0 "^format YUYV 640x480 30.000$" \
		"$vcam" --descriptors "$UVC_CORPUS/lsusb/0c45_62e0_usb_2_0_camera.lsusb.txt" --describe
	check "--status-packet-size logged" 0 "wMaxPacketSize 0x1000 made 16" \
		"$vcam" --descriptors "$UVC_CORPUS/lsusb/0c45_62e0_usb_2_0_camera.lsusb.txt" \
		--status-packet-size 16 --describe
fi
if [ -e /sys/devices/platform/vhci_hcd.0/attach ]; then
	echo "skip: vhci-hcd is loaded here, not testing its absence"
else
	check "missing vhci-hcd" 1 "vhci-hcd is not loaded" "$vcam"
fi
echo "$failures failed"
[ "$failures" -eq 0 ]
