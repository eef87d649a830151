#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# DMABUF import against MMAP (scripts/bench), on one virtual camera in one
# boot: the same client (uvcuse-streambench) captures into the node's own
# MMAP buffers and into dma-bufs vivid's capture node exported
# (--dmabuf), on uvcvideo and on uvcuse (through uvcuse-run, fast path on),
# taking turns, ROUNDS rounds. Rows:
#  - rate-720p-yuyv: unpaced camera (uvcuse-vcam --unpaced), frames per second;
#  - cpu-1080p-mjpeg, cpu-480p-yuyv: guest CPU per frame (us) at 30 fps,
#    the camera's own process subtracted.
# Printed: each lane's median, and the medians of the per-round ratios
# DMABUF/MMAP for each driver and uvcuse's DMABUF against uvcvideo's.
# Usage (in the guest): bench-dmabuf.sh BUILD_DIR [ROUNDS]
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
ROUNDS=${2:-3}
SERIAL=BENCHD
NAME=video10
NODE=/dev/$NAME
SB=$BUILD/tests/tools/uvcuse-streambench
SHOW_LOGS=failure
RES=$WORK/results # lines: ROW LANE ROUND VALUE
HZ=$(getconf CLK_TCK)

load_modules vhci-hcd uvcvideo cuse
# its buffers hold any of the camera's frames (1080p MJPEG's sizeimage too)
VIVID=$(vivid_exporter 3840x2160)

record() { echo "$1 $2 $3 $4" >>"$RES"; }
# run LANE ARGS...: the client on the lane's driver and memory
run() {
	local lane=$1
	shift
	case $lane in
	kernel-mmap) "$SB" "$(video_node "$SERIAL")" "$@" ;;
	kernel-dmabuf) "$SB" "$(video_node "$SERIAL")" --dmabuf "$VIVID" "$@" ;;
	uvcuse-mmap) "$UVCUSE_RUN" "$SB" "$NODE" "$@" ;;
	uvcuse-dmabuf) "$UVCUSE_RUN" "$SB" "$NODE" --dmabuf "$VIVID" "$@" ;;
	esac
}
# with_lanes ROUND FN: FN LANE ROUND for each lane, uvcuse serving its two
with_lanes() {
	local r=$1 fn=$2
	"$fn" kernel-mmap "$r"
	"$fn" kernel-dmabuf "$r"
	uvcuse_start "$SERIAL" "$NAME"
	"$fn" uvcuse-mmap "$r"
	"$fn" uvcuse-dmabuf "$r"
	uvcuse_stop "$NAME" >/dev/null
	video_node "$SERIAL" >/dev/null # uvcvideo has the camera back
}

rates() {
	run "$1" -f YUYV -s 1280x720 -n 120 >"$WORK/o" || fail "$1 720p YUYV"
	record rate-720p-yuyv "$1" "$2" "$(field rate "$WORK/o")"
}
# cpu LANE ROUND ROW ARGS...: guest CPU per frame, the camera's excluded
cpu() {
	local lane=$1 round=$2 row=$3 b0 v0 n
	shift 3
	b0=$(jiffies_busy)
	v0=$(proc_jiffies "$VCAM_PID")
	run "$lane" "$@" >"$WORK/o" || fail "$lane $row"
	n=$(field frames "$WORK/o")
	record "cpu-$row" "$lane" "$round" "$(awk -v b=$(($(jiffies_busy) - b0 - $(proc_jiffies "$VCAM_PID") + v0)) \
		-v n="$n" -v hz="$HZ" 'BEGIN { printf "%.0f", b / hz * 1e6 / n }')"
}
cpus() {
	cpu "$1" "$2" 1080p-mjpeg -f MJPG -s 1920x1080 -r 30 -n 240
	cpu "$1" "$2" 480p-yuyv -f YUYV -s 640x480 -r 30 -n 240
}

step "the frames land whole in the dma-bufs (each driver)"
vcam_start "$SERIAL" --profile usb3
video_node "$SERIAL" >/dev/null
"$SB" "$(video_node "$SERIAL")" --dmabuf "$VIVID" -f YUYV -s 640x480 -n 30 -o "$WORK/k.yuyv" >/dev/null ||
	fail "uvcvideo into dma-bufs"
framecheck "$WORK/k.yuyv" YUYV 640x480 --min-frames 30 | grep -E '^verdict'
uvcuse_start "$SERIAL" "$NAME"
"$UVCUSE_RUN" "$SB" "$NODE" --dmabuf "$VIVID" -f YUYV -s 640x480 -n 30 -o "$WORK/u.yuyv" >/dev/null ||
	fail "uvcuse into dma-bufs"
framecheck "$WORK/u.yuyv" YUYV 640x480 --min-frames 30 | grep -E '^verdict'
uvcuse_stop "$NAME" >/dev/null
vcam_stop_last

step "unpaced camera: rates, $ROUNDS rounds"
vcam_start "$SERIAL" --profile usb3 --unpaced
video_node "$SERIAL" >/dev/null
for ((r = 1; r <= ROUNDS; r++)); do
	with_lanes "$r" rates
done
vcam_stop_last

step "paced camera: CPU per frame, $ROUNDS rounds"
vcam_start "$SERIAL" --profile usb3
video_node "$SERIAL" >/dev/null
VCAM_PID=${VCAM_PIDS[-1]}
for ((r = 1; r <= ROUNDS; r++)); do
	with_lanes "$r" cpus
done

step "results (medians; ratios: medians of the per-round ratios)"
awk '
function median(arr, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && arr[j - 1] > arr[j]; j--) { t = arr[j]; arr[j] = arr[j - 1]; arr[j - 1] = t }
	return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
}
function ratio(row, a, b,   r, m) {
	m = 0
	for (r = 1; r <= maxr; r++) if ((row, a, r) in v && (row, b, r) in v && v[row, b, r] > 0) q[++m] = v[row, a, r] / v[row, b, r]
	return m ? sprintf("%.2fx", median(q, m)) : "-"
}
{ v[$1, $2, $3] = $4; if (!($1 in seen)) { seen[$1] = 1; names[++nr] = $1 } if ($3 > maxr) maxr = $3 }
END {
	printf "%-16s %11s %11s %11s %11s %12s %12s %12s\n", "row", "kernel-mmap", "kernel-dma", "uvcuse-mmap", "uvcuse-dma",
		"kern dma/mmap", "uvcuse dma/mmap", "dma uvcuse/kern"
	split("kernel-mmap kernel-dmabuf uvcuse-mmap uvcuse-dmabuf", lanes, " ")
	for (i = 1; i <= nr; i++) {
		row = names[i]
		printf "%-16s", row
		for (l = 1; l <= 4; l++) {
			n = 0
			for (r = 1; r <= maxr; r++) if ((row, lanes[l], r) in v) a[++n] = v[row, lanes[l], r]
			printf " %11s", n ? median(a, n) : "-"
		}
		printf " %12s %12s %12s\n", ratio(row, "kernel-dmabuf", "kernel-mmap"),
			ratio(row, "uvcuse-dmabuf", "uvcuse-mmap"), ratio(row, "uvcuse-dmabuf", "kernel-dmabuf")
	}
}' "$RES"
echo "raw: $(wc -l <"$RES") figures"
