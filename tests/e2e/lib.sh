# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers for VM scenarios. Source it from a scenario run inside the
# guest (tests/vm/run -- tests/e2e/SCENARIO BUILD_DIR ...).
# shellcheck shell=bash

set -euo pipefail
# Debian's own programs, whatever the host user's PATH holds: shims such as
# pyenv's python3 cost about 8 s a start in the TCG guest (Debian's: 1 s),
# and only Debian's python3 has python3-opencv.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

BUILD=${1:?usage: scenario BUILD_DIR ...}
BUILD=$(cd "$BUILD" && pwd)
VCAM=$BUILD/tests/vcam/uvcuse-vcam
FRAMECHECK=$BUILD/tests/tools/uvcuse-framecheck
WORK=$(mktemp -d /tmp/scenario.XXXXXX)
VCAM_PIDS=()
STEPS=0
SHOW_LOGS=always # or "failure": the cameras' logs at exit

# step TEXT: a heading; the seconds since the scenario started show where
# a slow scenario spends its time.
step() {
	STEPS=$((STEPS + 1))
	echo
	echo "== $* [at ${SECONDS} s]"
}

FAILED_BECAUSE=
fail() {
	FAILED_BECAUSE=$*
	echo "FAIL: $*" >&2
	exit 1
}

# cleanup [STATUS]: the scenario's end (the EXIT trap); a scenario's own
# trap passes the status it ended with (under set -e, `(exit STATUS)` before
# it would end the trap there).
cleanup() {
	local status=${1:-$?}
	for pid in "${VCAM_PIDS[@]}"; do
		kill -CONT "$pid" 2>/dev/null || true # a scenario may have paused it
	done
	if [ -n "${UVCUSE_PID:-}" ]; then
		kill -TERM "$UVCUSE_PID" 2>/dev/null || true
		wait "$UVCUSE_PID" 2>/dev/null || true
	fi
	if [ -e "$WORK/uvcuse.log" ] && { [ $status -ne 0 ] || [ "$SHOW_LOGS" = always ]; }; then
		echo "--- uvcuse.log (last 25 lines)"
		tail -n 25 "$WORK/uvcuse.log"
	fi
	for pid in "${VCAM_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${VCAM_PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	for log in "$WORK"/vcam-*.log; do
		[ -e "$log" ] || continue
		[ $status -ne 0 ] || [ "$SHOW_LOGS" = always ] || continue
		echo "--- $(basename "$log") (last 15 lines)"
		tail -n 15 "$log"
	done
	if [ $status -ne 0 ]; then
		echo "--- kernel log (last 30 lines)"
		dmesg | tail -n 30
		# last, where a truncated CI log still shows it
		[ -z "$FAILED_BECAUSE" ] || echo "FAIL (said above the logs): $FAILED_BECAUSE"
	fi
	return $status
}
trap cleanup EXIT

# The source tree (the README) and where readme-install.sh notes what the
# README's install block put in place, for the scenarios after it in the
# same guest (service.sh, pipewire.sh) and for readme-uninstall.sh.
SRC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
INSTALLED=/run/uvcuse-test/installed

# readme_block NAME: the commands of the README's fenced block between
# <!-- NAME:begin --> and <!-- NAME:end -->, unindented, as a user would
# paste them.
readme_block() {
	sed -n "/^<!-- $1:begin -->\$/,/^<!-- $1:end -->\$/p" "$SRC_ROOT/README.md" |
		sed -e '1d' -e '$d' -e 's/^    //'
}

# ensure_installed: uvcuse installed by the README's install block, by
# readme-install.sh earlier in this guest or now.
ensure_installed() {
	[ -e "$INSTALLED" ] || bash "$SRC_ROOT/tests/e2e/readme-install.sh" "$BUILD" ||
		fail "the README's install block"
}

load_modules() {
	for m in "$@"; do
		modprobe "$m" || fail "modprobe $m"
	done
}

# vcam_start SERIAL [uvcuse-vcam options...]: plugs in a virtual camera.
vcam_start() {
	local serial=$1
	shift
	"$VCAM" --serial "$serial" "$@" 2>"$WORK/vcam-$serial.log" &
	VCAM_PIDS+=($!)
}

