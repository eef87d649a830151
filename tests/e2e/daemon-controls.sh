#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# uvcuse's control extras judged against uvcvideo on the same camera:
# extension unit controls through uvcvideo's own ioctls (UVCIOC_CTRL_QUERY,
# UVCIOC_CTRL_MAP, driven by uvcuse-xuctl: the same answers, and the mapped
# controls listed the same), the camera's own changes reported on its status
# endpoint arriving as control events, VIDIOC_LOG_STATUS, and the
# restore_ctrls_on_init quirk.
# Usage (in the guest): daemon-controls.sh BUILD_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
SERIAL=C-ctl
NAME=video10
NODE=/dev/$NAME
XUCTL=$BUILD/tests/tools/uvcuse-xuctl

# camera_event NODE OUT: with automatic white balance on, the camera moves
# the temperature by itself (every second) and says so on its status
# endpoint; nothing else changes it, so an event proves the endpoint.
camera_event() {
	local node=$1 out=$2 t0 t1
	v4l2-ctl -d "$node" -c white_balance_automatic=1 || fail "white_balance_automatic=1 on $node"
	t0=$(v4l2-ctl -d "$node" -C white_balance_temperature)
	timeout 6 v4l2-ctl -d "$node" --wait-for-event=ctrl=white_balance_temperature >"$out" ||
		fail "no control event within 6 s on $node"
	cat "$out"
	grep -q "ctrl: white_balance_temperature" "$out" || fail "the event is not about white balance"
	t1=$(v4l2-ctl -d "$node" -C white_balance_temperature)
	echo "white balance temperature: ${t0#*: } -> ${t1#*: }"
	[ "$t0" != "$t1" ] || fail "the temperature did not move while automatic"
	# manual again: the camera goes back to its manual setting
	v4l2-ctl -d "$node" -c white_balance_automatic=0 || fail "white_balance_automatic=0 on $node"
}

load_modules vhci-hcd uvcvideo cuse
vcam_start "$SERIAL" --profile default
KNODE=$(video_node "$SERIAL")

step "uvcvideo: UVCIOC_CTRL_QUERY on the extension unit (the reference)"
"$XUCTL" "$KNODE" query | tee "$WORK/xu-query.kernel" || fail "uvcuse-xuctl query on uvcvideo"

step "uvcvideo: UVCIOC_CTRL_MAP, and how --list-ctrls-menus shows the mapped controls"
"$XUCTL" "$KNODE" map | tee "$WORK/xu-map.kernel" || fail "uvcuse-xuctl map on uvcvideo"
v4l2-ctl -d "$KNODE" --list-ctrls-menus >"$WORK/ctrls.kernel"
grep -A4 -E '^ *(led_mode|test_pattern) ' "$WORK/ctrls.kernel" || fail "uvcvideo does not list the mapped controls"

step "uvcvideo: the camera's own change arrives as a control event"
camera_event "$KNODE" "$WORK/event.kernel"
out=$(v4l2-ctl -d "$KNODE" --log-status 2>&1) && rc=0 || rc=$?
echo "uvcvideo --log-status: rc=$rc ${out//$KNODE/NODE}"

step "uvcuse takes the camera"
uvcuse_start "$SERIAL" "$NAME"
for ((i = 0; i < 50; i++)); do [ -e "$KNODE" ] || break; sleep 0.1; done
[ ! -e "$KNODE" ] || fail "uvcvideo's $KNODE still exists: the daemon did not detach it"

step "uvcuse: UVCIOC_CTRL_QUERY answers as uvcvideo does"
"$XUCTL" "$NODE" query >"$WORK/xu-query.uvcuse" || { cat "$WORK/xu-query.uvcuse"; fail "uvcuse-xuctl query on uvcuse"; }
diff -u "$WORK/xu-query.kernel" "$WORK/xu-query.uvcuse" || fail "UVCIOC_CTRL_QUERY answers differ from uvcvideo's"
echo "$(wc -l <"$WORK/xu-query.uvcuse") answers, identical"

