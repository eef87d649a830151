#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Unmodified MMAP and USERPTR apps on uvcuse through the preload library
# (uvcuse-run): v4l2-compliance (-s -f, and -w through libv4l2), ffmpeg,
# GStreamer, v4l2-ctl; every frame judged by uvcuse-framecheck (OpenCV:
# daemon-share, beside ffmpeg and a read() client).
# Also: the hint the daemon logs when an app maps without the library, and
# the buffer socket refusing another user.
# Usage (in the guest): daemon-apps.sh BUILD_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
SERIAL=APPS
NAME=video10
NODE=/dev/$NAME
RUN=$BUILD/src/preload/uvcuse-run
SYSPY=/usr/bin/python3 # Debian's, with python3-opencv
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

load_modules vhci-hcd uvcvideo cuse
vcam_start "$SERIAL" --profile default
KNODE=$(video_node "$SERIAL")

# failing_tests LOG: the names of the tests v4l2-compliance failed, sorted.
failing_tests() {
	{ grep -E '^\s*test .*: FAIL' "$1" || true; } | sed -E 's/^\s*test (.*): FAIL.*/\1/' | sort -u
}

step "uvcvideo under libv4l2 (v4l2-compliance -w -s), the reference for the same run"
# v4l-utils 1.22's libv4l2 and v4l2-compliance disagree (emulated formats'
# descriptions, USERPTR hidden behind conversion, streaming state after the
# read() tests): the kernel driver fails some tests under -w; ours may fail
# only those.
v4l2-compliance -d "$KNODE" -w -s >"$WORK/compliance-w.kernel" 2>&1 || true
grep -E '^Total' "$WORK/compliance-w.kernel"
failing_tests "$WORK/compliance-w.kernel" | sed 's/^/  uvcvideo fails: /'

uvcuse_start "$SERIAL" "$NAME"
for ((i = 0; i < 50; i++)); do [ -e "$KNODE" ] || break; sleep 0.1; done

# check_frames FILE FOURCC WxH COUNT [MAX_MISSING]: COUNT frames, all intact
# and in order, at most MAX_MISSING (default COUNT/10) frames of the
# camera's stream not captured. An app that gives its buffers back late
# misses frames with any driver (V4L2 drops when no buffer is queued), and
# under TCG these apps sometimes do; 1.8 MB frames more often.
check_frames() {
	framecheck "$1" "$2" "$3" --min-frames "$4" --max-missing "${5:-$(($4 / 10))}" |
		grep -E '^(frames (seen|intact|damaged|missing)|verdict)'
	rm -f "$1"
}

# mark_losses before a capture, allowed_losses SLACK after it: the frames
# lost whatever the driver, counted in this run: those the app gave no
# buffer back in time for (the daemon's LOG_STATUS, "no buffer queued"; a
# loaded TCG guest writing 1.8 MB frames to a file is often late) and those
# the vcam itself skipped (its log: it sends the newest frame when its host
# is slow), plus SLACK; no other loss is taken.
mark_losses() {
	LATE0=$(late_frames "$NODE")
	camera_mark "$SERIAL"
}
allowed_losses() {
	local skipped late
	skipped=$(camera_drops "$SERIAL")
	late=$(($(late_frames "$NODE") - LATE0))
	echo "  the camera skipped ${skipped:-0} frames, the app was late for $late" >&2
	echo $((${skipped:-0} + late + $1))
}

step "without the library: mmap() fails and the daemon says what fixes it"
# (v4l2-ctl reports the failed mmap but exits 0)
v4l2-ctl -d "$NODE" --set-fmt-video=width=640,height=480,pixelformat=YUYV \
	--stream-mmap --stream-count=5 --stream-to="$WORK/nolib.yuyv" >"$WORK/nolib.log" 2>&1 || true
sed 's/^/  v4l2-ctl: /' "$WORK/nolib.log" | sed -n 1,3p
[ ! -s "$WORK/nolib.yuyv" ] || fail "frames captured by MMAP without the library"
for ((i = 0; i < 20; i++)); do grep -q 'uvcuse-run v4l2-ctl' "$WORK/uvcuse.log" && break; sleep 0.1; done
grep -m1 'never mapped one' "$WORK/uvcuse.log" || fail "no hint naming uvcuse-run in the daemon's log"