# vcam_stop_last: the last camera vcam_start plugged in goes away.
vcam_stop_last() {
	kill -TERM "${VCAM_PIDS[-1]}"
	wait "${VCAM_PIDS[-1]}" || true
	unset 'VCAM_PIDS[-1]'
}

# video_node SERIAL [TIMEOUT_S]: prints the capture node of the camera with
# that USB serial number once the kernel driver has created it.
video_node() {
	local serial=$1 timeout=${2:-30} i
	for ((i = 0; i < timeout * 10; i++)); do
		for dev in /sys/class/video4linux/video*; do
			[ -e "$dev/index" ] || continue
			[ "$(cat "$dev/index")" = 0 ] || continue
			local usb
			usb=$(readlink -f "$dev/device/..")
			if [ "$(cat "$usb/serial" 2>/dev/null)" = "$serial" ] &&
				[ -c "/dev/$(basename "$dev")" ]; then
				echo "/dev/$(basename "$dev")"
				return 0
			fi
		done
		sleep 0.1
	done
	fail "no video node for camera $serial after ${timeout}s"
}

# vivid_exporter WxH: loads vivid with a capture node (its webcam input:
# YUYV up to 3840x2160), whose MMAP buffers export dma-bufs (vb2 vmalloc),
# and an output node; sets the capture format to YUYV WxH (its buffers'
# size) and prints the capture node.
vivid_exporter() {
	local dev node=''
	modprobe vivid n_devs=1 node_types=0x101 || fail "modprobe vivid"
	for dev in /sys/class/video4linux/video*; do
		[ "$(cat "$dev/name")" = "vivid-000-vid-cap" ] && node=/dev/$(basename "$dev")
	done
	[ -c "$node" ] || fail "no vivid node: $(cat /sys/class/video4linux/*/name)"
	v4l2-ctl -d "$node" --set-fmt-video="width=${1%x*},height=${1#*x},pixelformat=YUYV" >&2 ||
		fail "vivid's format"
	echo "$node"
}

# meta_node SERIAL: uvcvideo's metadata node of the camera (index 1).
meta_node() {
	local serial=$1 dev usb
	for dev in /sys/class/video4linux/video*; do
		[ "$(cat "$dev/index" 2>/dev/null)" = 1 ] || continue
		usb=$(readlink -f "$dev/device/..")
		[ "$(cat "$usb/serial" 2>/dev/null)" = "$serial" ] && echo "/dev/$(basename "$dev")" && return 0
	done
	fail "no metadata node for camera $serial"
}

# meta_compliance NODE: v4l2-compliance's verdict on each test of a
# metadata node (no streaming: its buffers fill only while the video node
# streams), node names left out, for diffing one driver's against another's;
# the totals in $WORK/meta-compliance.total.
meta_compliance() {
	v4l2-compliance -d "$1" >"$WORK/meta-compliance.log" 2>&1 || true
	grep -E '^\s*test .*: ' "$WORK/meta-compliance.log" | sed -E 's/^\s+//; s|/dev/video[0-9]+ ||'
	grep -E '^Total for' "$WORK/meta-compliance.log" | sed -E 's/^Total for [^:]*: //' >"$WORK/meta-compliance.total"
}

# v4l2-compliance -f streams each format, size and interval for one second;
# ALL_FORMATS streams each for 5 frames instead: every combination still
# negotiates, starts, cycles its buffers (4) and stops, in a fraction of
# the time at 30 fps.
ALL_FORMATS=(-s --stream-all-formats=5)

