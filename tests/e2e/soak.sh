#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Soak (issue 12): one daemon streams for MINUTES with app churn, and must
# not grow. Each round: an MMAP app through the preload library (the
# format and size change every round, raw, MJPEG and converted) while
# another process changes controls; read() in a converted format; USERPTR
# through the library; an app SIGKILLed while it streams; a few
# open/query/close apps. Every captured frame goes through
# uvcuse-framecheck. Between rounds, with no app running, the daemon's
# RSS and open fds are sampled; once a minute a line shows them with
# LOG_STATUS's counters.
# Fails on a damaged frame, a dead daemon, an fd count above the one after
# the warm-up (a round in each format), or an RSS more than 10 %
# above the largest of the first quarter's samples.
# Usage (in the guest): soak.sh BUILD_DIR MINUTES [FORMATS]
#   FORMATS: how many of the round formats below to cycle through (default
#   all 8; CI's short soak takes the first 3: raw, MJPEG, and a format
#   converted from the raw one, a shorter warm-up)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
MINUTES=${2:?usage: soak.sh BUILD_DIR MINUTES}
SOAK_S=$(awk -v m="$MINUTES" 'BEGIN { printf "%d", m * 60 }') # (MINUTES may be 0.5)
SERIAL=SOAK
NODE=/dev/video10
SHOW_LOGS=failure

load_modules vhci-hcd uvcvideo cuse
vcam_start "$SERIAL" --profile default
video_node "$SERIAL" >/dev/null
uvcuse_start "$SERIAL" video10

# The formats an MMAP round cycles through: FOURCC WxH (converted ones too).
MMAP_FORMATS=("YUYV 640x480" "MJPG 1280x720" "RGB3 640x480" "YU12 1280x720" "YUYV 1280x720"
	"BGR3 640x480" "MJPG 640x480" "YV12 640x480")
MMAP_FORMATS=("${MMAP_FORMATS[@]:0:${3:-${#MMAP_FORMATS[@]}}}")
CONTROLS=(brightness contrast saturation gamma)


# check FILE FOURCC WxH COUNT: every frame intact and in order. Frames the
# app missed (late with its buffers on a busy host: V4L2 drops a frame
# when no buffer is queued) are counted, not bounded: the soak is about
# growth and damage, daemon-apps and the benchmarks about rates.
FRAMES_MISSED=0
FRAMES_CHECKED=0
check() {
	local out
	out=$("$FRAMECHECK" "$1" --format "$2" --size "$3" --min-frames "$4" --max-missing 1000000 2>&1) ||
		{ echo "$out"; fail "round $ROUND: frame check of $2 $3"; }
	FRAMES_CHECKED=$((FRAMES_CHECKED + $(sed -nE 's/^frames intact: *([0-9]+).*/\1/p' <<<"$out")))
	FRAMES_MISSED=$((FRAMES_MISSED + $(sed -nE 's/^frames missing: *([0-9]+).*/\1/p' <<<"$out")))
	rm -f "$1"
}

# The daemon's LOG_STATUS counters (its last line in the log).
log_status() {
	v4l2-ctl -d "$NODE" --log-status >/dev/null || fail "LOG_STATUS"
	grep -oE 'frames: [0-9]+, with errors: [0-9]+, dropped: [0-9]+' "$WORK/uvcuse.log" | tail -n 1
}

