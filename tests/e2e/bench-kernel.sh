#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# uvcuse against uvcvideo on the same virtual camera in one boot
# (scripts/bench): the two drivers take turns, ROUNDS rounds, each round
# uvcvideo, then uvcuse with the preload library's fast path, then uvcuse
# through CUSE alone (UVCUSE_FASTPATH=0); uvcuse takes the camera from
# uvcvideo and gives it back when it exits. The client is the same MMAP
# streamer (uvcuse-streambench: poll, DQBUF, QBUF) for every lane. Each
# figure is printed per round, then the median of the per-round ratios to
# uvcvideo's. Rows:
#  - rate: unpaced camera (uvcuse-vcam --unpaced), 1280x720 YUYV and
#    1920x1080 MJPEG, frames per second;
#  - cpu: guest CPU per frame, paced 30 fps, 1920x1080 MJPEG and 640x480
#    YUYV, with the camera's own process subtracted (/proc/stat, /proc/PID/stat);
#    of it, the app's own (getrusage) and the daemon's (schedstat);
#  - dqbuf/qbuf: the calls' cost (DQBUF timed after poll said ready), p50;
#  - latency: camera stamp to DQBUF return, p50 and p99 (uvcuse-framecheck --times);
#  - requests per frame through CUSE and the fast path, and copies per frame
#    (bytes assembled plus bytes copied after, over bytes assembled: 1.00 is
#    the one copy from the USB transfer into the app's buffer) (LOG_STATUS);
#  - read(): 1920x1080 YUYV unpaced with read() against the MMAP rate;
#  - idle: the daemon's context switches per second with no app, an app
#    holding the node open, and after a stream stopped (10 s each).
# Usage (in the guest): bench-kernel.sh BUILD_DIR [ROUNDS]
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
ROUNDS=${2:-3}
SERIAL=BENCHK
NAME=video10
NODE=/dev/$NAME
SB=$BUILD/tests/tools/uvcuse-streambench
SHOW_LOGS=failure
RES=$WORK/results # lines: ROW LANE ROUND VALUE

load_modules vhci-hcd uvcvideo cuse

HZ=$(getconf CLK_TCK)

record() { echo "$1 $2 $3 $4" >>"$RES"; }

# node_of LANE: the node the lane streams from
node_of() {
	case $1 in
	kernel) video_node "$SERIAL" ;;
	*) echo "$NODE" ;;
	esac
}

# runner LANE: the command prefix for the lane's client
lane_start() {
	case $1 in
	kernel) video_node "$SERIAL" >/dev/null ;;
	fast | cuse) uvcuse_start "$SERIAL" "$NAME" ;;
	esac
}
lane_stop() {
	case $1 in
	kernel) ;;
	fast | cuse)
		uvcuse_stop "$NAME" >/dev/null
		video_node "$SERIAL" >/dev/null # uvcvideo has the camera back
		;;
	esac
}
lane_run() {
	local lane=$1
	shift
	case $lane in
	kernel) "$@" ;;
	fast) "$UVCUSE_RUN" "$@" ;;
	cuse) UVCUSE_FASTPATH=0 "$UVCUSE_RUN" "$@" ;;
	esac
}

# requests LANE ROUND FRAMES: the daemon's requests per frame since its start
requests() {
	local lane=$1 round=$2 frames=$3 line
	[ "$lane" = kernel ] && return 0
	v4l2-ctl -d "$NODE" --log-status >/dev/null
	sleep 0.3
	line=$(grep 'requests: ' "$WORK/uvcuse.log" | tail -n 1)
	record "cuse-requests-per-frame" "$lane" "$round" \
		"$(awk -v l="$line" -v f="$frames" 'BEGIN { split(l, a, "requests: "); split(a[2], b, " "); printf "%.2f", b[1] / f }')"
	record "fast-requests-per-frame" "$lane" "$round" \
		"$(awk -v l="$line" -v f="$frames" 'BEGIN { split(l, a, "through CUSE, "); split(a[2], b, " "); printf "%.2f", b[1] / f }')"
	record "ring-dqbufs-per-frame" "$lane" "$round" \
		"$(awk -v l="$line" -v f="$frames" 'BEGIN { split(l, a, "and "); split(a[2], b, " "); printf "%.2f", b[1] / f }')"
	record "posted-qbufs-per-frame" "$lane" "$round" \
		"$(awk -v l="$line" -v f="$frames" 'BEGIN { split(l, a, "rings, "); split(a[2], b, " "); printf "%.2f", b[1] / f }')"
	record "copies-per-frame" "$lane" "$round" \
		"$(grep 'copies: ' "$WORK/uvcuse.log" | tail -n 1 | sed -E 's/.*copies: ([0-9.]+) per frame.*/\1/')"
}