step "uvcuse: UVCIOC_CTRL_MAP as uvcvideo, the mapped controls listed the same"
"$XUCTL" "$NODE" map >"$WORK/xu-map.uvcuse" || { cat "$WORK/xu-map.uvcuse"; fail "uvcuse-xuctl map on uvcuse"; }
diff -u "$WORK/xu-map.kernel" "$WORK/xu-map.uvcuse" || fail "UVCIOC_CTRL_MAP answers differ from uvcvideo's"
v4l2-ctl -d "$NODE" --list-ctrls-menus >"$WORK/ctrls.uvcuse"
diff -u "$WORK/ctrls.kernel" "$WORK/ctrls.uvcuse" || fail "--list-ctrls-menus differs from uvcvideo's"
echo "$(grep -c ' 0x' "$WORK/ctrls.uvcuse") controls listed, identical, the mapped ones included"
seen() { grep -c "control $1" "$WORK/vcam-$SERIAL.log" || true; }
led=$(seen "xu_led_mode = 1") pattern=$(seen "xu_test_pattern = 3")
v4l2-ctl -d "$NODE" -c led_mode=1,test_pattern=3 || fail "setting the mapped controls"
v4l2-ctl -d "$NODE" -C led_mode,test_pattern | tee "$WORK/mapped.txt"
grep -q "^led_mode: 1" "$WORK/mapped.txt" || fail "led_mode does not read back"
grep -q "^test_pattern: 3" "$WORK/mapped.txt" || fail "test_pattern does not read back"
[ "$(seen "xu_led_mode = 1")" -gt "$led" ] || fail "the camera did not get LED mode 1"
[ "$(seen "xu_test_pattern = 3")" -gt "$pattern" ] || fail "the camera did not get test pattern 3"
echo "led_mode=1, test_pattern=3 reached the camera"

step "uvcuse: the camera's own change arrives as a control event"
camera_event "$NODE" "$WORK/event.uvcuse"

step "uvcuse: VIDIOC_LOG_STATUS"
v4l2-ctl -d "$NODE" --log-status >"$WORK/log-status.out" 2>&1 || { cat "$WORK/log-status.out"; fail "v4l2-ctl --log-status"; }
sed -n '/START STATUS/,/END STATUS/p' "$WORK/uvcuse.log" | tail -n 60 | tee "$WORK/status-block.txt"
for want in "$NAME: camera: " "$NAME: format: YUYV" "$NAME: streaming: no" "Brightness: 0" \
	"LED Mode: 1 (On)" "Test Pattern: 3" "$NAME: frames: " "END STATUS" \
	"$NAME: /dev/$NAME: uvcuse Virtual Camera: uvcuse V (1209:0001" "idle, frames " \
	"clients 1, iso 0 bytes/interval"; do
	grep -qF -- "$want" "$WORK/status-block.txt" || fail "the status block lacks '$want'"
done
# v4l2-ctl prints the kernel log from the last START STATUS: ours
grep -q "uvcuse $NAME: =*  START STATUS" "$WORK/log-status.out" ||
	{ cat "$WORK/log-status.out"; fail "v4l2-ctl --log-status does not show the block"; }
echo "v4l2-ctl --log-status shows $(grep -c "uvcuse $NAME:" "$WORK/log-status.out") lines of ours"

step "SIGTERM: node removed, camera given back to uvcvideo"
uvcuse_stop "$NAME"
KNODE=$(video_node "$SERIAL" 15)
echo "uvcvideo bound the camera again: $KNODE"

step "uvcvideo's restore_ctrls_on_init quirk: a camera that forgets a control when it starts streaming gets it back"
vcam_stop_last
SERIAL=C-rst
vcam_start "$SERIAL" --profile default --reset-on-stream
video_node "$SERIAL" >/dev/null
uvcuse_start "$SERIAL" "$NAME" --quirks restore_ctrls_on_init
v4l2-ctl -d "$NODE" -c brightness=17 || fail "brightness=17"
before=$(seen "brightness = 17")
[ "$before" -ge 1 ] || fail "the camera did not get brightness 17"
timeout 60 "$UVCUSE_RUN" v4l2-ctl -d "$NODE" --stream-mmap --stream-count=3 --stream-to=/dev/null ||
	fail "a 3-frame capture"
[ "$(seen "brightness = 0")" -ge 1 ] || fail "the camera did not forget its brightness"
grep -qE "restore_ctrls_on_init: [0-9]+ controls sent again" "$WORK/uvcuse.log" ||
	{ tail -n 20 "$WORK/uvcuse.log"; fail "uvcuse did not restore the control"; }
after=$(seen "brightness = 17")
[ "$after" -gt "$before" ] || fail "the camera did not get brightness 17 again ($before, then $after)"
v4l2-ctl -d "$NODE" -C brightness | grep -qx "brightness: 17" || fail "brightness does not read 17"
echo "the camera went back to brightness 0 at the stream start; uvcuse sent 17 again"
uvcuse_stop "$NAME"
echo
echo "daemon controls: $STEPS steps passed"