step "uvcuse-run v4l2-compliance -s -f: MMAP, USERPTR, read, every format, size and interval"
"$RUN" v4l2-compliance -d "$NODE" "${ALL_FORMATS[@]}" >"$WORK/compliance-sf.log" 2>&1 || true
grep -E '^\s*test (MMAP|USERPTR|read|blocking|VIDIOC_G/S_PARM|VIDIOC_(QUERY|G/S|TRY)).*: ' "$WORK/compliance-sf.log" |
	sed 's/^\s*/  /' | sort | uniq -c | sort -rn | head -n 20 || true
echo "  $(grep -c 'test MMAP for Format' "$WORK/compliance-sf.log" || true) format/size/interval combinations streamed"
fails=$(grep -E '^\s*(test .*: FAIL|fail:)' "$WORK/compliance-sf.log" || true)
[ -z "$fails" ] || { cat "$WORK/compliance-sf.log"; fail "v4l2-compliance -s -f: $fails"; }
grep -E '^Total' "$WORK/compliance-sf.log"
{ tr '\r' '\n' <"$WORK/compliance-sf.log" | grep -E 'warn' || true; } | sed 's/^\s*/  /' |
	sort | uniq -c | sort -rn | head -n 5 || true
grep -qE '^Total.*Failed: 0,' "$WORK/compliance-sf.log" || fail "v4l2-compliance -s -f failed"

step "uvcuse-run v4l2-compliance -w -s (through libv4l2)"
"$RUN" v4l2-compliance -d "$NODE" -w -s >"$WORK/compliance-w.log" 2>&1 || true
grep -E '^\s*test (MMAP|USERPTR|read|blocking).*: ' "$WORK/compliance-w.log" | sed 's/^\s*/  /'
grep -E '^Total' "$WORK/compliance-w.log"
failing_tests "$WORK/compliance-w.log" | sed 's/^/  uvcuse fails: /'
failing_tests "$WORK/compliance-w.kernel" >"$WORK/fails.kernel"
extra=$(failing_tests "$WORK/compliance-w.log" | comm -23 - "$WORK/fails.kernel")
[ -z "$extra" ] || { cat "$WORK/compliance-w.log"; fail "v4l2-compliance -w -s: fails where uvcvideo passes: $extra"; }
grep -qE '^\s*test MMAP \(select\): ' "$WORK/compliance-w.log" || fail "v4l2-compliance -w -s did not stream"
echo "every test uvcvideo passes under libv4l2 passes on uvcuse"

step "uvcuse-run v4l2-ctl --stream-mmap and --stream-user, YUYV 1280x720 (1.8 MB frames)"
for io in mmap user; do
	mark_losses
	"$RUN" v4l2-ctl -d "$NODE" --set-fmt-video=width=1280,height=720,pixelformat=YUYV --set-parm=30 \
		--stream-$io --stream-count=30 --stream-to="$WORK/$io.yuyv" 2>"$WORK/$io.log" ||
		{ cat "$WORK/$io.log"; fail "uvcuse-run v4l2-ctl --stream-$io"; }
	echo "--stream-$io:"
	check_frames "$WORK/$io.yuyv" YUYV 1280x720 30 "$(allowed_losses 2)"
done

step "uvcuse-run ffmpeg: yuyv422 1280x720 raw, mjpeg 1920x1080 -c copy, 30 frames each"
# -fps_mode passthrough: by default ffmpeg makes a raw output constant-rate,
# writing a frame twice when two timestamps are more than 1.1 intervals
# apart, which a loaded TCG guest produces with 1.8 MB frames; the checker
# must see the frames the driver delivered, as they came.
mark_losses
"$RUN" ffmpeg -hide_banner -loglevel error -nostdin -f v4l2 -input_format yuyv422 -video_size 1280x720 \
	-i "$NODE" -frames:v 30 -fps_mode passthrough -f rawvideo "$WORK/ffmpeg.yuyv" 2>&1 |
	tee "$WORK/ffmpeg-yuyv.log" || fail "ffmpeg yuyv422"