# compliance NODE [--no-streaming|--all-formats] [EXCEPTION...]: runs
# v4l2-compliance (with streaming -s unless told; --all-formats: ALL_FORMATS,
# streaming every format, size and interval) and requires "Failed: 0", except for known
# exceptions given as "TEST NAME|FAIL MESSAGE": each named test must then
# fail, with that message only, and nothing else may fail.
COMPLIANCE_RUN= # a wrapper to run v4l2-compliance with (uvcuse-run), or empty
compliance() {
	local node=$1 stream=(-s)
	shift
	case "${1:-}" in
	--no-streaming) stream=() && shift ;;
	--all-formats) stream=("${ALL_FORMATS[@]}") && shift ;;
	esac
	local log=$WORK/compliance.log
	${COMPLIANCE_RUN:+"$COMPLIANCE_RUN"} v4l2-compliance -d "$node" "${stream[@]}" >"$log" 2>&1 || true
	# (streaming tests print frames with \r: a warning may follow one)
	{ tr '\r' '\n' <"$log" | grep -E '^(\s*(warn|fail):|\s*test .*: FAIL|Total for)' || true; } |
		uniq -c | sed -E 's/^ *1 //'
	local total failed warnings
	total=$(grep -E '^Total for' "$log" | tail -n 1)
	[ -n "$total" ] || { cat "$log"; fail "v4l2-compliance printed no totals"; }
	failed=$(sed -E 's/.*Failed: ([0-9]+).*/\1/' <<<"$total")
	warnings=$(sed -E 's/.*Warnings: ([0-9]+).*/\1/' <<<"$total")
	echo "compliance: failed $failed, warnings $warnings, known exceptions $#"
	local expected_tests="" expected_msgs=""
	for exception in "$@"; do
		expected_tests+="${exception%%|*}"$'\n'
		expected_msgs+="${exception#*|}"$'\n'
	done
	local seen_tests
	seen_tests=$({ grep -E '^\s*test .*: FAIL' "$log" || true; } | sed -E 's/^\s*test (.*): FAIL.*/\1/' | sort -u)
	if [ "$seen_tests" != "$(printf '%s' "$expected_tests" | sort -u)" ]; then
		cat "$log"
		fail "v4l2-compliance: failing tests [$seen_tests] differ from the known exceptions [$(printf '%s' "$expected_tests" | sort -u | tr '\n' ';')]"
	fi
	# every fail: line must be one of the known messages
	local unknown
	if [ -n "$expected_msgs" ]; then
		unknown=$(grep -E '^\s*fail:' "$log" | grep -vF -f <(printf '%s' "$expected_msgs" | sed '/^$/d') || true)
	else
		unknown=$(grep -E '^\s*fail:' "$log" || true)
	fi
	[ -z "$unknown" ] || { cat "$log"; fail "unexpected v4l2-compliance failure: $unknown"; }
	[ "$failed" -eq "$(printf '%s' "$expected_tests" | sed '/^$/d' | wc -l)" ] ||
		{ cat "$log"; fail "v4l2-compliance: $failed failures"; }
}

# all_formats_streamed: after compliance --all-formats, how many format,
# size and interval combinations streamed, and each converted format among them.
all_formats_streamed() {
	local log=$WORK/compliance.log f
	echo "  $(grep -c 'test MMAP for Format' "$log") format/size/interval combinations streamed"
	# (a combination that failed failed the compliance run already)
	for f in RGB3 BGR3 YU12 YV12; do
		grep -q "test MMAP for Format $f, " "$log" || fail "v4l2-compliance -f did not stream $f"
	done
}

# formats_of NODE: "format FOURCC WxH FPS" lines from v4l2-ctl --list-formats-ext.
formats_of() {
	v4l2-ctl -d "$1" --list-formats-ext | awk '
		/\[[0-9]+\]: / { match($0, /\x27[^\x27]+\x27/); fourcc = substr($0, RSTART + 1, RLENGTH - 2) }
		/Size: Discrete/ { size = $3 }
		/Interval: Discrete/ { match($0, /\(([0-9.]+) fps\)/); fps = substr($0, RSTART + 1, RLENGTH - 6); print "format", fourcc, size, fps }'
}

# same_formats NODE PROFILE: the node enumerates exactly what the profile has.
same_formats() {
	formats_of "$1" >"$WORK/formats.node"
	"$VCAM" --profile "$2" --describe | grep "^format " >"$WORK/formats.profile"
	echo "$(wc -l <"$WORK/formats.node") format/size/rate lines enumerated"
	diff -u "$WORK/formats.profile" "$WORK/formats.node" || fail "formats differ from profile $2"
}

