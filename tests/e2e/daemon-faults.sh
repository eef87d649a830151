#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Camera faults in the isochronous packets, or with bulk:FAULT in the bulk
# profile's payloads (uvcuse-vcam --payload-fault, in every 5th frame; not
# bulk:iso-error by default: uvcvideo on vhci-hcd stops streaming after a
# bulk transfer fails, so there is no reference), each seen first through
# uvcvideo (the reference), then through uvcuse on the same camera.
# uvcuse delivers errored frames as uvcvideo 6.14+ does (errored-frames =
# deliver, the default): every damaged frame it delivers is flagged
# V4L2_BUF_FLAG_ERROR, a flagged frame that is intact is a faulty one, no
# good frame is flagged or lost beyond uvcvideo's losses, and LOG_STATUS
# counts the flagged frames. The 6.1 referee drops them instead (the
# difference is named in the table). With drop:FAULT, uvcuse runs with
# errored-frames = drop and is held to 6.1's rule: every frame it delivers
# intact and in order, no frame lost that uvcvideo keeps, the drops counted.
# YUYV 640x480 has a size to check; MJPEG (FAULT given as mjpeg:FAULT) has
# none, so a frame that lost data must be caught by its other marks.
# Prints one table row per fault (docs/robustness.md keeps a run's table).
# Usage (in the guest): daemon-faults.sh BUILD_DIR [[drop:][mjpeg:|bulk:]FAULT...]
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
shift
if [ $# -gt 0 ]; then
	FAULTS=("$@")
else
	FAULTS=(header0 header1 header-long no-eof fid-toggle oversize short zlp iso-error
		short,zlp,header1 mjpeg:header0 mjpeg:iso-error mjpeg:zlp
		bulk:header1 bulk:short drop:header0 drop:iso-error drop:bulk:short)
fi
EVERY=5
COUNT=40
STREAMBENCH=$BUILD/tests/tools/uvcuse-streambench

# judge FILE FOURCC [FLAGS]: framecheck's figures of a capture, and of its
# skipped sequence numbers, how many were faulty frames and how many were
# not: sets SEEN DAMAGED DISORDER MISSING FAULTY_LOST OTHER_LOST FAULTY_KEPT;
# with FLAGS (uvcuse-streambench --flags: a line per frame) also FLAGGED,
# DAMAGED_UNFLAGGED and GOOD_FLAGGED (intact, not a faulty one, flagged).
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
	if [ -n "${3:-}" ]; then
		# frame N of the capture is line N+1 of the flags file
		read -r FLAGGED DAMAGED_UNFLAGGED GOOD_FLAGGED <<<"$(awk -v e=$EVERY '
			NR == FNR { # $2: the flags in hex; V4L2_BUF_FLAG_ERROR is 0x40
				v = 0; h = tolower(substr($2, 3))
				for (j = 1; j <= length(h); j++) v = v * 16 + index("0123456789abcdef", substr(h, j, 1)) - 1
				flagged[NR - 1] = int(v / 64) % 2; next }
			/^frame [0-9]+: / { i = $2 + 0; f = flagged[i]; nf += f
				if ($0 ~ /damaged/) { if (!f) du++ }
				else if (f && match($3, /^seq=[0-9]+$/) && substr($3, 5) % e != e - 1) gf++ }
			END { print nf + 0, du + 0, gf + 0 }' "$3" "$WORK/judge.txt")"
	fi
	rm -f "$1"
}

# The uvcuse half under errored-frames = drop: 6.1's rule.
uvcuse_dropped_as_6_1() {
	[ "$DAMAGED" = 0 ] || fail "$spec: uvcuse delivered $DAMAGED damaged frames"
	# a faulty frame uvcvideo keeps whole (it ends by FID, has empty packets
	# between...) is kept by uvcuse too
	if [ "${k[3]}" = 0 ] && [ "${k[5]}" -gt 0 ] && [ "${k[1]}" = 0 ]; then
		[ "$FAULTY_LOST" -le $((${udrops:-0} + ${nobuf:-0})) ] ||
			fail "$spec: uvcuse dropped $FAULTY_LOST faulty frames that uvcvideo keeps whole"
	fi
	# the drops are counted
	[ $((${dropped:-0} + ${nobuf:-0})) -ge "$FAULTY_LOST" ] ||
		fail "$spec: LOG_STATUS counts ${dropped:-0} dropped frames, $FAULTY_LOST faulty ones were skipped"
	UVCUSE_ROW="$FAULTY_LOST dropped, $FAULTY_KEPT kept, 0 damaged; LOG_STATUS dropped ${dropped:-0}"
}

# The uvcuse half by default (errored-frames = deliver): 6.14+'s rule,
# where 6.1 drops (the difference in the table's row).
uvcuse_delivered_as_7() {
	echo "uvcuse: $FLAGGED frames flagged V4L2_BUF_FLAG_ERROR, $DAMAGED_UNFLAGGED damaged ones unflagged, $GOOD_FLAGGED good ones flagged"
	[ "$DAMAGED_UNFLAGGED" = 0 ] || fail "$spec: $DAMAGED_UNFLAGGED damaged frames came without V4L2_BUF_FLAG_ERROR"
	[ "$GOOD_FLAGGED" = 0 ] || fail "$spec: $GOOD_FLAGGED good frames came flagged V4L2_BUF_FLAG_ERROR"
	[ "${dropped:-0}" = 0 ] || fail "$spec: uvcuse dropped ${dropped} errored frames (errored-frames = deliver)"
	# the flagged frames are counted (LOG_STATUS counts every stream's)
	[ "${errors:-0}" -ge "$FLAGGED" ] ||
		fail "$spec: LOG_STATUS counts ${errors:-0} frames with errors, $FLAGGED came flagged"
	UVCUSE_ROW="$FLAGGED delivered flagged ERROR ($DAMAGED of them damaged), 0 damaged unflagged, 0 good flagged"
	# the difference from the 6.1 referee, named
	[ "${k[3]}" = 0 ] || UVCUSE_ROW+="; 6.1 drops them, 6.14+ delivers them flagged"
}