step "phase 1: unpaced camera (rates), $ROUNDS rounds"
vcam_start "$SERIAL" --profile usb3 --unpaced
video_node "$SERIAL" >/dev/null
for ((r = 1; r <= ROUNDS; r++)); do
	for lane in kernel fast cuse; do
		lane_start "$lane"
		node=$(node_of "$lane")
		lane_run "$lane" "$SB" "$node" -f YUYV -s 1280x720 -n 120 >"$WORK/o" || fail "$lane 720p YUYV"
		record rate-720p-yuyv "$lane" "$r" "$(field rate "$WORK/o")"
		lane_run "$lane" "$SB" "$node" -f MJPG -s 1920x1080 -n 120 >"$WORK/o" || fail "$lane 1080p MJPEG"
		record rate-1080p-mjpeg "$lane" "$r" "$(field rate "$WORK/o")"
		if [ "$lane" = fast ]; then
			lane_run "$lane" "$SB" "$node" -f YUYV -s 1920x1080 -n 40 >"$WORK/o" || fail "1080p YUYV mmap"
			record mmap-1080p-yuyv uvcuse "$r" "$(field rate "$WORK/o")"
			"$READCAP" "$node" 40 /dev/null >"$WORK/o" || fail "1080p YUYV read()"
			record read-1080p-yuyv uvcuse "$r" "$(field rate "$WORK/o")"
		fi
		lane_stop "$lane"
	done
	echo "round $r done"
done
vcam_stop_last

