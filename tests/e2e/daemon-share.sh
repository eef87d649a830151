#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Several processes on one camera (issue 13, second part): the camera
# streams once, each process gets every frame intact in buffers of its own.
# - ffmpeg (MMAP through the library), uvcuse-readcap (read()) and OpenCV
#   (MMAP), 300 frames each at once: all intact; the vcam committed once.
# - YUYV and RGB24 640x480 at once; MJPEG 1920x1080 meanwhile answers EBUSY,
#   and streams once they stopped.
# - Three v4l2-ctl, the first (whose mode the camera streams) SIGKILLed: the
#   other two go on, no gap in their V4L2 sequence numbers around the kill.
# - A process scribbling on every buffer it maps: the others' frames intact.
# - --exclusive: uvcvideo's single owner (EBUSY for a second process), and
#   v4l2-compliance -s -f clean.
# Usage (in the guest): daemon-share.sh BUILD_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
SERIAL=SHARE
NAME=video10
NODE=/dev/$NAME
RUN=$UVCUSE_RUN
SYSPY=/usr/bin/python3 # Debian's, with python3-opencv
CLIENT=$(dirname "$0")/share_client.py
VLOG=$WORK/vcam-$SERIAL.log

load_modules vhci-hcd uvcvideo cuse
vcam_start "$SERIAL" --profile default
KNODE=$(video_node "$SERIAL")
uvcuse_start "$SERIAL" "$NAME"
for ((i = 0; i < 50; i++)); do [ -e "$KNODE" ] || break; sleep 0.1; done

# check_shared FILE FOURCC WxH COUNT PID: COUNT frames intact, in order;
# missing at most the frames the camera itself skipped in that stream
# ($DROPS, camera_drops) and those process PID was late for (no buffer
# queued: its own lateness, as with any driver; the daemon logs it when the
# process leaves a shared stream), plus 2. The daemon loses none.
check_shared() {
	local lost
	lost=$(since "process $5 left the stream" | tail -n 1 | sed -nE 's/.*, ([0-9]+) lost for want.*/\1/p')
	[ -n "$lost" ] || fail "the daemon did not log process $5 leaving the stream"
	framecheck "$1" "$2" "$3" --min-frames "$4" --max-missing $((DROPS + lost + 2)) |
		grep -E '^(frames (intact|damaged|missing)|verdict)' | tr '\n' ' ' |
		sed "s|^|  $(basename "$1"): |; s|\$|(camera skipped $DROPS, app late for $lost)\n|"
	rm -f "$1" # the guest's /tmp is its memory
}

# mark; since PATTERN: the daemon's log lines matching PATTERN since the mark.
mark() { MARK=$(wc -l <"$WORK/uvcuse.log"); }
since() { tail -n +$((MARK + 1)) "$WORK/uvcuse.log" | grep -E "$1"; }
# wait_log PATTERN [WHAT]: until the daemon logs PATTERN after the mark.
wait_log() {
	local i
	for ((i = 0; i < 300; i++)); do
		since "$1" >/dev/null && return 0
		sleep 0.1
	done
	fail "${2:-the daemon never logged: $1}"
}
# wait_streams N: until N processes stream at once (since the mark).
wait_streams() { wait_log "\(([$1-9]|[1-9][0-9]) processes streaming\)" "$1 processes never streamed at once"; }

# capture FOURCC COUNT NAME [V4L2-CTL OPTIONS...]: a v4l2-ctl MMAP capture of
# 640x480 through the library, in the background, into $WORK/NAME.raw (its
# output in NAME.log); its pid in BG.
capture() {
	local fourcc=$1 count=$2 name=$3
	shift 3
	"$RUN" v4l2-ctl -d "$NODE" --set-fmt-video="width=640,height=480,pixelformat=$fourcc" "$@" \
		--stream-mmap --stream-count="$count" --stream-to="$WORK/$name.raw" >"$WORK/$name.log" 2>&1 &
	BG=$!
}

# commits: the commits the vcam took so far.
commits() { grep -c '^.*commit: ' "$VLOG" || true; }