round() {
	local spec=${MMAP_FORMATS[$((ROUND % ${#MMAP_FORMATS[@]}))]} fourcc size ctl pid i
	read -r fourcc size <<<"$spec"
	# MMAP through the library, controls changed from another process meanwhile
	"$UVCUSE_RUN" v4l2-ctl -d "$NODE" --set-fmt-video="width=${size%x*},height=${size#*x},pixelformat=$fourcc" \
		--set-parm=15 --stream-mmap --stream-count=30 --stream-to="$WORK/mmap.raw" >"$WORK/mmap.log" 2>&1 &
	pid=$!
	for ((i = 0; i < 6; i++)); do
		ctl=${CONTROLS[$(((ROUND + i) % ${#CONTROLS[@]}))]}
		v4l2-ctl -d "$NODE" -c "$ctl=$((RANDOM % 64 + 8))" 2>&1 | grep . && fail "round $ROUND: setting $ctl"
		sleep 0.2
	done
	wait "$pid" || { cat "$WORK/mmap.log"; fail "round $ROUND: MMAP capture of $spec"; }
	check "$WORK/mmap.raw" "$fourcc" "$size" 30

	# read() in a converted format
	v4l2-ctl -d "$NODE" --set-fmt-video=width=640,height=480,pixelformat=RGB3 --set-parm=15 ||
		fail "round $ROUND: S_FMT RGB3"
	"$READCAP" "$NODE" 15 "$WORK/read.raw" >/dev/null || fail "round $ROUND: read()"
	check "$WORK/read.raw" RGB3 640x480 15

	# USERPTR through the library
	"$UVCUSE_RUN" v4l2-ctl -d "$NODE" --set-fmt-video=width=640,height=480,pixelformat=YUYV \
		--stream-user --stream-count=20 --stream-to="$WORK/user.raw" >"$WORK/user.log" 2>&1 ||
		{ cat "$WORK/user.log"; fail "round $ROUND: USERPTR capture"; }
	check "$WORK/user.raw" YUYV 640x480 20

	# an app killed while it streams
	"$UVCUSE_RUN" v4l2-ctl -d "$NODE" --stream-mmap --stream-count=100000 >/dev/null 2>&1 &
	pid=$!
	sleep 1.5
	kill -KILL "$pid" 2>/dev/null || fail "round $ROUND: the app to kill had already ended"
	wait "$pid" 2>/dev/null || true

	# apps that open, query and close
	for ((i = 0; i < 3; i++)); do
		v4l2-ctl -d "$NODE" --all >/dev/null || fail "round $ROUND: v4l2-ctl --all"
	done
	kill -0 "$UVCUSE_PID" 2>/dev/null || fail "round $ROUND: uvcuse died"
}

# idle_sample: RSS and fds once the daemon has seen every file closed.
idle_sample() {
	local i
	for ((i = 0; i < 20; i++)); do
		SAMPLE_FDS=$(fd_count)
		[ -z "${FD_BASE:-}" ] || [ "$SAMPLE_FDS" -le "$FD_BASE" ] && break
		sleep 0.1 # a release still on its way
	done
	SAMPLE_RSS=$(rss_kib)
}

step "warm-up: a round in each format (every path, every converter), then the baseline"
# (the first use of a format sizes buffers and the converting threads'
# heaps: a high-water mark, not growth)
for ((ROUND = 0; ROUND < ${#MMAP_FORMATS[@]}; ROUND++)); do
	round
	idle_sample
	echo "round $ROUND (${MMAP_FORMATS[$ROUND]}): RSS $SAMPLE_RSS KiB, $SAMPLE_FDS fds"
done
ROUND=$((ROUND - 1))
FD_BASE=$SAMPLE_FDS
echo "after the warm-up: RSS $SAMPLE_RSS KiB, $FD_BASE fds"

step "soak: $MINUTES minutes of rounds"
START=$SECONDS
END=$((START + SOAK_S))
QUARTER=$((START + SOAK_S / 4))
RSS_REF=$SAMPLE_RSS
NEXT_REPORT=$((START + 60))
while [ $SECONDS -lt $END ]; do
	ROUND=$((ROUND + 1))
	round
	idle_sample
	[ "$SAMPLE_FDS" -le "$FD_BASE" ] || { ls -l "/proc/$UVCUSE_PID/fd"; fail "round $ROUND: $SAMPLE_FDS fds open, $FD_BASE after the warm-up"; }
	if [ $SECONDS -le $QUARTER ] && [ "$SAMPLE_RSS" -gt "$RSS_REF" ]; then
		RSS_REF=$SAMPLE_RSS
	fi
	if [ $SECONDS -ge $NEXT_REPORT ] || [ $SECONDS -ge $END ]; then
		MINUTE=$(((SECONDS - START + 30) / 60))
		NEXT_REPORT=$((SECONDS + 60 - (SECONDS - START) % 60))
		echo "minute $MINUTE: round $ROUND, RSS $SAMPLE_RSS KiB, fds $SAMPLE_FDS, frames intact $FRAMES_CHECKED (missed by the apps $FRAMES_MISSED), $(log_status)"
	fi
	if [ $SECONDS -gt $QUARTER ] && [ "$SAMPLE_RSS" -gt $((RSS_REF * 110 / 100)) ]; then
		fail "round $ROUND: RSS $SAMPLE_RSS KiB, more than 10 % above $RSS_REF KiB (the first quarter's largest)"
	fi
done

step "after $ROUND rounds"
idle_sample
echo "RSS $SAMPLE_RSS KiB (first quarter's largest $RSS_REF KiB), fds $SAMPLE_FDS (after the warm-up $FD_BASE)"
echo "frames checked intact: $FRAMES_CHECKED, missed by the apps: $FRAMES_MISSED; daemon: $(log_status)"
grep -E 'frames: [0-9]+, with errors: 0,' <<<"$(log_status)" >/dev/null ||
	fail "the daemon counted frames with errors from a camera that sent none"
uvcuse_stop video10
echo "PASS: $ROUND rounds in $((SECONDS - START)) s"
