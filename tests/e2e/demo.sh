#!/usr/bin/env bash
# scripts/demo's guest half. Usage: demo.sh BUILD_DIR OUT_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
SHOW_LOGS=failure
OUT=${2:?out dir}
COUNT=60

load_modules vhci-hcd uvcvideo
vcam_start DEMO0001 --profile default
NODE=$(video_node DEMO0001)

step "v4l2-ctl --all -d $NODE"
v4l2-ctl -d "$NODE" --all

step "capture $COUNT frames, YUYV 640x480 at 30 fps"
capture_mmap "$NODE" YUYV 640x480 "$COUNT" "$WORK/frames.raw"
framecheck "$WORK/frames.raw" YUYV 640x480 --min-frames "$COUNT" | tee "$WORK/check.txt"

frame_size=$((640 * 480 * 2))
tail -c "$frame_size" "$WORK/frames.raw" >"$WORK/last.raw"
ffmpeg -hide_banner -loglevel error -nostdin -f rawvideo -pix_fmt yuyv422 -s 640x480 \
	-i "$WORK/last.raw" -frames:v 1 -y "$OUT/frame.png" || fail "PNG conversion"

card=$(v4l2-ctl -d "$NODE" --info | awk -F': ' '/Card type/ { print $2; exit }')
driver=$(v4l2-ctl -d "$NODE" --info | awk -F': ' '/Driver name/ { print $2; exit }')
intact=$(awk -F': ' '/^frames intact/ { print $2 }' "$WORK/check.txt")
# the rate the frames were captured at, from their own capture stamps
fps=$(awk -F': ' '/^frame rate/ { printf "%.1f", $2 }' "$WORK/check.txt")
echo
echo "summary: camera '$card' (serial DEMO0001), node $NODE (driver $driver), format YUYV 640x480," \
	"frames $COUNT captured / $intact intact, $fps fps"
