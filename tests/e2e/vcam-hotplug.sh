#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two virtual cameras at once, told apart by serial; one is unplugged
# (SIGUSR1) and plugged back in (SIGUSR2) like a cable, and streams again.
# Usage (in the guest): vcam-hotplug.sh BUILD_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

load_modules vhci-hcd uvcvideo
vcam_start PLUG-A --profile default
vcam_start PLUG-B --profile bulk
A=$(video_node PLUG-A)
B=$(video_node PLUG-B)

step "two cameras, two nodes"
echo "PLUG-A is $A, PLUG-B is $B"
[ "$A" != "$B" ] || fail "both cameras on one node"
capture_mmap "$B" YUYV 640x480 10 "$WORK/b.raw"
framecheck "$WORK/b.raw" YUYV 640x480 --min-frames 10

step "unplug PLUG-A (SIGUSR1)"
kill -USR1 "${VCAM_PIDS[0]}"
for ((i = 0; i < 100; i++)); do
	[ -e "$A" ] || break
	sleep 0.1
done
[ ! -e "$A" ] || fail "$A still there after unplug"
grep -q "unplugged" "$WORK/vcam-PLUG-A.log" || fail "camera did not log the unplug"
echo "$A is gone; PLUG-B still at $(video_node PLUG-B 1)"

step "plug PLUG-A back in (SIGUSR2) and stream"
kill -USR2 "${VCAM_PIDS[0]}"
A2=$(video_node PLUG-A)
echo "PLUG-A is back as $A2"
capture_mmap "$A2" YUYV 640x480 10 "$WORK/a.raw"
framecheck "$WORK/a.raw" YUYV 640x480 --min-frames 10
[ "$(grep -c 'attached to vhci-hcd' "$WORK/vcam-PLUG-A.log")" -eq 2 ] || fail "expected two attaches"
echo
echo "vcam hotplug: $STEPS steps passed"