step "OpenCV (MMAP), ffmpeg (MMAP) and uvcuse-readcap (read()) at once, 300 frames each"
before=$(commits)
mark
camera_mark "$SERIAL"
# OpenCV first: Python and cv2 take several seconds to start under TCG; it
# reads 450 frames so that the three overlap for 300
"$RUN" "$SYSPY" "$(dirname "$0")/cv2_capture.py" "$NODE" "$WORK/cv2.yuyv" 450 >"$WORK/cv2.log" 2>&1 &
CV2=$!
wait_log 'streaming YUYV 640x480'
"$RUN" ffmpeg -hide_banner -loglevel error -nostdin -f v4l2 -input_format yuyv422 -video_size 640x480 \
	-i "$NODE" -frames:v 300 -fps_mode passthrough -f rawvideo "$WORK/ffmpeg.yuyv" \
	>"$WORK/ffmpeg.log" 2>&1 &
FFMPEG=$!
"$READCAP" "$NODE" 300 "$WORK/read.yuyv" >"$WORK/readcap.log" 2>&1 &
READ=$!
wait_streams 3
wait "$FFMPEG" || { cat "$WORK/ffmpeg.log"; fail "ffmpeg"; }
wait "$READ" || { cat "$WORK/readcap.log"; fail "uvcuse-readcap"; }
wait "$CV2" || { cat "$WORK/cv2.log"; fail "OpenCV"; }
wait_log 'stream stopped after'
DROPS=$(camera_drops "$SERIAL")
check_shared "$WORK/ffmpeg.yuyv" YUYV 640x480 300 "$FFMPEG"
check_shared "$WORK/read.yuyv" YUYV 640x480 300 "$READ"
check_shared "$WORK/cv2.yuyv" YUYV 640x480 450 "$CV2"
n=$(($(commits) - before))
echo "the vcam took $n commit(s) for the three; the daemon:"
since 'joins the stream|left the stream|stream stopped after' | sed "s/^/  /"
[ "$n" -eq 1 ] || fail "the camera was committed $n times for one shared stream"

step "YUYV and RGB24 640x480 at once; MJPEG 1920x1080 meanwhile: EBUSY"
mark
camera_mark "$SERIAL"
capture YUYV 150 yuyv
P1=$BG
wait_log 'streaming YUYV 640x480'
capture RGB3 150 rgb
P2=$BG
wait_log 'joins the stream as RGB3'
since 'joins the stream' | sed "s/^/  /"
out=$(v4l2-ctl -d "$NODE" --set-fmt-video=width=1920,height=1080,pixelformat=MJPG 2>&1) || true
echo "  MJPEG 1920x1080 while they stream: $out"
grep -q 'Device or resource busy' <<<"$out" || fail "S_FMT MJPEG 1920x1080 beside them: $out"
wait "$P1" || { cat "$WORK/yuyv.log"; fail "the YUYV capture"; }
wait "$P2" || { cat "$WORK/rgb.log"; fail "the RGB24 capture"; }
DROPS=$(camera_drops "$SERIAL")
check_shared "$WORK/yuyv.raw" YUYV 640x480 150 "$P1"
check_shared "$WORK/rgb.raw" RGB3 640x480 150 "$P2"
"$RUN" v4l2-ctl -d "$NODE" --set-fmt-video=width=1920,height=1080,pixelformat=MJPG \
	--stream-mmap --stream-count=20 --stream-to="$WORK/mjpeg.raw" >"$WORK/mjpeg.log" 2>&1 ||
	{ cat "$WORK/mjpeg.log"; fail "MJPEG 1920x1080 once they stopped"; }
framecheck "$WORK/mjpeg.raw" MJPEG 1920x1080 --min-frames 20 --max-missing 10 | grep -E '^verdict'
rm -f "$WORK/mjpeg.raw"

step "three v4l2-ctl, the first SIGKILLed: the other two go on without a gap"
# seq_gaps LOG FROM TO: the frames missing between consecutive V4L2
# sequence numbers of buffers stamped FROM..TO (v4l2-ctl --verbose lines),
# and how many buffers there were.
seq_gaps() {
	grep -oE 'seq: +[0-9]+ .*ts: [0-9]+\.[0-9]+' "$1" |
		awk -v from="$2" -v to="$3" '{ seq = $2; ts = $NF;
			if (ts >= from && ts <= to) { if (n++ && seq != prev + 1) gaps += seq - prev - 1; prev = seq } }
			END { print gaps + 0, n + 0 }'
}
mark
camera_mark "$SERIAL"
# the first one sets the camera's mode; it is the one killed, so it asks
# for more frames than it can get before the kill however slowly the
# others start (240 at 30 fps: one run ended before it)
for k in 1 2 3; do
	capture YUYV "$([ $k = 1 ] && echo 3600 || echo 240)" "kill-$k" --verbose
	eval "K$k=\$BG"
	[ $k = 1 ] && wait_log 'streaming YUYV 640x480'
