#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Replug soak (issue 13): CYCLES unplugs and replugs of the camera while one
# process streams (v4l2-ctl, MMAP through the library). Each cycle: the
# vcam unplugs (SIGUSR1), the daemon sees it, the vcam comes back 1 s later
# (SIGUSR2), the daemon takes it back, and the app's frames resume with a
# jump in their sequence numbers. After the reference cycle (10, or half
# the cycles when fewer than 20: CI's 10 compare cycle 5 with cycle 10)
# and after the last, the daemon's RSS and open fds: the last must be
# within 10 % of the reference's.
# Then the app stops and a capture from the same daemon passes
# uvcuse-framecheck, with the brightness set before the first unplug.
# Runs under tests/vm/run --systemd (udevd tells the daemon of the replug).
# scripts/soak --replug N runs it by hand; CI runs 10 cycles.
# Usage (in the guest): soak-replug.sh BUILD_DIR CYCLES
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
CYCLES=${2:?usage: soak-replug.sh BUILD_DIR CYCLES}
[ "$CYCLES" -ge 10 ] || fail "CYCLES must be 10 or more"
REF_CYCLE=$((CYCLES >= 20 ? 10 : CYCLES / 2))
[ -d /run/systemd/system ] || fail "needs tests/vm/run --systemd (udevd tells the daemon of a replug)"
SERIAL=SOAKPLUG
NODE=/dev/video10
SHOW_LOGS=failure
load_modules vhci-hcd uvcvideo cuse
vcam_start "$SERIAL" --profile default
VCAM=${VCAM_PIDS[-1]}
video_node "$SERIAL" >/dev/null
uvcuse_start "$SERIAL" video10 --state-dir "$WORK/state"
v4l2-ctl -d "$NODE" -c brightness=40 || fail "brightness"

# count PATTERN FILE: lines of FILE matching PATTERN
count() { grep -c -- "$1" "$2" || true; }
# frames_seen: the frames the app has dequeued so far
frames_seen() { tr '\r' '\n' <"$WORK/app.log" | count 'seq:' /dev/stdin; }
# app_state: what the app is doing (its threads' wait channels and system
# calls, its last lines) and what the daemon says (LOG_STATUS)
app_state() {
	local t
	for t in /proc/"$APP"/task/*; do echo "app thread ${t##*/}: $(cat "$t/wchan") $(cat "$t/syscall")"; done
	tr '\r' '\n' <"$WORK/app.log" | tail -n 3
	timeout 10 v4l2-ctl -d "$NODE" --log-status 2>&1 | grep -E 'streaming:|frames:|transfers:|camera:'
}
# wait_for WHAT TIMEOUT_S COMMAND...: COMMAND succeeds within the timeout
wait_for() {
	local what=$1 timeout=$2 i
	shift 2
	for ((i = 0; i < timeout * 10; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	app_state
	fail "cycle $cycle: $what not within ${timeout}s"
}
log_has() { [ "$(count "$1" "$WORK/uvcuse.log")" -ge "$2" ]; }
frames_after() { [ "$(frames_seen)" -gt "$1" ]; }

step "one app streams; $CYCLES unplugs and replugs"
"$UVCUSE_RUN" v4l2-ctl -d "$NODE" --set-fmt-video=width=640,height=480,pixelformat=YUYV \
	--set-parm=30 --stream-mmap --stream-to=/dev/null --verbose >"$WORK/app.log" 2>&1 &
APP=$!
cycle=0
wait_for "the first frames" 20 frames_after 30
t0=$(date +%s)
for ((cycle = 1; cycle <= CYCLES; cycle++)); do
	kill -USR1 "$VCAM"
	wait_for "the daemon seeing the unplug" 10 log_has "camera unplugged" "$cycle"
	sleep 1
	kill -USR2 "$VCAM"
	wait_for "the daemon taking the camera back" 30 log_has "camera back after" "$cycle"
	seen=$(frames_seen)
	wait_for "frames after the replug" 15 frames_after "$seen"
	kill -0 "$APP" 2>/dev/null || fail "cycle $cycle: the app ended: $(tail -n 3 "$WORK/app.log")"
	if [ "$cycle" = "$REF_CYCLE" ]; then
		rss_ref=$(rss_kib)
		fds_ref=$(fd_count)
		echo "after cycle $cycle (the reference): RSS $rss_ref KiB, $fds_ref fds, $(frames_seen) frames"
	fi
	if ((cycle % 10 == 0)); then
		echo "cycle $cycle: RSS $(rss_kib) KiB, $(fd_count) fds, $(frames_seen) frames, $(($(date +%s) - t0)) s"
	fi
done
rss=$(rss_kib)
fds=$(fd_count)
echo "after cycle $CYCLES: RSS $rss KiB, $fds fds"
awk -v a="$rss" -v b="$rss_ref" 'BEGIN { exit !(a <= b * 1.1 && a >= b * 0.9) }' ||
	fail "RSS $rss KiB after cycle $CYCLES, $rss_ref KiB after cycle $REF_CYCLE"
awk -v a="$fds" -v b="$fds_ref" 'BEGIN { exit !(a <= b * 1.1 && a >= b * 0.9) }' ||
	fail "$fds fds after cycle $CYCLES, $fds_ref after cycle $REF_CYCLE"
grep -c "restored 1 of 1 saved controls" "$WORK/uvcuse.log" | grep -qx "$CYCLES" ||
	fail "brightness not restored at every replug"
# the sequence numbers the app saw jumped once per cycle (a replug), and
# never went back
tr '\r' '\n' <"$WORK/app.log" | sed -nE 's/.*seq: *([0-9]+).*/\1/p' |
	awk -v n="$CYCLES" 'NR > 1 && $1 <= p { back++ } NR > 1 && $1 - p > 15 { jumps++ } { p = $1 }
		END { printf "sequence jumps: %d, steps back: %d\n", jumps, back; exit !(back == 0 && jumps >= n) }' ||
	fail "the sequence numbers did not jump once per replug, or went back"

step "the app stops; a capture from the same daemon passes the checker"
kill -TERM "$APP" # (a background job of a script ignores SIGINT)
if ! timeout 20 tail --pid="$APP" -f /dev/null; then
	app_state
	fail "the app did not stop"
fi
wait "$APP" || true
"$UVCUSE_RUN" v4l2-ctl -d "$NODE" --stream-mmap --stream-count=60 --stream-to="$WORK/after.yuyv" ||
	fail "capture after the soak"
framecheck "$WORK/after.yuyv" YUYV 640x480 --min-frames 60 --max-missing 6 --expect-brightness 40 |
	grep -E '^(frames|mean luma|verdict)'
uvcuse_stop video10
echo "PASS: $STEPS steps"