load_modules vhci-hcd uvcvideo cuse
ROWS=()
for spec in "${FAULTS[@]}"; do
	fourcc=YUYV fault=$spec profile=default errored=deliver
	if [[ $fault == drop:* ]]; then
		errored=drop fault=${fault#drop:}
	fi
	if [[ $fault == mjpeg:* ]]; then
		fourcc=MJPG fault=${fault#mjpeg:}
	elif [[ $fault == bulk:* ]]; then
		profile=bulk fault=${fault#bulk:}
	fi
	serial=PF-$profile-$fourcc-${fault//,/-}
	step "$fault in every ${EVERY}th frame: uvcvideo, then uvcuse ($profile, $fourcc 640x480, $COUNT frames, errored frames: $errored)"
	vcam_start "$serial" --profile $profile --payload-fault "$fault" --fault-every $EVERY
	knode=$(video_node "$serial")
	camera_mark "$serial"
	capture_mmap "$knode" $fourcc 640x480 $COUNT "$WORK/kernel.raw"
	kdrops=$(camera_drops "$serial")
	judge "$WORK/kernel.raw" $fourcc
	k=(${SEEN:-0} ${DAMAGED:-0} ${DISORDER:-0} ${FAULTY_LOST:-0} ${OTHER_LOST:-0} ${FAULTY_KEPT:-0})
	echo "uvcvideo: ${k[0]} frames, ${k[1]} damaged, ${k[2]} out of order; skipped ${k[3]} faulty and ${k[4]} good ones (the camera dropped ${kdrops:-0}), kept ${k[5]} faulty"

	uvcuse_start "$serial" video10 --errored-frames $errored
	camera_mark "$serial"
	flags_file=
	if [ $errored = drop ]; then
		"$UVCUSE_RUN" v4l2-ctl -d /dev/video10 --set-fmt-video=width=640,height=480,pixelformat=$fourcc \
			--set-parm=30 --stream-mmap --stream-count=$COUNT --stream-to="$WORK/uvcuse.raw" ||
			fail "$spec: uvcuse-run v4l2-ctl capture"
	else
		whole=()
		[ $fourcc = YUYV ] && whole=(--whole)
		flags_file=$WORK/flags.txt
		"$UVCUSE_RUN" "$STREAMBENCH" /dev/video10 -f $fourcc -s 640x480 -r 30 -n $COUNT \
			-o "$WORK/uvcuse.raw" "${whole[@]}" -F "$flags_file" >/dev/null ||
			fail "$spec: uvcuse-run uvcuse-streambench capture"
	fi
	udrops=$(camera_drops "$serial")
	judge "$WORK/uvcuse.raw" $fourcc $flags_file
	echo "uvcuse: $SEEN frames, $DAMAGED damaged, $DISORDER out of order; skipped $FAULTY_LOST faulty and $OTHER_LOST good ones (the camera dropped ${udrops:-0}), kept $FAULTY_KEPT faulty"
	v4l2-ctl -d /dev/video10 --log-status >/dev/null
	status=$(grep -E "frames: [0-9]+, with errors" "$WORK/uvcuse.log" | tail -n 1) || true
	[ -n "$status" ] || fail "$spec: no LOG_STATUS counters in the daemon's log"
	echo "$status"
	kill -0 "$UVCUSE_PID" || fail "$spec: the daemon died"
	[ "$SEEN" -ge $COUNT ] || fail "$spec: uvcuse delivered $SEEN frames"
	[ "$DISORDER" = 0 ] || fail "$spec: uvcuse delivered disordered frames"
	# good frames are lost only when the camera itself skipped some (its
	# host fell behind), when the app had no buffer queued for them (its
	# lateness: the daemon counts those), or as uvcvideo lost in the same run
	nobuf=$(sed -nE 's/.*no buffer queued: ([0-9]+).*/\1/p' <<<"$status")
	[ "$OTHER_LOST" -le $((${udrops:-0} + k[4] + ${nobuf:-0})) ] ||
		fail "$spec: uvcuse skipped $OTHER_LOST good frames (uvcvideo ${k[4]}, camera ${udrops:-0}, no buffer ${nobuf:-0})"
	errors=$(sed -nE 's/.*with errors: ([0-9]+), dropped: ([0-9]+).*/\1/p' <<<"$status")
	dropped=$(sed -nE 's/.*with errors: [0-9]+, dropped: ([0-9]+).*/\1/p' <<<"$status")
	if [ $errored = drop ]; then
		uvcuse_dropped_as_6_1
	else
		uvcuse_delivered_as_7
	fi
	label=$fourcc
	[ "$profile" = default ] || label="$fourcc, $profile"
	[ $errored = drop ] && label="$label; errored-frames = drop"
	ROWS+=("| $fault ($label) | ${k[3]} dropped, ${k[5]} kept, ${k[1]} damaged | $UVCUSE_ROW |")
	uvcuse_stop video10
	vcam_stop_last
done

echo
echo "| fault (every ${EVERY}th frame) | uvcvideo | uvcuse |"
echo "| --- | --- | --- |"
printf '%s\n' "${ROWS[@]}"
echo
echo "daemon faults: $STEPS steps passed"