# kernel_then_converted KERNEL_LIST NODE_LIST: NODE_LIST (v4l2-ctl
# --list-formats-ext of our node, conversion on) is uvcvideo's list
# followed by each converted format the camera does not send, once, never
# flagged emulated.
kernel_then_converted() {
	local kernel=$1 node=$2 n want
	n=$(wc -l <"$kernel")
	head -n "$n" "$node" | diff -u "$kernel" - || fail "the list does not start with uvcvideo's"
	for want in "'RGB3' (24-bit RGB 8-8-8)" "'BGR3' (24-bit BGR 8-8-8)" \
		"'YU12' (Planar YUV 4:2:0)" "'YV12' (Planar YVU 4:2:0)"; do
		[ "$(grep -cF "$want" "$node")" -eq 1 ] || fail "no $want after uvcvideo's list"
	done
	! grep -qi emulated "$node" || fail "a format flagged emulated"
	echo "uvcvideo's $(grep -c "^\s*\[" "$kernel") formats, then $(tail -n +$((n + 1)) "$node" | grep -c "^\s*\[") converted ones"
}

# capture_mmap NODE FOURCC WxH COUNT FILE [FPS]
capture_mmap() {
	local node=$1 fourcc=$2 size=$3 count=$4 file=$5 fps=${6:-30}
	v4l2-ctl -d "$node" --set-fmt-video="width=${size%x*},height=${size#*x},pixelformat=$fourcc" \
		--set-parm="$fps" --stream-mmap --stream-count="$count" --stream-to="$file" ||
		fail "v4l2-ctl capture $fourcc $size"
}

# framecheck FILE FOURCC WxH [framecheck options...]
framecheck() {
	local file=$1 fourcc=$2 size=$3
	shift 3
	"$FRAMECHECK" "$file" --format "$fourcc" --size "$size" "$@" ||
		fail "frame check of $(basename "$file") ($fourcc $size)"
}

# --- the daemon -----------------------------------------------------------
UVCUSE=$BUILD/src/uvcuse
UVCUSE_RUN=$BUILD/src/preload/uvcuse-run
READCAP=$BUILD/tests/tools/uvcuse-readcap
METAGRAB=$BUILD/tests/tools/uvcuse-metagrab
VCAM_MSXU_MAX=1024 # tests/vcam/controls.h
UVCUSE_PID=

# uvcuse_start SERIAL NAME [uvcuse options...]: serves the camera with that
# serial as /dev/NAME and waits for the node.
uvcuse_start() {
	local serial=$1 name=$2 i
	shift 2
	"$UVCUSE" --serial "$serial" --name "$name" --foreground "$@" 2>>"$WORK/uvcuse.log" &
	UVCUSE_PID=$!
	for ((i = 0; i < 100; i++)); do
		[ -c "/dev/$name" ] && return 0
		kill -0 "$UVCUSE_PID" 2>/dev/null || { cat "$WORK/uvcuse.log"; fail "uvcuse exited at start-up"; }
		sleep 0.1
	done
	cat "$WORK/uvcuse.log"
	fail "no /dev/$name after 10 s"
}

# uvcuse_stop: SIGTERM, and the daemon must exit 0 and remove its node.
uvcuse_stop() {
	local name=$1 status=0
	kill -TERM "$UVCUSE_PID"
	wait "$UVCUSE_PID" || status=$?
	UVCUSE_PID=
	[ "$status" -eq 0 ] || { tail -n 20 "$WORK/uvcuse.log"; fail "uvcuse exited with $status after SIGTERM"; }
	[ ! -e "/dev/$name" ] || fail "/dev/$name still exists after uvcuse exited"
	echo "uvcuse exited 0 after SIGTERM, /dev/$name removed"
}

# fast_requests NODE [posted]: the requests the daemon served through the
# preload library's fast path so far, or of them the QBUFs the library
# answered itself and posted (LOG_STATUS; the daemon's log is
# $WORK/uvcuse.log).
fast_requests() {
	local node=$1 what=${2:-all} before i
	before=$(grep -c 'through the fast path' "$WORK/uvcuse.log" || true)
	v4l2-ctl -d "$node" --log-status >/dev/null || fail "LOG_STATUS on $node"
	for ((i = 0; i < 50; i++)); do
		[ "$(grep -c 'through the fast path' "$WORK/uvcuse.log")" -gt "$before" ] && break
		sleep 0.1
	done
	if [ "$what" = posted ]; then
		grep 'through the fast path' "$WORK/uvcuse.log" | tail -n 1 | sed -E 's/.*rings, ([0-9]+) QBUFs posted.*/\1/'
	else
		grep 'through the fast path' "$WORK/uvcuse.log" | tail -n 1 | sed -E 's/.*CUSE, ([0-9]+) through.*/\1/'
	fi
}

# late_frames NODE [LOG_COMMAND...]: the frames the daemon had no buffer
# for because the app had given none back in time (its own lateness, as
# with any driver: LOG_STATUS's "no buffer queued", cumulative). The
# daemon's log is $WORK/uvcuse.log, or what LOG_COMMAND prints (a journal);
# waits up to 5 s for LOG_STATUS's line to reach it.
late_frames() {
	local node=$1 before i n
	shift
	[ $# -gt 0 ] || set -- cat "$WORK/uvcuse.log"
	before=$("$@" | grep -c 'no buffer queued: ' || true)
	v4l2-ctl -d "$node" --log-status >/dev/null || fail "LOG_STATUS on $node"
	for ((i = 0; i < 50; i++)); do
		n=$("$@" | grep -c 'no buffer queued: ' || true)
		[ "$n" -gt "$before" ] && break
		sleep 0.1
	done
	[ "$n" -gt "$before" ] || fail "LOG_STATUS of $node did not reach the daemon's log"
	"$@" | grep -oE 'no buffer queued: [0-9]+' | tail -n 1 | grep -oE '[0-9]+$'
}

# rss_kib, fd_count: the running daemon's resident memory (KiB) and open
# files, for the tests that look for growth.
# --- benchmarks -------------------------------------------------------------
# jiffies_busy: the guest's busy CPU time so far (/proc/stat, jiffies)
jiffies_busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
# proc_jiffies PID: that process's CPU time so far (jiffies)
proc_jiffies() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# field NAME FILE: the number after "NAME: " in FILE (uvcuse-streambench's output)
field() { sed -n "s/^$1: \([0-9.]*\).*/\1/p" "$2"; }

# unit_logged UNIT PATTERN: the unit's journal of this boot has a line
# matching PATTERN. (Not `journalctl | grep -q`: grep leaves at the first
# match, journalctl then dies of SIGPIPE and pipefail fails the pipeline.)
unit_logged() {
	local journal
	journal=$(journalctl -b --no-pager -u "$1")
	grep -qE -- "$2" <<<"$journal"
}

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$UVCUSE_PID/status"; }
fd_count() { find "/proc/$UVCUSE_PID/fd" -mindepth 1 | wc -l; }

# v4l2ctl_fps LOG: the mean of the rates v4l2-ctl printed while streaming
# (one per second; the first, which includes start-up, is left out).
v4l2ctl_fps() {
	grep -oE '[0-9]+\.[0-9]+ fps' "$1" | awk '{ v[NR] = $1 } END {
		n = 0; s = 0; for (i = 2; i <= NR; i++) { s += v[i]; n++ }
		if (n == 0 && NR > 0) { s = v[1]; n = 1 }
		if (n) printf "%.2f\n", s / n; else print 0 }'
}

# camera_mark SERIAL before a capture, camera_drops SERIAL after it: the
# frames the vcam itself skipped in the stream that ran in between (it sends
# the newest frame when its host has no transfer waiting in time: TCG
# scheduling noise, or a slow driver); waits up to 3 s for that stream to stop.
camera_mark() {
	CAMERA_STOPS=$(grep -c 'stream stopped' "$WORK/vcam-$1.log" || true)
}
# camera_count SERIAL WHAT: the frames the camera says were WHAT (dropped,
# corrupted) in its streams stopped since camera_mark (waits 3 s for a stop)
camera_count() {
	local log=$WORK/vcam-$1.log i
	for ((i = 0; i < 30; i++)); do
		[ "$(grep -c 'stream stopped' "$log" || true)" -gt "$CAMERA_STOPS" ] && break
		sleep 0.1
	done
	grep 'stream stopped' "$log" | tail -n +$((CAMERA_STOPS + 1)) |
		sed -nE "s/.* ([0-9]+) $2.*/\\1/p" | awk '{ s += $1 } END { if (NR) print s }'
}
camera_drops() { camera_count "$1" dropped; }

# at_least_pct VALUE REF PCT: VALUE is no more than PCT percent below REF.
at_least_pct() {
	awk -v v="$1" -v r="$2" -v p="$3" 'BEGIN { exit !(r > 0 && (r - v) * 100 <= p * r) }'
}

# within_pct VALUE REF PCT: VALUE is within PCT percent of REF.
within_pct() {
	awk -v v="$1" -v r="$2" -v p="$3" 'BEGIN { d = v - r; if (d < 0) d = -d; exit !(r > 0 && d * 100 <= p * r) }'
}
