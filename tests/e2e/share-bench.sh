#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What each extra process on a shared camera costs the daemon (scripts/bench):
# the daemon's CPU time per camera frame with one app streaming, then with
# three, alternating, ROUNDS rounds; YUYV 640x480 at 30 fps, each app a
# v4l2-ctl MMAP capture through the library into /dev/null. The reference is
# the one-app figure of the same round: each extra process costs a copy of
# every frame (600 KiB here), which the ratio shows.
# Usage (in the guest): share-bench.sh BUILD_DIR [ROUNDS] [FRAMES]
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
ROUNDS=${2:-3}
FRAMES=${3:-300}
SERIAL=BENCH
NAME=video10
NODE=/dev/$NAME

load_modules vhci-hcd uvcvideo cuse
vcam_start "$SERIAL" --profile default
video_node "$SERIAL" >/dev/null
uvcuse_start "$SERIAL" "$NAME"

# cpu_ns: the daemon's CPU time so far, every thread (schedstat: ns on CPU).
cpu_ns() { cat /proc/"$UVCUSE_PID"/task/*/schedstat | awk '{ s += $1 } END { printf "%.0f", s }'; }

# per_frame APPS: APPS captures at once; prints the daemon's CPU µs per
# camera frame over that stream (from its "stream stopped after N frames").
per_frame() {
	local apps=$1 pids=() i before after frames stops
	stops=$(grep -c 'stream stopped after' "$WORK/uvcuse.log" || true)
	before=$(cpu_ns)
	for ((i = 0; i < apps; i++)); do
		"$UVCUSE_RUN" v4l2-ctl -d "$NODE" --set-fmt-video=width=640,height=480,pixelformat=YUYV \
			--stream-mmap --stream-count="$FRAMES" --stream-to=/dev/null >/dev/null 2>&1 &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do wait "$pid" || fail "a capture failed"; done
	for ((i = 0; i < 30; i++)); do
		[ "$(grep -c 'stream stopped after' "$WORK/uvcuse.log")" -gt "$stops" ] && break
		sleep 0.1
	done
	[ "$(grep -c 'stream stopped after' "$WORK/uvcuse.log")" -gt "$stops" ] || fail "the stream did not stop"
	after=$(cpu_ns)
	frames=$(grep 'stream stopped after' "$WORK/uvcuse.log" | tail -n 1 | sed -E 's/.*after ([0-9]+) frames.*/\1/')
	awk -v c=$((after - before)) -v f="$frames" 'BEGIN { printf "%.0f", c / 1000 / f }'
}

step "the daemon's CPU per camera frame: one app, then three at once, $ROUNDS rounds of $FRAMES frames"
ratios=()
for ((r = 1; r <= ROUNDS; r++)); do
	one=$(per_frame 1)
	three=$(per_frame 3)
	ratio=$(awk -v a="$three" -v b="$one" 'BEGIN { printf "%.2f", a / b }')
	ratios+=("$ratio")
	echo "round $r: one app $one µs per frame, three apps $three µs per frame: ${ratio}x"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
echo "median ratio, three apps against one: ${median}x"
uvcuse_stop "$NAME"
