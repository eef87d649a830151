#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Remembered controls: values set through uvcuse are saved per camera and
# sent to the camera again when uvcuse opens it after a restart and a
# replug; a corrupt state file is reported and ignored;
# --no-restore-controls sends nothing; --reset-controls brings back the
# camera's defaults and deletes the file.
# Usage (in the guest): daemon-settings.sh BUILD_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
SERIAL=SET-1
NAME=video10
NODE=/dev/$NAME
STATE=$WORK/state # the guest's tmpfs
CAMLOG=$WORK/vcam-$SERIAL.log

# mark, then camera_sets: the controls the camera was set to since the mark
# (the vcam logs each SET_CUR that changes a value).
mark() { MARK=$(wc -l <"$CAMLOG"); }
camera_sets() { tail -n +$((MARK + 1)) "$CAMLOG" | grep -oE 'control [a-z_]+ = -?[0-9]+' || true; }

# replug: unplugged (the vcam forgets its settings) and plugged in again,
# back with uvcvideo.
replug() {
	local knode i
	knode=$(video_node "$SERIAL" 15)
	kill -USR1 "${VCAM_PIDS[0]}"
	for ((i = 0; i < 100; i++)); do [ -e "$knode" ] || break; sleep 0.1; done
	[ ! -e "$knode" ] || fail "$knode still there after the unplug"
	kill -USR2 "${VCAM_PIDS[0]}"
	KNODE=$(video_node "$SERIAL")
}

# expect_ctrls NODE NAME=VALUE...: v4l2-ctl --get-ctrl shows these values.
expect_ctrls() {
	local node=$1 spec got
	shift
	for spec in "$@"; do
		got=$(v4l2-ctl -d "$node" --get-ctrl "${spec%%=*}") || fail "--get-ctrl ${spec%%=*}"
		[ "$got" = "${spec%%=*}: ${spec#*=}" ] || fail "$node: '$got', expected ${spec/=/: }"
	done
	echo "$node: $*"
}

load_modules vhci-hcd uvcvideo cuse
vcam_start "$SERIAL" --profile default
KNODE=$(video_node "$SERIAL")

step "set controls through uvcuse: saved under --state-dir"
uvcuse_start "$SERIAL" "$NAME" --state-dir "$STATE"
v4l2-ctl -d "$NODE" --set-ctrl brightness=40 || fail "set brightness"
v4l2-ctl -d "$NODE" --set-ctrl contrast=70,power_line_frequency=2 || fail "set contrast, power line"
v4l2-ctl -d "$NODE" --set-ctrl white_balance_automatic=0,white_balance_temperature=5000 ||
	fail "set white balance"
sleep 1.5 # saves are coalesced: at most one a second
files=("$STATE"/*.controls)
[ "${#files[@]}" -eq 1 ] || fail "expected one file in $STATE: ${files[*]}"
[ -f "${files[0]}" ] || fail "nothing saved in $STATE"
FILE=${files[0]}
echo "$FILE:"
cat "$FILE"
[ "$(basename "$FILE")" = "$(printf '%s' "$(basename "$FILE")" | tr -cd 'A-Za-z0-9._%-')" ] ||
	fail "unsafe file name"
[[ "$(basename "$FILE")" == *-serial-$SERIAL.controls ]] || fail "file not named after the serial"
for line in "0x00980900 brightness 40" "0x00980901 contrast 70" "0x00980918 power_line_frequency 2" \
	"0x0098090c white_balance_automatic 0" "0x0098091a white_balance_temperature 5000"; do
	grep -qx "$line" "$FILE" || fail "'$line' not saved"
done
uvcuse_stop "$NAME"

step "unplug and plug the camera back in: it forgot its settings"
replug
expect_ctrls "$KNODE" brightness=0 contrast=50 power_line_frequency=1

step "uvcuse starts again: the camera receives the saved values on open"
mark
uvcuse_start "$SERIAL" "$NAME" --state-dir "$STATE"
camera_sets | tee "$WORK/sets.txt"
for line in "control brightness = 40" "control contrast = 70" "control power_line_frequency = 2" \
	"control white_balance_temperature = 5000"; do
	grep -qx "$line" "$WORK/sets.txt" || fail "the camera did not receive '$line'"
done
grep -E "restored [0-9]+ of [0-9]+ saved controls" "$WORK/uvcuse.log" | tail -n 1
expect_ctrls "$NODE" brightness=40 contrast=70 power_line_frequency=2 white_balance_temperature=5000
v4l2-ctl -d "$NODE" --set-fmt-video=width=640,height=480,pixelformat=YUYV --set-parm=30 || fail "YUYV"
"$READCAP" "$NODE" 10 "$WORK/b40.yuyv" >/dev/null || fail "read() capture"
framecheck "$WORK/b40.yuyv" YUYV 640x480 --min-frames 10 --expect-brightness 40 |
	grep -E '^(frames|mean luma|verdict)'
rm -f "$WORK/b40.yuyv"
uvcuse_stop "$NAME"

step "a corrupt state file: a warning, nothing sent, the daemon serves"
printf '# uvcuse controls v1\n0x00980900 brightness \001\002\377\n' >"$FILE"
mark
uvcuse_start "$SERIAL" "$NAME" --state-dir "$STATE"
grep -F "is corrupt" "$WORK/uvcuse.log" || fail "no warning about the corrupt file"
[ -z "$(camera_sets)" ] || fail "controls were sent from a corrupt file: $(camera_sets)"
v4l2-ctl -d "$NODE" --set-ctrl brightness=20 || fail "set brightness"
uvcuse_stop "$NAME" # saves what waits
grep -qx "0x00980900 brightness 20" "$FILE" || { cat "$FILE"; fail "the corrupt file was not replaced"; }

step "--no-restore-controls: saved values are not sent, new ones still saved"
printf '# uvcuse controls v1\n0x00980900 brightness 25\n' >"$FILE" # by hand
mark
uvcuse_start "$SERIAL" "$NAME" --state-dir "$STATE" --no-restore-controls
[ -z "$(camera_sets)" ] || fail "controls were sent: $(camera_sets)"
expect_ctrls "$NODE" brightness=20
v4l2-ctl -d "$NODE" --set-ctrl contrast=30 || fail "set contrast"
uvcuse_stop "$NAME"
cat "$FILE"
grep -qx "0x00980900 brightness 25" "$FILE" || fail "brightness 25 not kept"
grep -qx "0x00980901 contrast 30" "$FILE" || fail "contrast 30 not added"

step "--reset-controls: the camera's defaults, the file deleted"
mark
uvcuse_start "$SERIAL" "$NAME" --state-dir "$STATE" --reset-controls
camera_sets | tee "$WORK/sets.txt"
for line in "control brightness = 0" "control contrast = 50" "control power_line_frequency = 1" \
	"control white_balance_temperature = 4600"; do
	grep -qx "$line" "$WORK/sets.txt" || fail "not reset: expected '$line'"
done
[ ! -e "$FILE" ] || fail "$FILE still exists"
grep -F -- "--reset-controls:" "$WORK/uvcuse.log"
expect_ctrls "$NODE" brightness=0 contrast=50 power_line_frequency=1 white_balance_temperature=4600
uvcuse_stop "$NAME"

echo
echo "daemon settings: $STEPS steps passed"