check_frames "$WORK/ffmpeg.yuyv" YUYV 1280x720 30 "$(allowed_losses 5)"
mark_losses
"$RUN" ffmpeg -hide_banner -loglevel error -nostdin -f v4l2 -input_format mjpeg -video_size 1920x1080 \
	-i "$NODE" -frames:v 30 -c copy -fps_mode passthrough -f mjpeg "$WORK/ffmpeg.mjpeg" 2>&1 |
	tee "$WORK/ffmpeg-mjpeg.log" || fail "ffmpeg mjpeg"
check_frames "$WORK/ffmpeg.mjpeg" MJPEG 1920x1080 30 "$(allowed_losses 5)"
# ffmpeg 5.1 with -c copy gives a packet's buffer back after closing the
# device at exit: "ioctl(VIDIOC_QBUF): Bad file descriptor", with uvcvideo
# too (seen in this VM); any other failing ioctl is ours.
! grep -v 'ioctl(VIDIOC_QBUF): Bad file descriptor' "$WORK"/ffmpeg-*.log | grep -q ioctl ||
	fail "ffmpeg reported a failing ioctl"

# io-mode=userptr imports the buffers of a downstream pool, and filesink
# offers none ("No downstream pool to import from", uvcvideo alike): a
# videoconvert to UYVY and back (a lossless swizzle) offers one.
for mode in auto userptr; do
	step "uvcuse-run gst-launch-1.0 v4l2src io-mode=$mode, 60 frames YUYV 640x480"
	pool=()
	[ $mode = userptr ] && pool=(! videoconvert ! video/x-raw,format=UYVY ! videoconvert ! video/x-raw,format=YUY2)
	"$RUN" gst-launch-1.0 -q v4l2src device="$NODE" io-mode=$mode num-buffers=60 \
		! video/x-raw,format=YUY2,width=640,height=480,framerate=30/1 "${pool[@]}" \
		! filesink location="$WORK/gst-$mode.yuyv" || fail "gst-launch-1.0 io-mode=$mode"
	check_frames "$WORK/gst-$mode.yuyv" YUYV 640x480 60
done

step "the buffer socket: a token is worth nothing to another user or process"
SOCK=$(find /run/uvcuse -name "$NAME.sock" | head -n 1)
[ -S "$SOCK" ] || fail "no buffer socket for $NAME"
stat -c '%A %U %n' "$(dirname "$SOCK")" "$SOCK"
"${NOBODY[@]}" $SYSPY -c "open('$NODE', 'rb')" 2>/dev/null && fail "nobody opened $NODE"
mkfifo "$WORK/hold"
python3 "$(dirname "$0")/preload_client.py" hello "$NODE" 2 plain <"$WORK/hold" >"$WORK/tokens" &
HOLDER=$!
exec 7>"$WORK/hold"
for ((i = 0; i < 100; i++)); do
	[ "$(wc -l <"$WORK/tokens")" -ge 2 ] && break
	sleep 0.05
done
{ read -r tok1 path; read -r tok2 _; } <"$WORK/tokens"
out=$("${NOBODY[@]}" $SYSPY "$(dirname "$0")/preload_client.py" steal "$path" "$tok1") ||
	fail "nobody's steal: $out"
echo "nobody: $out"
grep -q "refused at connect" <<<"$out" || fail "nobody reached the buffer socket: $out"
python3 "$(dirname "$0")/preload_client.py" steal "$path" "$tok2" || fail "another process's steal"
exec 7>&-
wait "$HOLDER" || fail "token holder failed"
# the one that reached the daemon (nobody's never did)
[ "$(grep -c 'refused pid' "$WORK/uvcuse.log")" -ge 1 ] || fail "refusal not logged"
grep 'refused pid' "$WORK/uvcuse.log" | sed -n 1,2p

kill -0 "$UVCUSE_PID" || fail "uvcuse died"
uvcuse_stop "$NAME"
echo
echo "daemon-apps: $STEPS steps passed"
