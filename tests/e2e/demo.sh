#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/demo's guest half (tests/vm/run --systemd): uvcuse installed by
# the README's install block (readme-install.sh), the virtual camera plugged in, the service started by
# udev, and an unprivileged user in group video taking a picture with an
# unmodified ffmpeg through uvcuse-run. Usage: demo.sh BUILD_DIR OUT_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
SHOW_LOGS=failure
OUT=${2:?out dir}
COUNT=60
SERIAL=DEMO0001

step "install uvcuse: the README's install block, as written"
ensure_installed
load_modules vhci-hcd uvcvideo

step "plug in the virtual camera: udev starts the service"
UNIT=$(systemd-escape --template=uvcuse@.service "serial-1209-0001-$SERIAL")
vcam_start "$SERIAL" --profile default
for ((i = 0; i < 300; i++)); do
	systemctl is-active -q "$UNIT" && break
	sleep 0.1
done
systemctl is-active -q "$UNIT" || { journalctl -b -u "$UNIT" --no-pager | tail; fail "$UNIT did not start"; }
systemctl status --no-pager "$UNIT" | sed -n 1,8p
NODE=$(systemctl show -p StatusText --value "$UNIT" | grep -oE '/dev/video[0-9]+' | head -n 1)
PERMS=$(stat -c '%A %U:%G' "$NODE")
ls -l "$NODE" /dev/v4l/by-id/

step "user 'demo' (group video) captures $COUNT frames with ffmpeg through uvcuse-run"
useradd -m -G video demo
chmod 0777 "$WORK"
runuser -u demo -- v4l2-ctl -d "$NODE" --info
# (its warnings shown: a timestamp that goes back or stands still makes
# ffmpeg say "non monotonically increasing dts")
runuser -u demo -- uvcuse-run ffmpeg -hide_banner -loglevel warning -nostdin -f v4l2 \
	-input_format yuyv422 -video_size 640x480 -framerate 30 -i "$NODE" -frames:v "$COUNT" \
	-fps_mode passthrough -f rawvideo "$WORK/frames.raw" 2>"$WORK/ffmpeg.err" ||
	{ cat "$WORK/ffmpeg.err"; fail "ffmpeg capture"; }
cat "$WORK/ffmpeg.err" >&2
ts_warnings=$(grep -ciE 'monoton|timestamp' "$WORK/ffmpeg.err" || true)
framecheck "$WORK/frames.raw" YUYV 640x480 --min-frames "$COUNT" --max-missing 6 | tee "$WORK/check.txt"

frame_size=$((640 * 480 * 2))
tail -c "$frame_size" "$WORK/frames.raw" >"$WORK/last.raw"
ffmpeg -hide_banner -loglevel error -nostdin -f rawvideo -pix_fmt yuyv422 -s 640x480 \
	-i "$WORK/last.raw" -frames:v 1 -y "$OUT/frame.png" || fail "PNG conversion"

card=$(v4l2-ctl -d "$NODE" --info | awk -F': ' '/Card type/ { print $2; exit }')
driver=$(v4l2-ctl -d "$NODE" --info | awk -F': ' '/Driver name/ { print $2; exit }')
intact=$(awk -F': ' '/^frames intact/ { print $2 }' "$WORK/check.txt")
missing=$(awk -F': ' '/^frames missing/ { print $2 }' "$WORK/check.txt")
daemon_user=$(ps -o user= -p "$(systemctl show -p MainPID --value "$UNIT")")
echo
echo "summary: service $UNIT (running as $daemon_user), node $NODE ($PERMS, driver $driver)," \
	"camera '$card' (serial $SERIAL), user demo captured $COUNT frames YUYV 640x480 with ffmpeg," \
	"$intact intact, $missing missing, $ts_warnings ffmpeg timestamp warnings"
