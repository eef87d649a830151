#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Real cameras' traffic, played again: for each trace, uvcuse-vcam
# impersonates the camera it was recorded from and plays the trace's bulk
# payloads (uvcuse-vcam --replay: headers, lengths, FID/EOF/ERR, PTS/SCR,
# short payloads, recorded transfer errors, at the recorded pace; the bytes
# usbmon did not keep are the same filler every time). uvcvideo captures
# FRAMES frames from it, then uvcuse does (MMAP, through uvcuse-run), both
# from the trace's start, and what each delivered is compared: the frames'
# sizes, sequence numbers and flags (v4l2-ctl --verbose), and their bytes.
# One line per trace goes to REPORT_DIR/replay.tsv (scripts/cameras).
# Usage (in the guest): replay.sh BUILD_DIR CORPUS_DIR REPORT_DIR|- FRAMES [--strict]
#   CAMERA:TRACE:FOURCC:WxH...
#   CAMERA: a corpus camera (bin/CAMERA.cfg.bin, lsusb/CAMERA.lsusb.txt),
#     or profile=NAME, a vcam profile with the trace's endpoint type and
#     format, for a trace whose camera is not in the corpus;
#   TRACE: a file of CORPUS_DIR/streams; FOURCC and WxH: the format the
#   trace was recorded in (the one both drivers are asked for)
#   --strict: fail on a difference (CI)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
CORPUS=${2:?corpus dir}
OUT=${3:?report dir}
FRAMES=${4:?frames}
shift 4
[ "$OUT" != - ] || OUT=$WORK/replay
STRICT=false
if [ "${1:-}" = --strict ]; then
	STRICT=true
	shift
fi
[ $# -gt 0 ] || fail "no trace named"
KNOWN=$(dirname "$0")/replay-known.tsv
mkdir -p "$OUT"
: >"$OUT/replay.tsv"
load_modules vhci-hcd uvcvideo cuse
PROBLEMS=()

# capture NODE FOURCC WxH PREFIX [WRAPPER]: FRAMES frames through MMAP;
# PREFIX.raw the bytes, PREFIX.frames one line a frame: its sequence
# number, size and flags (the timestamp flags aside)
capture() {
	local node=$1 fcc=$2 size=$3 p=$4
	# (a trace whose frames never end delivers none: FRAMES / 3 + 20 s)
	timeout $((FRAMES / 3 + 20)) ${5:+"$5"} v4l2-ctl -d "$node" --verbose \
		--set-fmt-video="width=${size%x*},height=${size#*x},pixelformat=$fcc" \
		--stream-mmap --stream-count="$FRAMES" --stream-to="$p.raw" >"$p.log" 2>&1 || true
	{ grep -E 'cap dqbuf' "$p.log" || true; } |
		sed -E -e 's/.*seq: *([0-9]+) bytesused: ([0-9]+).*/\1 \2 &/' \
			-e 's/ (ts|delta|fps): [^ ]*//g' |
		awk '{ flags = ""; if (match($0, /\(.*\)/)) flags = substr($0, RSTART, RLENGTH)
		       gsub(/ts-[a-z-]*(, )?|, $/, "", flags); print $1, $2, flags }' >"$p.frames"
}

# one_trace K CAMERA TRACE FOURCC SIZE: the comparison; its line to replay.tsv
one_trace() {
	local k=$1 cam=$2 trace=$3 fcc=$4 size=$5 serial=RP$1 dir=$OUT/$3
	local args=(--descriptors "$CORPUS/bin/$cam.cfg.bin" --replay "$CORPUS/streams/$trace")
	mkdir -p "$dir"
	[ "${cam#profile=}" = "$cam" ] || args=(--profile "${cam#profile=}" --replay "$CORPUS/streams/$trace")
	[ -f "$CORPUS/lsusb/$cam.lsusb.txt" ] && args+=(--lsusb "$CORPUS/lsusb/$cam.lsusb.txt")
	step "$trace ($cam, $fcc $size)"
	vcam_start "$serial" "${args[@]}"
	capture "$(video_node "$serial")" "$fcc" "$size" "$dir/kernel"
	# (the referee is uvcvideo 6.1, which drops frames with errors: uvcuse
	# does as 6.1 here; daemon-faults checks that it delivers them
	# flagged by default, as 6.14+)
	uvcuse_start "$serial" "video7$k" --no-convert --errored-frames drop
	capture "/dev/video7$k" "$fcc" "$size" "$dir/uvcuse" "$UVCUSE_RUN"
	uvcuse_stop "video7$k" >/dev/null
	vcam_stop_last
	cp "$WORK/vcam-$serial.log" "$dir/vcam.log"
	local nk nu same_frames=same same_bytes=same
	nk=$(wc -l <"$dir/kernel.frames")
	nu=$(wc -l <"$dir/uvcuse.frames")
	diff -u "$dir/kernel.frames" "$dir/uvcuse.frames" >"$dir/frames.diff" || same_frames=differ
	cmp -s "$dir/kernel.raw" "$dir/uvcuse.raw" || same_bytes=differ
	local cause
	cause=$(awk -F'\t' -v t="$trace" '$1 == t { print $2; exit }' "$KNOWN")
	if [ -n "$cause" ] && [ "$same_frames$same_bytes" != samesame ]; then
		same_frames=explained:$cause
		same_bytes=explained:$cause
	fi
	echo "frames: uvcvideo $nk, uvcuse $nu; sizes, sequence numbers and flags $same_frames; bytes $same_bytes"
	[ "$same_frames$same_bytes" = samesame ] || [ -n "$cause" ] ||
		PROBLEMS+=("$trace: frames $same_frames, bytes $same_bytes ($dir)")
	[ "$nk" -gt 0 ] || ! $STRICT || PROBLEMS+=("$trace: uvcvideo delivered no frame ($dir/kernel.log)")
	printf '%s\t%s\t%s %s\t%s\t%s\t%s\t%s\n' "$trace" "$cam" "$fcc" "$size" "$nk" "$nu" \
		"$same_frames" "$same_bytes" >>"$OUT/replay.tsv"
}

k=0
for spec in "$@"; do
	k=$((k + 1))
	IFS=: read -r cam trace fcc size <<<"$spec"
	one_trace "$k" "$cam" "$trace" "$fcc" "$size"
done
echo
echo "replay: $# traces compared, report in $OUT/replay.tsv"
if [ ${#PROBLEMS[@]} -gt 0 ]; then
	printf '  %s\n' "${PROBLEMS[@]}"
	! $STRICT || fail "${#PROBLEMS[@]} traces delivered otherwise: $(printf '%s; ' "${PROBLEMS[@]}")"
fi
