#!/usr/bin/env bash
# Format conversion in the daemon (src/convert/, src/convert_stream.c):
# RGB24, BGR24, YU12 and YV12 from YUYV, NV12 and MJPEG, through MMAP and
# USERPTR (uvcuse-run), read(), ffmpeg and OpenCV, every frame judged by
# uvcuse-framecheck; v4l2-compliance -s -f streaming the converted formats;
# corrupt JPEG frames dropped and counted; the MJPEG -> RGB24 rate while
# streaming against ffmpeg's own decoder on the same frames, in this guest.
# Usage (in the guest): daemon-convert.sh BUILD_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
RUN=$UVCUSE_RUN
SYSPY=/usr/bin/python3 # Debian's, with python3-opencv

# check FILE FOURCC WxH COUNT [MAX_MISSING]: COUNT frames, all intact and in
# order, at most MAX_MISSING (default COUNT/10) of the camera's frames not
# captured (what an app giving buffers back late misses with any driver).
check() {
	framecheck "$1" "$2" "$3" --min-frames "$4" --max-missing "${5:-$(($4 / 10))}" |
		grep -E '^(frames (seen|intact|damaged|missing)|verdict)'
	rm -f "$1"
}

# stop_camera: the last vcam started goes away.
stop_camera() {
	kill -TERM "${VCAM_PIDS[-1]}"
	wait "${VCAM_PIDS[-1]}" || true
	unset 'VCAM_PIDS[-1]'
}

# capture IO FOURCC WxH FPS COUNT FILE: uvcuse-run v4l2-ctl --stream-IO
# (mmap or user) of the node.
capture() {
	local io=$1 fourcc=$2 size=$3 fps=$4 count=$5 file=$6
	"$RUN" v4l2-ctl -d "$NODE" --set-fmt-video="width=${size%x*},height=${size#*x},pixelformat=$fourcc" \
		--set-parm="$fps" --stream-"$io" --stream-count="$count" --stream-to="$file" 2>"$WORK/capture.log" ||
		{ cat "$WORK/capture.log"; fail "uvcuse-run v4l2-ctl --stream-$io $fourcc $size"; }
}

# all_four WxH FPS: RGB3, BGR3, YU12 and YV12 through MMAP, 60 frames each.
all_four() {
	local f
	for f in RGB3 BGR3 YU12 YV12; do
		capture mmap "$f" "$1" "$2" 60 "$WORK/mmap.$f"
		echo "$f:"
		check "$WORK/mmap.$f" "$f" "$1" 60
	done
}

# fmt_field NODE FOURCC WxH FIELD: a field of TRY_FMT's answer.
fmt_field() {
	v4l2-ctl -d "$1" --try-fmt-video="width=${3%x*},height=${3#*x},pixelformat=$2" |
		sed -nE "s/^\s*$4\s*:\s*(.*)$/\1/p"
}

load_modules vhci-hcd uvcvideo cuse
vcam_start CONV --profile default
video_node CONV >/dev/null
uvcuse_start CONV video10
NODE=/dev/video10

step "TRY_FMT, S_FMT and G_FMT of converted formats: their own bytesperline and sizeimage"
for spec in "RGB3 640x480 1920 921600" "BGR3 1280x720 3840 2764800" "YU12 640x480 640 460800" \
	"YV12 1920x1080 1920 3110400"; do
	set -- $spec
	bpl=$(fmt_field "$NODE" "$1" "$2" "Bytes per Line")
	size=$(fmt_field "$NODE" "$1" "$2" "Size Image")
	pix=$(fmt_field "$NODE" "$1" "$2" "Pixel Format")
	echo "$1 $2: pixel format $pix, bytes per line $bpl, size $size"
	[[ "$pix" == "'$1'"* ]] && [ "$bpl" = "$3" ] && [ "$size" = "$4" ] || fail "TRY_FMT $1 $2"
