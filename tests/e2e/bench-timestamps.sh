#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Timestamps against the truth (scripts/bench): the virtual camera's clock
# runs 100 ppm fast with 200 us of jitter on its SCR samples and stamps
# each frame with its true exposure (CLOCK_MONOTONIC in this guest). Four
# lanes take turns on one camera, ROUNDS rounds: uvcvideo with
# hwtimestamps=0 and =1, uvcuse --no-camera-clock and uvcuse (its camera
# clock, the default). The client is uvcuse-streambench (MMAP, poll); each
# buffer's timestamp minus the frame's true exposure is its error, and each
# interval between two timestamps minus the true interval its jitter.
# Prints per lane and round: error p50, p99, max (ms); interval jitter rms
# and p99 of its magnitude (ms); then the medians over the rounds.
# Usage (in the guest): bench-timestamps.sh BUILD_DIR [ROUNDS] [FRAMES]
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
ROUNDS=${2:-3}
FRAMES=${3:-300}
SERIAL=BENCHT
NAME=video10
SB=$BUILD/tests/tools/uvcuse-streambench
HW=/sys/module/uvcvideo/parameters/hwtimestamps
RES=$WORK/results # lines: LANE ROUND P50 P99 MAX RMS JP99

load_modules vhci-hcd uvcvideo cuse
[ -w "$HW" ] || fail "no $HW"

# measure LANE ROUND NODE: stream FRAMES frames, record the figures
measure() {
	local lane=$1 round=$2 node=$3
	"$UVCUSE_RUN" "$SB" "$node" -f YUYV -s 640x480 -r 30 -n "$FRAMES" -o "$WORK/f.raw" \
		-T "$WORK/stamps.txt" >/dev/null || fail "$lane: streambench"
	"$FRAMECHECK" "$WORK/f.raw" --format YUYV --size 640x480 --verbose >"$WORK/check.txt" ||
		fail "$lane: frames damaged"
	rm -f "$WORK/f.raw"
	# frame N's true exposure (t=) beside its timestamp (line N+1); the
	# first 60 frames left out: every lane's clock has settled by then
	awk -v lane="$lane" -v round="$round" '
		NR == FNR { ts[NR - 1] = $1; next }
		/^frame [0-9]+: seq=[0-9]+ t=/ { i = $2 + 0; split($4, a, "="); t = a[2] + 0
			if (i >= 60) { err[n++] = (ts[i] - t) / 1e6
				if ((i - 1) in tt) { j = ((ts[i] - ts[i - 1]) - (t - tt[i - 1])) / 1e6
					jit[m++] = j < 0 ? -j : j; sq += j * j } }
			tt[i] = t }
		function sort(v, k,   i, j, x) { for (i = 1; i < k; i++) { x = v[i]
			for (j = i - 1; j >= 0 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x } }
		END { if (n < 2 || m < 2) exit 1; sort(err, n); sort(jit, m)
			printf "%s %s %.3f %.3f %.3f %.3f %.3f\n", lane, round, err[int(n * 0.5)],
				err[int(n * 0.99)], err[n - 1], sqrt(sq / m), jit[int(m * 0.99)] }' \
		"$WORK/stamps.txt" "$WORK/check.txt" >>"$RES" || fail "$lane: no timestamps to judge"
	tail -n 1 "$RES"
}

vcam_start "$SERIAL" --clock-ppm 100 --clock-jitter-us 200
knode=$(video_node "$SERIAL")
step "lanes: error p50 p99 max, interval jitter rms p99 (ms), $FRAMES frames each"
for ((r = 1; r <= ROUNDS; r++)); do
	for hw in 0 1; do
		echo "$hw" >"$HW"
		measure "uvcvideo-hw$hw" "$r" "$knode"
	done
	echo 0 >"$HW"
	# uvcvideo's hardware timestamps go through the host controller's frame
	# number; what vhci-hcd answers for it:
	[ "$r" = 1 ] && echo "vhci-hcd: $(dmesg | grep -m 1 -iE 'vhci.*not yet implemented|not yet implemented' ||
		echo 'no complaint in the kernel log')"
	uvcuse_start "$SERIAL" "$NAME" --no-camera-clock
	measure uvcuse-soe "$r" "/dev/$NAME"
	uvcuse_stop "$NAME" >/dev/null
	uvcuse_start "$SERIAL" "$NAME"
	measure uvcuse-clock "$r" "/dev/$NAME"
	uvcuse_stop "$NAME" >/dev/null
	knode=$(video_node "$SERIAL")
done

echo "== results (medians over $ROUNDS rounds, ms)"
printf '| %-14s | %9s | %9s | %9s | %11s | %11s |\n' lane "error p50" "error p99" "error max" \
	"jitter rms" "jitter p99"
for lane in uvcvideo-hw0 uvcvideo-hw1 uvcuse-soe uvcuse-clock; do
	awk -v lane="$lane" '
		function med(c,   k, i, j, x, v) { k = 0
			for (i = 0; i < n; i++) v[k++] = row[i, c]
			for (i = 1; i < k; i++) { x = v[i]; for (j = i - 1; j >= 0 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
			return v[int(k / 2)] }
		BEGIN { n = 0 }
		$1 == lane { for (c = 3; c <= 7; c++) row[n, c] = $c; n++ }
		END { printf "| %-14s | %9.3f | %9.3f | %9.3f | %11.3f | %11.3f |\n", lane,
			med(3), med(4), med(5), med(6), med(7) }' "$RES"
done
