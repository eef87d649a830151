#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fault injection seen through the kernel's driver: frames the camera marks
# with the payload ERR bit are the ones uvcvideo refuses, and only those.
# Usage (in the guest): vcam-faults.sh BUILD_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

load_modules vhci-hcd uvcvideo
vcam_start FAULT --profile default --error-every 4
NODE=$(video_node FAULT)

step "capture with ERR in every 4th frame"
capture_mmap "$NODE" YUYV 640x480 24 "$WORK/err.raw"
framecheck "$WORK/err.raw" YUYV 640x480 --min-frames 24 --verbose | tee "$WORK/check.txt"
# uvcvideo drops a buffer whose payload had ERR (or hands it out flagged
# V4L2_BUF_FLAG_ERROR, which v4l2-ctl does not write): no ERR frame arrives.
bad=$(awk '/^frame [0-9]+: seq=/ { split($3, a, "="); if (a[2] % 4 == 3) print a[2] }' "$WORK/check.txt")
[ -z "$bad" ] || fail "frames with ERR reached the application: $bad"
# ...and every other frame does: the gaps are exactly the ERR frames.
first=$(awk -F': ' '/^first sequence/ { print $2 }' "$WORK/check.txt")
last=$(awk -F': ' '/^last sequence/ { print $2 }' "$WORK/check.txt")
missing=$(awk -F': ' '/^frames missing/ { print $2 }' "$WORK/check.txt")
expected=$(awk -v a="$first" -v b="$last" 'BEGIN { n = 0; for (k = a; k <= b; k++) if (k % 4 == 3) n++; print n }')
# (plus any the camera itself dropped because the emulated host fell behind)
sleep 0.5
dropped=$(sed -nE 's/.*stream stopped.* ([0-9]+) dropped.*/\1/p' "$WORK/vcam-FAULT.log" | tail -n 1)
echo "sequences $first..$last: $missing skipped, $expected carried ERR, ${dropped:-0} dropped by the camera"
if [ "$missing" -lt "$expected" ] || [ "$missing" -gt $((expected + ${dropped:-0})) ]; then
	fail "skipped frames are not the ERR frames"
fi
vcam_stop_last

# The corrupt-JPEG fault: uvcvideo passes MJPEG through, so the damaged
# frames reach the application, and the checker finds exactly those.
vcam_start CORRUPT --profile default --corrupt-jpeg-every 5
NODE=$(video_node CORRUPT)
step "MJPEG capture with the scan of every 5th frame damaged"
capture_mmap "$NODE" MJPG 640x480 20 "$WORK/corrupt.mjpeg"
"$FRAMECHECK" "$WORK/corrupt.mjpeg" --format MJPEG --size 640x480 --verbose >"$WORK/corrupt.txt" || true
grep -E '^frame|^frames' "$WORK/corrupt.txt" | head -n 30
wrong=$(awk '/^frame [0-9]+: seq=[0-9]/ { split($3, a, "="); bad = a[2] % 5 == 4;
	hit = index($0, "damaged (JPEG data corrupt)") > 0; if (bad != hit) print a[2] }' "$WORK/corrupt.txt")
[ -z "$wrong" ] || fail "damaged frames are not the corrupted ones: $wrong"
n=$(grep -c 'damaged (JPEG data corrupt)' "$WORK/corrupt.txt" || true)
[ "$n" -ge 3 ] || fail "only $n corrupt frames seen in 20"
echo "$n corrupt frames, each one the camera damaged"
echo
echo "vcam faults: $STEPS steps passed"