done
v4l2-ctl -d "$NODE" --set-fmt-video=width=1280,height=720,pixelformat=RGB3 || fail "S_FMT RGB3"
v4l2-ctl -d "$NODE" --get-fmt-video | grep -E "Pixel Format|Size Image" | tee "$WORK/gfmt"
grep -q "'RGB3'" "$WORK/gfmt" && grep -q 2764800 "$WORK/gfmt" || fail "G_FMT after S_FMT RGB3"

step "the source rule: raw at that size and interval, else MJPEG (logged, and shown by LOG_STATUS)"
# default: YUYV 1280x720 at 30, 15 and 5 fps; MJPEG at 30 and 15 fps;
# 1920x1080 only as MJPEG
v4l2-ctl -d "$NODE" --set-fmt-video=width=1280,height=720,pixelformat=RGB3 --set-parm=15 >/dev/null
v4l2-ctl -d "$NODE" --log-status >/dev/null
grep -m1 -E "format: YUYV 1280x720.*converted to RGB3 \(a raw format has that size at that interval\)" \
	"$WORK/uvcuse.log" || fail "RGB3 1280x720 at 15 fps does not come from YUYV"
v4l2-ctl -d "$NODE" --set-fmt-video=width=1920,height=1080,pixelformat=YU12 >/dev/null
v4l2-ctl -d "$NODE" --log-status >/dev/null
grep -m1 -E "format: MJPG 1920x1080.*converted to YU12 \(no raw format has that size at that interval\)" \
	"$WORK/uvcuse.log" || fail "YU12 1920x1080 does not come from MJPEG"

step "from YUYV 640x480: RGB3, BGR3, YU12, YV12, uvcuse-run v4l2-ctl --stream-mmap, 60 frames each"
all_four 640x480 30
grep -m1 "streaming YUYV 640x480 converted to YV12" "$WORK/uvcuse.log" || fail "the choice is not logged"

step "USERPTR through uvcuse-run, and read() (uvcuse-readcap), RGB3 and YU12 640x480"
for f in RGB3 YU12; do
	capture user "$f" 640x480 30 60 "$WORK/user.$f"
	echo "USERPTR $f:"
	check "$WORK/user.$f" "$f" 640x480 60
	v4l2-ctl -d "$NODE" --set-fmt-video=width=640,height=480,pixelformat=$f || fail "S_FMT $f"
	"$READCAP" "$NODE" 60 "$WORK/read.$f" || fail "read() $f"
	echo "read() $f:"
	check "$WORK/read.$f" "$f" 640x480 60
done

step "uvcuse-run ffmpeg -input_format rgb24 and yuv420p, 640x480, 60 frames each"
for pf in rgb24:RGB3 yuv420p:YU12; do
	"$RUN" ffmpeg -hide_banner -loglevel error -nostdin -f v4l2 -input_format "${pf%:*}" \
		-video_size 640x480 -i "$NODE" -frames:v 60 -fps_mode passthrough -f rawvideo \
		"$WORK/ffmpeg.${pf#*:}" 2>&1 | tee "$WORK/ffmpeg.log" || fail "ffmpeg ${pf%:*}"
	! grep -q ioctl "$WORK/ffmpeg.log" || fail "ffmpeg reported a failing ioctl"
	echo "ffmpeg ${pf%:*}:"
	check "$WORK/ffmpeg.${pf#*:}" "${pf#*:}" 640x480 60
done

step "uvcuse-run python3 + OpenCV (cv2.CAP_V4L2): it picks BGR3 itself"
"$RUN" "$SYSPY" - "$NODE" "$WORK/cv2.bgr" <<'EOF' || fail "OpenCV capture"
import sys, cv2
cap = cv2.VideoCapture(sys.argv[1], cv2.CAP_V4L2)
assert cap.isOpened(), "cannot open"
cap.set(cv2.CAP_PROP_FRAME_WIDTH, 640)
cap.set(cv2.CAP_PROP_FRAME_HEIGHT, 480)
cap.set(cv2.CAP_PROP_CONVERT_RGB, 0)  # the node's bytes, for the checker
fourcc = int(cap.get(cv2.CAP_PROP_FOURCC)).to_bytes(4, "little").decode()
with open(sys.argv[2], "wb") as out:
    for i in range(60):
        ok, frame = cap.read()
        assert ok, f"frame {i}"
        out.write(frame.tobytes())
