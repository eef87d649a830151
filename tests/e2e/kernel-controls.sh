#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# uvcvideo as referee of the virtual camera's controls: every control is
# listed, brightness set through uvcvideo reaches the camera and the picture,
# and the camera's own white balance changes arrive as control events.
# Usage (in the guest): kernel-controls.sh BUILD_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

load_modules vhci-hcd uvcvideo
vcam_start CTRL --profile default
NODE=$(video_node CTRL)

step "every control the camera offers is listed by uvcvideo"
v4l2-ctl -d "$NODE" --list-ctrls-menus | tee "$WORK/ctrls.txt"
awk '/0x[0-9a-f]+ \(/ { print "control", $1 }' "$WORK/ctrls.txt" | sort -u >"$WORK/ctrls.node"
"$VCAM" --describe | grep '^control ' | sort -u >"$WORK/ctrls.camera"
diff -u "$WORK/ctrls.camera" "$WORK/ctrls.node" || fail "controls differ"
echo "$(wc -l <"$WORK/ctrls.node") controls, as the camera describes them"

step "brightness 0: reference capture"
capture_mmap "$NODE" YUYV 640x480 15 "$WORK/b0.raw"
framecheck "$WORK/b0.raw" YUYV 640x480 --expect-brightness 0 | tee "$WORK/b0.txt"

step "brightness 40 through uvcvideo"
v4l2-ctl -d "$NODE" -c brightness=40
[ "$(v4l2-ctl -d "$NODE" -C brightness)" = "brightness: 40" ] || fail "brightness does not read back"
grep -q "control brightness = 40" "$WORK/vcam-CTRL.log" || fail "the camera did not log brightness 40"
capture_mmap "$NODE" YUYV 640x480 15 "$WORK/b40.raw"
framecheck "$WORK/b40.raw" YUYV 640x480 --expect-brightness 40 | tee "$WORK/b40.txt"
luma0=$(awk -F': ' '/^mean luma/ { print $2 }' "$WORK/b0.txt")
luma40=$(awk -F': ' '/^mean luma/ { print $2 }' "$WORK/b40.txt")
echo "mean luma: $luma0 at brightness 0, $luma40 at brightness 40"
awk -v a="$luma0" -v b="$luma40" 'BEGIN { exit !(b > a + 20) }' || fail "picture did not get brighter"

step "automatic white balance: the camera's own changes come as control events"
v4l2-ctl -d "$NODE" -c white_balance_automatic=1
t0=$(v4l2-ctl -d "$NODE" -C white_balance_temperature)
# An event comes only from the status interrupt endpoint: uvcvideo does not poll.
timeout 6 v4l2-ctl -d "$NODE" --wait-for-event=ctrl=white_balance_temperature >"$WORK/event.txt" ||
	fail "no control event within 6 s"
cat "$WORK/event.txt"
grep -q "ctrl: white_balance_temperature" "$WORK/event.txt" || fail "event is not about white balance"
t1=$(v4l2-ctl -d "$NODE" -C white_balance_temperature)
echo "white balance temperature: ${t0#*: } -> ${t1#*: }"
[ "$t0" != "$t1" ] || fail "white balance did not move while automatic"
echo
echo "kernel controls: $STEPS steps passed"
