#!/usr/bin/env bash
# scripts/demo's guest half: the virtual camera served by uvcuse, captured
# through read(). Usage: demo.sh BUILD_DIR OUT_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
SHOW_LOGS=failure
OUT=${2:?out dir}
COUNT=60

load_modules vhci-hcd uvcvideo cuse
vcam_start DEMO0001 --profile default
video_node DEMO0001 >/dev/null # plugged in and seen by the kernel
uvcuse_start DEMO0001 video10
NODE=/dev/video10

step "v4l2-ctl --all -d $NODE"
v4l2-ctl -d "$NODE" --all

step "capture $COUNT frames through read(), YUYV 640x480 at 30 fps"
v4l2-ctl -d "$NODE" --set-fmt-video=width=640,height=480,pixelformat=YUYV --set-parm=30 ||
	fail "setting the format"
"$READCAP" "$NODE" "$COUNT" "$WORK/frames.raw" >"$WORK/capture.log" || fail "read() capture"
framecheck "$WORK/frames.raw" YUYV 640x480 --min-frames "$COUNT" | tee "$WORK/check.txt"

frame_size=$((640 * 480 * 2))
tail -c "$frame_size" "$WORK/frames.raw" >"$WORK/last.raw"
ffmpeg -hide_banner -loglevel error -nostdin -f rawvideo -pix_fmt yuyv422 -s 640x480 \
	-i "$WORK/last.raw" -frames:v 1 -y "$OUT/frame.png" || fail "PNG conversion"

card=$(v4l2-ctl -d "$NODE" --info | awk -F': ' '/Card type/ { print $2; exit }')
driver=$(v4l2-ctl -d "$NODE" --info | awk -F': ' '/Driver name/ { print $2; exit }')
intact=$(awk -F': ' '/^frames intact/ { print $2 }' "$WORK/check.txt")
fps=$(awk '/^rate:/ { printf "%.1f", $2 }' "$WORK/capture.log")
uvcuse_stop video10 >/dev/null
echo
echo "summary: camera '$card' (serial DEMO0001), node $NODE (driver $driver), format YUYV 640x480," \
	"frames $COUNT captured / $intact intact, $fps fps"