print("OpenCV", cv2.__version__, "chose", fourcc, "and read 60 frames")
assert fourcc == "BGR3", f"OpenCV chose {fourcc}"
EOF
check "$WORK/cv2.bgr" BGR3 640x480 60

step "from MJPEG 1920x1080 (a size the camera sends only as MJPEG), 15 fps, 60 frames each"
all_four 1920x1080 15
v4l2-ctl -d "$NODE" --log-status >/dev/null
grep -E "frames: .*converted: [0-9]+ on [0-9]+ threads, undecodable: 0," "$WORK/uvcuse.log" | tail -n 1 ||
	fail "LOG_STATUS does not count converted frames"
uvcuse_stop video10
stop_camera

step "from NV12 (nv12 profile) 640x480: RGB3, BGR3, YU12, YV12, 60 frames each"
vcam_start CONVN --profile nv12
video_node CONVN >/dev/null
uvcuse_start CONVN video10
all_four 640x480 30
grep -m1 "streaming NV12 640x480 converted to RGB3" "$WORK/uvcuse.log" || fail "RGB3 not from NV12"
uvcuse_stop video10
stop_camera

step "corrupt JPEG (every 4th frame): dropped, their sequence numbers skipped, counted"
vcam_start CONVC --profile default --corrupt-jpeg-every 4
video_node CONVC >/dev/null
uvcuse_start CONVC video10
capture mmap RGB3 1920x1080 15 45 "$WORK/corrupt.RGB3"
# a quarter of the camera's frames are missing by design, plus the usual slack
check "$WORK/corrupt.RGB3" RGB3 1920x1080 45 30
v4l2-ctl -d "$NODE" --log-status >/dev/null
line=$(grep -E "frames: .*undecodable: [0-9]+" "$WORK/uvcuse.log" | tail -n 1)
echo "$line"
undecodable=$(sed -E 's/.*undecodable: ([0-9]+).*/\1/' <<<"$line")
[ "$undecodable" -ge 10 ] || fail "only $undecodable undecodable frames counted (every 4th of 45+)"
kill -0 "$UVCUSE_PID" || fail "the daemon died on corrupt JPEG"
uvcuse_stop video10
stop_camera

step "rate: 1280x720 MJPEG -> RGB3 while streaming, against ffmpeg's decoder on the same frames"
vcam_start CONVU --profile default --unpaced
video_node CONVU >/dev/null
uvcuse_start CONVU video10
capture mmap MJPG 1280x720 30 120 "$WORK/same.mjpeg"
ffmpeg -hide_banner -nostdin -benchmark -f mjpeg -i "$WORK/same.mjpeg" -pix_fmt rgb24 -f null - \
	>"$WORK/ffdec.log" 2>&1 || { cat "$WORK/ffdec.log"; fail "ffmpeg decode"; }
rtime=$(sed -nE 's/.*rtime=([0-9.]+)s.*/\1/p' "$WORK/ffdec.log")
decoded=$(grep -oE 'frame= *[0-9]+' "$WORK/ffdec.log" | tail -n 1 | grep -oE '[0-9]+')
ff_fps=$(awk -v n="$decoded" -v t="$rtime" 'BEGIN { printf "%.2f", n / t }')
"$RUN" v4l2-ctl -d "$NODE" --set-fmt-video=width=1280,height=720,pixelformat=RGB3 --set-parm=30 \
	--stream-mmap --stream-count=180 --stream-to=/dev/null 2>"$WORK/rate.log" || fail "RGB3 stream"
ours=$(v4l2ctl_fps "$WORK/rate.log")
echo "ffmpeg decodes $decoded frames to rgb24 at $ff_fps fps; uvcuse streams RGB3 converted at $ours fps"
awk -v a="$ours" -v b="$ff_fps" 'BEGIN { exit !(a >= b) }' ||
	fail "converting while streaming ($ours fps) is slower than ffmpeg's decoder ($ff_fps fps)"
uvcuse_stop video10
stop_camera
echo
echo "daemon convert: $STEPS steps passed"
