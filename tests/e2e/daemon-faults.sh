#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Camera faults in the isochronous packets, or with bulk:FAULT in the bulk
# profile's payloads (uvcuse-vcam --payload-fault, in every 5th frame; not
# bulk:iso-error by default: uvcvideo on vhci-hcd stops streaming after a
# bulk transfer fails, so there is no reference), each seen first through uvcvideo (the reference), then
# through uvcuse on the same camera: the daemon stays up, every frame it
# delivers is intact and in order, it loses no frame uvcvideo keeps (the
# faulty ones it drops, uvcvideo drops too), and LOG_STATUS counts the drops.
# YUYV 640x480 has a size to check; MJPEG (FAULT given as mjpeg:FAULT) has
# none, so a frame that lost data must be caught by its other marks.
# Prints one table row per fault (docs/robustness.md keeps a run's table).
# Usage (in the guest): daemon-faults.sh BUILD_DIR [[mjpeg:|bulk:]FAULT...]
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
shift
if [ $# -gt 0 ]; then
	FAULTS=("$@")
else
	FAULTS=(header0 header1 header-long no-eof fid-toggle oversize short zlp iso-error
		short,zlp,header1 mjpeg:header0 mjpeg:iso-error mjpeg:zlp
		bulk:header1 bulk:short)
fi
EVERY=5
COUNT=40

# judge FILE FOURCC: framecheck's figures of a capture, and of its skipped
# sequence numbers, how many were faulty frames and how many were not:
# sets SEEN DAMAGED DISORDER MISSING FAULTY_LOST OTHER_LOST FAULTY_KEPT.
judge() {
	"$FRAMECHECK" "$1" --format "$2" --size 640x480 --max-missing 100000 --verbose >"$WORK/judge.txt" || true
	SEEN=$(sed -nE 's/^frames seen: ([0-9]+)/\1/p' "$WORK/judge.txt")
	DAMAGED=$(sed -nE 's/^frames damaged: ([0-9]+)/\1/p' "$WORK/judge.txt")
	DISORDER=$(sed -nE 's/^frames out of order: ([0-9]+)/\1/p' "$WORK/judge.txt")
	MISSING=$(sed -nE 's/^frames missing: ([0-9]+)/\1/p' "$WORK/judge.txt")
	read -r FAULTY_LOST OTHER_LOST FAULTY_KEPT <<<"$(awk -v e=$EVERY '
		/^frame [0-9]+: seq=[0-9]/ { split($3, a, "="); s = a[2] + 0; got[s] = 1
			if (n == 0 || s < lo) lo = s; if (n == 0 || s > hi) hi = s; n++ }
		END { fl = ol = fk = 0
			for (k = lo; k <= hi; k++) {
				faulty = k % e == e - 1
				if (!(k in got)) { if (faulty) fl++; else ol++ } else if (faulty) fk++
			}
			print fl, ol, fk }' "$WORK/judge.txt")"
	rm -f "$1"
}

load_modules vhci-hcd uvcvideo cuse
ROWS=()
for spec in "${FAULTS[@]}"; do
	fourcc=YUYV fault=$spec profile=default
	if [[ $spec == mjpeg:* ]]; then
		fourcc=MJPG fault=${spec#mjpeg:}
	elif [[ $spec == bulk:* ]]; then
		profile=bulk fault=${spec#bulk:}
	fi
	serial=PF-$profile-$fourcc-${fault//,/-}
	step "$fault in every ${EVERY}th frame: uvcvideo, then uvcuse ($profile, $fourcc 640x480, $COUNT frames)"
	vcam_start "$serial" --profile $profile --payload-fault "$fault" --fault-every $EVERY
	knode=$(video_node "$serial")
	camera_mark "$serial"
	capture_mmap "$knode" $fourcc 640x480 $COUNT "$WORK/kernel.raw"
	kdrops=$(camera_drops "$serial")
	judge "$WORK/kernel.raw" $fourcc
	k=(${SEEN:-0} ${DAMAGED:-0} ${DISORDER:-0} ${FAULTY_LOST:-0} ${OTHER_LOST:-0} ${FAULTY_KEPT:-0})
	echo "uvcvideo: ${k[0]} frames, ${k[1]} damaged, ${k[2]} out of order; skipped ${k[3]} faulty and ${k[4]} good ones (the camera dropped ${kdrops:-0}), kept ${k[5]} faulty"

	uvcuse_start "$serial" video10
	camera_mark "$serial"
	"$UVCUSE_RUN" v4l2-ctl -d /dev/video10 --set-fmt-video=width=640,height=480,pixelformat=$fourcc \
		--set-parm=30 --stream-mmap --stream-count=$COUNT --stream-to="$WORK/uvcuse.raw" ||
		fail "$spec: uvcuse-run v4l2-ctl capture"
	udrops=$(camera_drops "$serial")
	judge "$WORK/uvcuse.raw" $fourcc
	echo "uvcuse: $SEEN frames, $DAMAGED damaged, $DISORDER out of order; skipped $FAULTY_LOST faulty and $OTHER_LOST good ones (the camera dropped ${udrops:-0}), kept $FAULTY_KEPT faulty"
	v4l2-ctl -d /dev/video10 --log-status >/dev/null
	status=$(grep -E "frames: [0-9]+, with errors" "$WORK/uvcuse.log" | tail -n 1) || true
	[ -n "$status" ] || fail "$spec: no LOG_STATUS counters in the daemon's log"
	echo "$status"
	kill -0 "$UVCUSE_PID" || fail "$spec: the daemon died"
	[ "$SEEN" -ge $COUNT ] || fail "$spec: uvcuse delivered $SEEN frames"
	[ "$DAMAGED" = 0 ] && [ "$DISORDER" = 0 ] || fail "$spec: uvcuse delivered damaged or disordered frames"
	# good frames are lost only when the camera itself skipped some (its
	# host fell behind), when the app had no buffer queued for them (its
	# lateness: the daemon counts those), or as uvcvideo lost in the same run
	nobuf=$(sed -nE 's/.*no buffer queued: ([0-9]+).*/\1/p' <<<"$status")
	[ "$OTHER_LOST" -le $((${udrops:-0} + k[4] + ${nobuf:-0})) ] ||
		fail "$spec: uvcuse skipped $OTHER_LOST good frames (uvcvideo ${k[4]}, camera ${udrops:-0}, no buffer ${nobuf:-0})"
	# a faulty frame uvcvideo keeps whole (it ends by FID, has empty packets
	# between...) is kept by uvcuse too
	if [ "${k[3]}" = 0 ] && [ "${k[5]}" -gt 0 ] && [ "${k[1]}" = 0 ]; then
		[ "$FAULTY_LOST" -le $((${udrops:-0} + ${nobuf:-0})) ] ||
			fail "$spec: uvcuse dropped $FAULTY_LOST faulty frames that uvcvideo keeps whole"
	fi
	# the drops are counted
	dropped=$(sed -nE 's/.*with errors: [0-9]+, dropped: ([0-9]+).*/\1/p' <<<"$status")
	[ $((${dropped:-0} + ${nobuf:-0})) -ge "$FAULTY_LOST" ] ||
		fail "$spec: LOG_STATUS counts ${dropped:-0} dropped frames, $FAULTY_LOST faulty ones were skipped"
	label=$fourcc
	[ "$profile" = default ] || label="$fourcc, $profile"
	ROWS+=("| $fault ($label) | ${k[3]} dropped, ${k[5]} kept, ${k[1]} damaged | $FAULTY_LOST dropped, $FAULTY_KEPT kept, 0 damaged; LOG_STATUS dropped ${dropped:-0} |")
	uvcuse_stop video10
	vcam_stop_last
done

echo
echo "| fault (every ${EVERY}th frame) | uvcvideo | uvcuse |"
echo "| --- | --- | --- |"
printf '%s\n' "${ROWS[@]}"
echo
echo "daemon faults: $STEPS steps passed"
