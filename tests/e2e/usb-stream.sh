#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# uvcuse's USB layer (src/usb/) alone, through uvcuse-usbgrab: probe, commit,
# isochronous and bulk streaming from uvcuse-vcam, every frame checked, the
# rate measured; and the kernel driver handed over and given back: uvcvideo's
# node goes away while the camera is held and comes back after.
# Usage (in the guest): usb-stream.sh BUILD_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
GRAB=$BUILD/tests/tools/uvcuse-usbgrab

load_modules vhci-hcd uvcvideo

# grab SERIAL FOURCC WxH FILE [FRAMES]: 120 frames (or FRAMES) at 30 fps;
# checks the host's rate (after the first tenth of the frames: those
# carry the start-up latency) against the camera's own between the same two
# frames, from the PTS it stamped on them: frames the camera skipped there
# (late drawing a picture in a busy guest) count in both, ones it skipped
# before the first or after the last in neither.
grab() {
	local serial=$1 fourcc=$2 size=$3 file=$4 frames=${5:-120}
	camera_mark "$serial"
	"$GRAB" --serial "$serial" --format "$fourcc" --size "$size" --fps 30 --frames "$frames" \
		-o "$file" --times "$file.times" >"$file.log" 2>&1 || { cat "$file.log"; fail "usbgrab $fourcc $size"; }
	cat "$file.log"
	local fps ref
	fps=$(awk '/^fps:/ { print $2 }' "$file.log")
	ref=$(awk '/^camera fps:/ { print $3 }' "$file.log")
	[ -n "$ref" ] || fail "$fourcc $size: usbgrab gave no camera rate (frames without PTS?)"
	# frames the camera skipped (late) are missing without the host's
	# fault: framecheck allows those (the grab may run in a subshell)
	local skipped
	skipped=$(camera_drops "$serial")
	echo "${skipped:-0}" >"$file.skipped"
	echo "the camera skipped $(cat "$file.skipped") frames in its stream"
	within_pct "$fps" "$ref" 2 || fail "$fourcc $size: $fps fps, not within 2% of the camera's $ref"
	grep -q '^negotiated: .* interval 333333 ' "$file.log" || fail "$fourcc $size: 30 fps not negotiated"
}

# node_gone SERIAL: waits until the camera has no video node.
node_gone() {
	local serial=$1 i dev usb
	for ((i = 0; i < 100; i++)); do
		local found=0
		for dev in /sys/class/video4linux/video*; do
			[ -e "$dev" ] || continue
			usb=$(readlink -f "$dev/device/..")
			[ "$(cat "$usb/serial" 2>/dev/null)" = "$serial" ] && found=1
		done
		[ $found = 0 ] && return 0
		sleep 0.1
	done
	return 1
}

vcam_start ISO --profile default
NODE=$(video_node ISO)
echo "uvcvideo has the camera as $NODE"

step "list"
"$GRAB" --list | tee "$WORK/list.txt"
grep -q '^camera .* bus_info usb-vhci_hcd\.[0-9]-[0-9.]* product .* serial "ISO"' "$WORK/list.txt" ||
	fail "--list does not show camera ISO with a vhci bus_info"
grep -q '^  format YUYV 640x480 30.000 15.000 5.000$' "$WORK/list.txt" || fail "--list formats"
# uvcvideo's own idea of bus_info, for the daemon's VIDIOC_QUERYCAP
kbus=$(v4l2-ctl -d "$NODE" --info | awk -F': ' '/Bus info/ { print $2 }' | tr -d ' ')
grep -qF "bus_info $kbus " "$WORK/list.txt" || fail "bus_info differs from uvcvideo's ($kbus)"
echo "bus_info matches uvcvideo's: $kbus"

step "isochronous YUYV 640x480, 30 fps, 120 frames (uvcvideo detached meanwhile)"
grab ISO YUYV 640x480 "$WORK/iso-yuyv.raw" &
GRAB_PID=$!
node_gone ISO || fail "uvcvideo kept its node while usbgrab held the camera"
echo "uvcvideo's node is gone while usbgrab holds the camera"
wait $GRAB_PID || fail "isochronous YUYV capture"
framecheck "$WORK/iso-yuyv.raw" YUYV 640x480 --min-frames 120 --max-missing "$(cat "$WORK/iso-yuyv.raw.skipped")" \
	--times "$WORK/iso-yuyv.raw.times"
NODE=$(video_node ISO 10)
echo "uvcvideo has the camera back as $NODE"

# (60: the checker decodes each 1080p frame at a few a second in TCG)
step "isochronous MJPG 1920x1080, 30 fps, 60 frames"
grab ISO MJPG 1920x1080 "$WORK/iso-mjpg.mjpeg" 60
framecheck "$WORK/iso-mjpg.mjpeg" MJPEG 1920x1080 --min-frames 60 --max-missing "$(cat "$WORK/iso-mjpg.mjpeg.skipped")" \
	--times "$WORK/iso-mjpg.mjpeg.times"

step "bulk YUYV 640x480, 30 fps, 120 frames"
vcam_start BULK --profile bulk
video_node BULK >/dev/null
grab BULK YUYV 640x480 "$WORK/bulk-yuyv.raw"
framecheck "$WORK/bulk-yuyv.raw" YUYV 640x480 --min-frames 120 --max-missing "$(cat "$WORK/bulk-yuyv.raw.skipped")" \
	--times "$WORK/bulk-yuyv.raw.times"
video_node BULK 10 >/dev/null

step "camera unplugged while streaming: a clean error, no hang"
ISO_PID=${VCAM_PIDS[0]}
timeout 30 "$GRAB" --serial ISO --format YUYV --size 640x480 --fps 30 --frames 100000 \
	-o "$WORK/unplug.raw" >"$WORK/unplug.log" 2>&1 &
GRAB_PID=$!
sleep 2
kill -USR1 "$ISO_PID"
status=0
wait $GRAB_PID || status=$?
cat "$WORK/unplug.log"
[ $status = 1 ] || fail "usbgrab ended with status $status after the unplug (1 expected, 124: hung)"
grep -q "stream died: No such device" "$WORK/unplug.log" || fail "no ENODEV report after the unplug"
kill -USR2 "$ISO_PID"
video_node ISO 20 >/dev/null
echo "plugged back: uvcvideo has the camera again"

echo
echo "usb stream: $STEPS steps passed"