step "phase 2: paced camera (CPU, calls, latency), $ROUNDS rounds"
vcam_start "$SERIAL" --profile usb3
video_node "$SERIAL" >/dev/null
VCAM_PID=${VCAM_PIDS[-1]}
# daemon_ns: the daemon's CPU time so far, every thread (schedstat), 0 without one
daemon_ns() {
	if [ -n "$UVCUSE_PID" ]; then
		cat /proc/"$UVCUSE_PID"/task/*/schedstat | awk '{ s += $1 } END { printf "%.0f", s }'
	else
		echo 0
	fi
}
# cpu_run LANE ROUND ROW ARGS...: guest CPU per frame, the camera's excluded
cpu_run() {
	local lane=$1 round=$2 row=$3 b0 v0 b1 v1 n d0
	shift 3
	node=$(node_of "$lane")
	b0=$(jiffies_busy)
	v0=$(proc_jiffies "$VCAM_PID")
	d0=$(daemon_ns)
	lane_run "$lane" "$SB" "$node" "$@" >"$WORK/o" || fail "$lane $row"
	b1=$(jiffies_busy)
	v1=$(proc_jiffies "$VCAM_PID")
	n=$(field frames "$WORK/o")
	record "cpu-$row" "$lane" "$round" \
		"$(awk -v b=$((b1 - b0 - v1 + v0)) -v n="$n" -v hz="$HZ" 'BEGIN { printf "%.0f", b / hz * 1e6 / n }')"
	record "app-cpu-$row" "$lane" "$round" "$(field 'app cpu per frame' "$WORK/o")"
	[ "$lane" = kernel ] || record "daemon-cpu-$row" "$lane" "$round" \
		"$(awk -v d=$(($(daemon_ns) - d0)) -v n="$n" 'BEGIN { printf "%.0f", d / 1000 / n }')"
	record "dqbuf-p50-$row" "$lane" "$round" "$(field 'dqbuf p50' "$WORK/o")"
	record "qbuf-p50-$row" "$lane" "$round" "$(field 'qbuf p50' "$WORK/o")"
}
for ((r = 1; r <= ROUNDS; r++)); do
	for lane in kernel fast cuse; do
		lane_start "$lane"
		cpu_run "$lane" "$r" 1080p-mjpeg -f MJPG -s 1920x1080 -r 30 -n 240
		cpu_run "$lane" "$r" 480p-yuyv -f YUYV -s 640x480 -r 30 -n 240
		requests "$lane" "$r" 480
		node=$(node_of "$lane")
		lane_run "$lane" "$SB" "$node" -f YUYV -s 640x480 -r 30 -n 90 -o "$WORK/f" -t "$WORK/t" >/dev/null ||
			fail "$lane latency capture"
		"$FRAMECHECK" "$WORK/f" --format YUYV --size 640x480 --times "$WORK/t" >"$WORK/fc" ||
			fail "$lane: frames not intact"
		record latency-p50 "$lane" "$r" "$(field 'latency p50' "$WORK/fc")"
		record latency-p99 "$lane" "$r" "$(field 'latency p99' "$WORK/fc")"
		rm -f "$WORK/f"
		lane_stop "$lane"
	done
	echo "round $r done"
done

step "idle: the daemon's context switches per second (10 s each)"
ctxt() { awk '/ctxt_switches/ { s += $2 } END { print s }' "/proc/$UVCUSE_PID/status"; }
idle_rate() {
	local a b
	a=$(ctxt)
	sleep 10
	b=$(ctxt)
	awk -v d=$((b - a)) 'BEGIN { printf "%.1f", d / 10 }'
}
uvcuse_start "$SERIAL" "$NAME"
sleep 1
record idle-no-app uvcuse 1 "$(idle_rate)"
exec {hold}<"$NODE"
record idle-open uvcuse 1 "$(idle_rate)"
exec {hold}<&-
"$UVCUSE_RUN" "$SB" "$NODE" -f YUYV -s 640x480 -n 30 >/dev/null || fail "stream before idle"
sleep 1
record idle-after-stream uvcuse 1 "$(idle_rate)"
uvcuse_stop "$NAME" >/dev/null

step "results (median of the rounds; ratio: the median of per-round ratios to uvcvideo)"
awk '
function median(arr, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && arr[j - 1] > arr[j]; j--) { t = arr[j]; arr[j] = arr[j - 1]; arr[j - 1] = t }
	return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
}
{ v[$1, $2, $3] = $4; rows[$1] = 1; if (!($1 in order)) { order[$1] = ++nr; names[nr] = $1 } lanes[$2] = 1; if ($3 > maxr) maxr = $3 }
END {
	printf "%-26s %10s %10s %10s %9s %9s\n", "row", "uvcvideo", "fast path", "CUSE only", "fast/kern", "CUSE/kern"
	for (i = 1; i <= nr; i++) {
		row = names[i]
		for (li = 1; li <= 3; li++) {
			lane = li == 1 ? "kernel" : li == 2 ? "fast" : "cuse"
			n = 0; m = 0
			for (r = 1; r <= maxr; r++) if ((row, lane, r) in v) a[++n] = v[row, lane, r]
			med[lane] = n ? median(a, n) : "-"
			for (r = 1; r <= maxr; r++) if ((row, lane, r) in v && (row, "kernel", r) in v && v[row, "kernel", r] > 0) b[++m] = v[row, lane, r] / v[row, "kernel", r]
			rat[lane] = m ? sprintf("%.2fx", median(b, m)) : "-"
		}
		if ((row, "uvcuse", 1) in v) {
			n = 0; for (r = 1; r <= maxr; r++) if ((row, "uvcuse", r) in v) a[++n] = v[row, "uvcuse", r]
			printf "%-26s %10s %10s %10s %9s %9s\n", row, "-", median(a, n), "-", "-", "-"
			continue
		}
		printf "%-26s %10s %10s %10s %9s %9s\n", row, med["kernel"], med["fast"], med["cuse"], rat["fast"], rat["cuse"]
	}
}' "$RES" | tee "$WORK/table"
echo "raw: $(wc -l <"$RES") figures"