done
wait_streams 3
sleep 2
# the buffers' timestamps are CLOCK_MONOTONIC (/proc/uptime is not)
kill_at=$(python3 -c 'import os, sys, time; print(time.monotonic()); os.kill(int(sys.argv[1]), 9)' "$K1")
wait "$K1" 2>/dev/null || true
wait "$K2" || { tail -n 5 "$WORK/kill-2.log"; fail "v4l2-ctl 2 after the kill"; }
wait "$K3" || { tail -n 5 "$WORK/kill-3.log"; fail "v4l2-ctl 3 after the kill"; }
DROPS=$(camera_drops "$SERIAL")
# around the kill, a survivor's sequence numbers skip only frames the camera
# skipped or the survivor was late for (none, mostly)
for k in 2 3; do
	pid_var=K$k
	lost=$(since "process ${!pid_var} left the stream" | sed -nE 's/.*, ([0-9]+) lost for want.*/\1/p')
	read -r gaps frames <<<"$(seq_gaps "$WORK/kill-$k.log" "$(echo "$kill_at - 1" | bc)" "$(echo "$kill_at + 2" | bc)")"
	echo "  v4l2-ctl $k: $frames buffers stamped from 1 s before the kill to 2 s after, $gaps sequence numbers skipped"
	# (the window is covered: fewer than 90 buffers means the camera skipped
	# frames under the load, which the checker counts below)
	[ "$frames" -ge 10 ] || { grep -m 5 'seq' "$WORK/kill-$k.log"; echo "killed at $kill_at"; fail "v4l2-ctl $k: only $frames buffers around the kill"; }
	[ "$gaps" -le $((DROPS + lost)) ] || fail "v4l2-ctl $k: $gaps sequence numbers skipped around the kill"
	check_shared "$WORK/kill-$k.raw" YUYV 640x480 240 "${!pid_var}"
done
since 'left the stream' | sed -n 1p | sed "s/^/  /"

step "a process scribbling on every buffer it maps: the others' frames intact"
mark
camera_mark "$SERIAL"
capture YUYV 150 beside
P1=$BG
"$READCAP" "$NODE" 150 "$WORK/beside-read.yuyv" >"$WORK/beside-read.log" 2>&1 &
P2=$!
wait_streams 2
"$RUN" "$SYSPY" "$CLIENT" garbage "$NODE" 3 || fail "the garbage writer"
wait "$P1" || { cat "$WORK/beside.log"; fail "v4l2-ctl beside the garbage writer"; }
wait "$P2" || { cat "$WORK/beside-read.log"; fail "readcap beside the garbage writer"; }
DROPS=$(camera_drops "$SERIAL")
check_shared "$WORK/beside.raw" YUYV 640x480 150 "$P1"
check_shared "$WORK/beside-read.yuyv" YUYV 640x480 150 "$P2"

step "--exclusive: one process at a time, as uvcvideo"
uvcuse_stop "$NAME"
uvcuse_start "$SERIAL" "$NAME" --exclusive --no-convert
mark
"$RUN" v4l2-ctl -d "$NODE" --stream-mmap --stream-count=300 --stream-to=/dev/null >"$WORK/excl.log" 2>&1 &
P1=$!
wait_log 'streaming YUYV'
# (v4l2-ctl exits 0 whatever its streaming ioctls answered)
out=$("$RUN" v4l2-ctl -d "$NODE" --stream-mmap --stream-count=5 --stream-to=/dev/null 2>&1)
kill -0 "$P1" 2>/dev/null || fail "the owner under --exclusive ended before the second process tried"
grep -q 'Device or resource busy' <<<"$out" || fail "a second process under --exclusive: $out"
echo "  a second process: $(grep -m1 'busy' <<<"$out")"
kill -TERM "$P1"
wait "$P1" || true
# -s -f streams every format, size and interval: the camera's own ones
# (the converted ones stream the same way: daemon-apps, daemon-bulk)
"$RUN" v4l2-compliance -d "$NODE" -s -f >"$WORK/compliance-excl.log" 2>&1 || true
grep -E '^Total' "$WORK/compliance-excl.log"
grep -qE '^Total.*Failed: 0,' "$WORK/compliance-excl.log" ||
	{ cat "$WORK/compliance-excl.log"; fail "v4l2-compliance -s -f under --exclusive"; }

kill -0 "$UVCUSE_PID" || fail "uvcuse died"
uvcuse_stop "$NAME"
echo
echo "daemon-share: $STEPS steps passed"
