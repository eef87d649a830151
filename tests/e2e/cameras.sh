#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Real cameras, differentially: for each corpus camera, uvcuse-vcam impersonates
# it from its descriptor dump (or, where that binary is a damaged rebuild, from
# the lsusb text it came from), uvcvideo serves it, then uvcuse does, and what
# an app sees of the two is compared: the formats (--list-formats-ext), the
# controls (--list-ctrls-menus), --info without the driver's name and version,
# a 30-frame capture of the first format the camera can stream, and the
# v4l2-compliance verdicts (without streaming). One line per camera goes to
# REPORT_DIR/report.tsv (tab separated, see scripts/cameras), the views and
# their differences to REPORT_DIR/NAME/. A difference listed in
# cameras-known.tsv is reported as explained, under its cause's name.
# Usage (in the guest): cameras.sh BUILD_DIR CORPUS_DIR REPORT_DIR|- [--strict] NAME...
#   NAME: a corpus file name without .cfg.bin (046d_0825_webcam_c270), or
#     one of tests/topologies/ (f0f0_0001_topology_dangling_source)
#   -: a report directory in the guest only
#   --strict: fail when a camera is not impersonated, uvcvideo makes no node,
#     a view differs without a named cause, or a capture fails through uvcuse
#     that passes through uvcvideo (the CI sample)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
CORPUS=${2:?corpus dir}
OUT=${3:?report dir}
shift 3
[ "$OUT" != - ] || OUT=$WORK/cameras
STRICT=false
if [ "${1:-}" = --strict ]; then
	STRICT=true
	shift
fi
[ $# -gt 0 ] || fail "no camera named"
KNOWN=$(dirname "$0")/cameras-known.tsv
TOPOLOGIES=$(cd "$(dirname "$0")/../topologies" && pwd)
REFEREE=$(dirname "$0")/cameras-referee.tsv
PROBLEMS=()
SHOW_LOGS=failure
load_modules vhci-hcd uvcvideo cuse
mkdir -p "$OUT"
REPORT=$OUT/report.tsv
: >"$REPORT"

# views NODE PREFIX [RUN]: what an app sees, in files PREFIX.*, with the
# differences that are uvcuse's by design taken out, each under its name
# (the NAMED DIFFERENCES below); PREFIX.named lists the ones that applied.
# RUN (uvcuse-run for uvcuse's node) runs v4l2-compliance as apps run.
views() {
	local node=$1 p=$2 run=${3:-}
	timeout 60 v4l2-ctl -d "$node" --list-formats-ext >"$p.formats" 2>&1 || true
	timeout 60 v4l2-ctl -d "$node" --list-ctrls-menus >"$p.ctrls" 2>&1 || true
	timeout 60 v4l2-ctl -d "$node" --info >"$p.info.raw" 2>&1 || true
	# the inputs (a selector unit's, through GET_CUR of its control) go
	# with the info view
	timeout 60 v4l2-ctl -d "$node" --list-inputs --get-input >"$p.inputs" 2>&1 || true
	timeout 180 ${run:+"$run"} v4l2-compliance -d "$node" >"$p.compliance" 2>&1 || true
	: >"$p.named"
	# NAMED DIFFERENCES
	# driver-identity: the driver's name and version are not the camera's.
	# read-write: uvcuse serves read() (V4L2_CAP_READWRITE); uvcvideo does not.
	# no-metadata-node: the driver has no metadata capture node (UVC payload
	#   headers, V4L2_CAP_META_CAPTURE in the capabilities); uvcvideo and
	#   uvcuse both add one, so this names a regression.
	# no-media-controller: uvcvideo registers a media device (Media Driver
	#   Info, Interface and Entity Info, v4l2-compliance's MC test); a CUSE
	#   node cannot.
	# log-status: uvcuse answers VIDIOC_LOG_STATUS with its counters.
	# no-udmabuf: the guest's kernel has no /dev/udmabuf (Debian's 6.1),
	#   through which uvcuse makes the dma-bufs VIDIOC_EXPBUF hands out.
	# no-expbuf: VIDIOC_EXPBUF unsupported although /dev/udmabuf exists:
	#   a regression.
	# camera-input-name: a camera terminal without a name string is input
	#   "Camera N" on uvcvideo 6.12 (and later) and uvcuse, "Input N" on
	#   6.1 (which overwrote it: an else missing); the referees differ.
	# create-bufs-max-num-buffers: uvcvideo 6.12's vb2 fills CREATE_BUFS's
	#   max_num_buffers (6.10+), which Debian 12's v4l2-compliance 1.22
	#   checks as reserved: its buffer test fails on the kernel's node.
	# (the bus info's port: whichever vhci port the vcam got, which a
	# lane's restart for the referee's repair can change)
	sed -E -e '/Driver (name|version)/d' -e '/^\s*(Capabilities|Device Caps)\s*:/d' \
		-e 's/(Bus info\s*: usb-vhci_hcd\.[0-9]+)-[0-9]+/\1-PORT/' \
		-e '/^\s*(Read\/Write|Metadata Capture)$/d' -e '/^Media Driver Info:/,$d' \
		"$p.info.raw" >"$p.info"
	if grep -qE '^\s*Name\s*: Camera [0-9]+$' "$p.inputs"; then
		sed -E 's/(\(|Name\s*: )Camera ([0-9]+)/\1Input \2/' "$p.inputs" >>"$p.info"
		echo camera-input-name >>"$p.named"
	else
		cat "$p.inputs" >>"$p.info"
	fi
	grep -qE 'Read/Write' "$p.info.raw" && echo read-write >>"$p.named"
	grep -qE 'Metadata Capture' "$p.info.raw" || echo no-metadata-node >>"$p.named"
	grep -qE '^Media Driver Info:' "$p.info.raw" && echo no-media-controller >>"$p.named"
	# the compliance tests' verdicts, with the driver-specific ones named
	tr '\r' '\n' <"$p.compliance" | grep -E '^\s*test .*: (OK|FAIL)' |
		sed -E -e 's/\/dev\/video[0-9]+/NODE/' -e '/test MC information/d' \
			-e '/test VIDIOC_LOG_STATUS/d' -e '/test VIDIOC_EXPBUF/d' >"$p.verdicts" || true
	grep -qE 'test VIDIOC_LOG_STATUS: OK$' "$p.compliance" && echo log-status >>"$p.named"
	if grep -qF 'check_0(crbufs.reserved, sizeof(crbufs.reserved))' "$p.compliance"; then
		sed -i -E 's/(test VIDIOC_REQBUFS\/CREATE_BUFS\/QUERYBUF): FAIL/\1: OK/' "$p.verdicts"
		echo create-bufs-max-num-buffers >>"$p.named"
	fi
	if grep -qE 'test VIDIOC_EXPBUF: OK \(Not Supported\)' "$p.compliance"; then
		[ -e /dev/udmabuf ] && echo no-expbuf >>"$p.named" || echo no-udmabuf >>"$p.named"
	fi
	grep -E '^Total for' "$p.compliance" | sed -E 's/^Total for [^:]*: //' >"$p.totals" || true
}

# first_streamable FORMATS_FILE: "FOURCC WxH" of the first format whose first
# size the vcam draws (raw layouts of the test picture, or MJPEG), or nothing.
first_streamable() {
	awk '/^[ \t]*\[[0-9]+\]:/ { gsub(/\047/, "", $2); fcc = $2; first = 1; next }
	     /Size: Discrete/ && first { print fcc, $3; first = 0 }' "$1" |
		grep -E '^(YUYV|UYVY|NV12|MJPG|YU12|YV12|RGB3|BGR3|BA81|GBRG|GRBG|RGGB) ' | head -n 1
}

# capture NODE FOURCC SIZE FILE [WRAPPER]: 30 frames through MMAP (uvcuse's
# node through the preload library, WRAPPER uvcuse-run); prints ok or no
capture() {
	local node=$1 fcc=$2 size=$3 file=$4 check=$fcc
	[ "$check" = MJPG ] && check=MJPEG
	if timeout 60 ${5:+"$5"} v4l2-ctl -d "$node" --set-fmt-video="width=${size%x*},height=${size#*x},pixelformat=$fcc" \
		--stream-mmap --stream-count=30 --stream-to="$file" >/dev/null 2>&1 &&
		"$FRAMECHECK" "$file" --format "$check" --size "$size" --min-frames 30 >"$file.check" 2>&1; then
		echo ok
	else
		echo no
	fi
}

# kernel_node SERIAL: uvcvideo's capture node of the vcam with this serial
# once it appears (15 s at most), or nothing.
kernel_node() {
	local i dev
	for ((i = 0; i < 150; i++)); do
		for dev in /sys/class/video4linux/video*; do
			# (another lane's node may go between the test and the read)
			[ "$(cat "$dev/index" 2>/dev/null)" = 0 ] || continue
			[ "$(cat "$(readlink -f "$dev/device/..")/serial" 2>/dev/null)" = "$1" ] || continue
			echo "/dev/$(basename "$dev")"
			return
		done
		sleep 0.1
	done
}

# usb_device SERIAL: true once the USB device with this serial is there and
# a driver (uvcvideo) has bound one of its interfaces (15 s at most).
usb_device() {
	local i dev intf
	for ((i = 0; i < 150; i++)); do
		for dev in /sys/bus/usb/devices/*; do
			[ "$(cat "$dev/serial" 2>/dev/null)" = "$1" ] || continue
			for intf in "$dev":*; do
				[ -e "$intf/driver" ] && return 0
			done
		done
		sleep 0.1
	done
	return 1
}

# same DIR NAME VIEW: same, differ, or explained:CAUSE (cameras-known.tsv)
same() {
	diff -u "$1/kernel.$3" "$1/uvcuse.$3" >"$1/$3.diff" && { echo same; return; }
	local cause
	cause=$(awk -F'\t' -v n="$2" -v v="$3" '$1 == n && $2 == v { print $3; exit }' "$KNOWN")
	echo "${cause:+explained:}${cause:-differ}"
}

# one_camera NAME SERIAL NODE_NAME: the comparison of one camera; its
# report line goes to $OUT/NAME/report, what the log shows to
# $OUT/NAME/summary, problems to $OUT/NAME/problems.
one_camera() {
	local name=$1 serial=$2 uname=$3 dir=$OUT/$1 tmp=$WORK/$2
	local bin=$CORPUS/bin/$1.cfg.bin lsusb_txt=$CORPUS/lsusb/$1.lsusb.txt
	[ -f "$bin" ] || bin=$TOPOLOGIES/$1.cfg.bin
	local args=(--descriptors "$bin") source=parse vpid upid knode= fcc= size= kcap=- ucap=- i
	mkdir -p "$dir" "$tmp"
	: >"$dir/problems"
	[ -f "$lsusb_txt" ] && args+=(--lsusb "$lsusb_txt")
	if ! "$VCAM" --descriptors "$bin" --describe >/dev/null 2>"$dir/vcam-describe.log"; then
		# the binary is a damaged rebuild of the same text: the vcam's own
		# rebuild of the text (tests/vcam/lsusb_rebuild.c) may be whole
		if [ -f "$lsusb_txt" ] &&
			"$VCAM" --descriptors "$lsusb_txt" --describe >/dev/null 2>"$dir/vcam-describe-lsusb.log"; then
			args=(--descriptors "$lsusb_txt")
			source=lsusb
		else
			local why
			why=$(grep -m1 'cannot impersonate' "$dir/vcam-describe.log" | sed 's/.*impersonate: //')
			[ ! -f "$lsusb_txt" ] ||
				why="$why; from the lsusb text: $(grep -m1 'cannot impersonate' "$dir/vcam-describe-lsusb.log" | sed 's/.*impersonate: //')"
			printf '%s\tno-parse\t-\t-\t-\t-\t-\t%s\n' "$name" "$why" >"$dir/report"
			echo "not impersonated: $why" >"$dir/summary"
			echo "$name: not impersonated" >"$dir/problems"
			return
		fi
	fi
	# a repair for uvcvideo's lane only (cameras-referee.tsv)
	local referee
	referee=$(awk -F'\t' -v n="$name" '$1 == n { print $2; exit }' "$REFEREE")
	# shellcheck disable=SC2086 # the options are words
	"$VCAM" --serial "$serial" "${args[@]}" $referee 2>"$dir/vcam.log" &
	vpid=$!
	knode=$(kernel_node "$serial")
	if [ -n "$knode" ]; then
		views "$knode" "$dir/kernel"
		if ! grep -q '^\s*\[[0-9]*\]:' "$dir/kernel.formats"; then
			# uvcvideo's node listed nothing (its probe starved of CPU by the
			# other lane, or the node still being registered): the referee is
			# asked once more, what it said first kept beside
			dmesg | tail -n 40 >"$dir/dmesg-kernel-empty.log"
			cp "$dir/kernel.formats" "$dir/kernel.formats.first"
			sleep 2
			knode=$(kernel_node "$serial")
			[ -z "$knode" ] || views "$knode" "$dir/kernel"
			echo "uvcvideo's views came back empty once: taken again" >"$dir/referee-retried"
		fi
		read -r fcc size <<<"$(first_streamable "$dir/kernel.formats")" || true
		[ -z "$fcc" ] || kcap=$(capture "$knode" "$fcc" "$size" "$tmp/k.raw")
		if [ -n "$referee" ]; then # uvcuse gets the camera as it is
			kill -TERM "$vpid" 2>/dev/null || true
			wait "$vpid" || true
			"$VCAM" --serial "$serial" "${args[@]}" 2>>"$dir/vcam.log" &
			vpid=$!
			# (uvcvideo may make no node of it as it is: the device itself)
			usb_device "$serial" ||
				echo "$name: the camera did not come back without the referee's repair" >>"$dir/problems"
		fi
	else
		# what uvcuse makes of a camera uvcvideo serves no node for is
		# still said, but nothing can be compared
		dmesg | tail -n 40 >"$dir/dmesg.log"
	fi

	"$UVCUSE" --serial "$serial" --name "$uname" --foreground --no-convert 2>"$dir/uvcuse.log" &
	upid=$!
	for ((i = 0; i < 100; i++)); do
		[ -c "/dev/$uname" ] && break
		kill -0 "$upid" 2>/dev/null || break
		sleep 0.1
	done
	if [ -c "/dev/$uname" ]; then
		views "/dev/$uname" "$dir/uvcuse" "$UVCUSE_RUN"
		# nothing to draw in uvcvideo's list (its node would not open, say):
		# uvcuse's own list
		[ -n "$fcc" ] ||
			read -r fcc size <<<"$(first_streamable "$dir/uvcuse.formats")" || true
		[ -z "$fcc" ] || ucap=$(capture "/dev/$uname" "$fcc" "$size" "$tmp/u.raw" "$UVCUSE_RUN")
	else
		: >"$dir/uvcuse.formats"
		echo "$name: uvcuse made no node (uvcuse.log)" >>"$dir/problems"
	fi
	kill -TERM "$upid" 2>/dev/null || true
	wait "$upid" || true
	if [ -z "$knode" ]; then
		local unode="uvcuse made no node either"
		[ ! -s "$dir/uvcuse.formats" ] ||
			unode="uvcuse serves it: $(grep -c '^\s*\[[0-9]*\]:' "$dir/uvcuse.formats") format(s), capture ${ucap} (${fcc:-none} ${size:-})"
		printf '%s\t%s\tno-kernel-node\t-\t-\t-\t-\tuvcvideo made no node (dmesg.log); %s\n' "$name" "$source" "$unode" >"$dir/report"
		echo "uvcvideo made no node; $unode" >"$dir/summary"
		echo "$name: uvcvideo made no node" >>"$dir/problems"
		kill -TERM "$vpid" 2>/dev/null || true
		wait "$vpid" || true
		rm -rf "$tmp"
		return
	fi
	local formats ctrls info verdicts named
	formats=$(same "$dir" "$name" formats)
	ctrls=$(same "$dir" "$name" ctrls)
	info=$(same "$dir" "$name" info)
	verdicts=$(same "$dir" "$name" verdicts)
	named=$(sort -u "$dir/kernel.named" "$dir/uvcuse.named" 2>/dev/null | paste -sd, -)
	printf '%s\t%s\t%s\t%s\t%s\tkernel:%s uvcuse:%s %s\t%s\t%s\n' "$name" "$source" "$formats" "$ctrls" "$info" \
		"$kcap" "$ucap" "${fcc:-none} ${size:-}" "$verdicts" \
		"kernel $(cat "$dir/kernel.totals"); uvcuse $(cat "$dir/uvcuse.totals" 2>/dev/null); named: $named${referee:+; uvcvideo lane repaired: $referee}" \
		>"$dir/report"
	{
		[ "$source" = parse ] || echo "impersonated from the lsusb text (the binary dump is damaged)"
		[ -z "$referee" ] || echo "uvcvideo's lane: the vcam with $referee (cameras-referee.tsv)"
		[ ! -e "$dir/referee-retried" ] || cat "$dir/referee-retried"
		echo "formats $formats, controls $ctrls, info $info, capture kernel:$kcap uvcuse:$ucap (${fcc:-none} ${size:-}), compliance verdicts $verdicts"
		echo "  totals: kernel $(cat "$dir/kernel.totals"); uvcuse $(cat "$dir/uvcuse.totals" 2>/dev/null); named: $named"
	} >"$dir/summary"
	local view
	for view in formats:$formats ctrls:$ctrls info:$info verdicts:$verdicts; do
		[ "${view#*:}" != differ ] || echo "$name: ${view%%:*} differ ($dir/${view%%:*}.diff)" >>"$dir/problems"
	done
	[ "$ucap" != no ] || [ "$kcap" = no ] ||
		echo "$name: capture fails through uvcuse (uvcvideo: $kcap)" >>"$dir/problems"
	kill -TERM "$vpid" 2>/dev/null || true
	local vstatus=0
	wait "$vpid" || vstatus=$?
	[ "$vstatus" -eq 0 ] || echo "$name: uvcuse-vcam exited with status $vstatus" >>"$dir/problems"
	for i in k u; do
		[ ! -e "$tmp/$i.raw.check" ] || mv "$tmp/$i.raw.check" "$dir/$i-capture.check"
	done
	rm -rf "$tmp"
}

# Lanes, each its cameras in turn, run side by side: one camera at a time
# leaves one of the guest's two CPUs mostly idle (its steps wait on each
# other); three lanes overload TCG enough for a control transfer to time out.
# Camera n goes to lane n % LANES, with serial CAMn and the node video1(2L)
# (its metadata node takes the number after it).
# A lane goes on after a failing step (set +e): the camera's report says what
# failed, and the next camera is compared.
LANES=2
lane() {
	set +e
	local k=0 name
	for name in "${NAMES[@]}"; do
		k=$((k + 1))
		[ $((k % LANES)) -eq "$1" ] || continue
		one_camera "$name" "CAM$k" "video1$(($1 * 2))"
		echo "$name" >>"$WORK/done"
	done
}
NAMES=("$@")
: >"$WORK/done"
lanes=()
for ((l = 0; l < LANES; l++)); do
	lane "$l" &
	lanes+=($!)
done
shown=0
while :; do # the cameras' results, in the order named, as they come
	while [ $shown -lt ${#NAMES[@]} ] && [ -s "$OUT/${NAMES[$shown]}/summary" ] &&
		grep -qxF "${NAMES[$shown]}" "$WORK/done"; do
		step "${NAMES[$shown]}"
		cat "$OUT/${NAMES[$shown]}/summary"
		shown=$((shown + 1))
	done
	[ $shown -lt ${#NAMES[@]} ] || break
	running=false
	for pid in "${lanes[@]}"; do kill -0 "$pid" 2>/dev/null && running=true; done
	$running || [ -s "$OUT/${NAMES[$shown]}/summary" ] || fail "the lanes stopped before ${NAMES[$shown]}"
	sleep 0.5
done
wait "${lanes[@]}" || true
n_cam=${#NAMES[@]}
for name in "${NAMES[@]}"; do
	cat "$OUT/$name/report" >>"$REPORT"
	while read -r line; do PROBLEMS+=("$line"); done <"$OUT/$name/problems"
done
echo
echo "cameras: $n_cam compared, report in $REPORT"
if [ ${#PROBLEMS[@]} -gt 0 ]; then
	printf '  %s\n' "${PROBLEMS[@]}"
	! $STRICT || fail "${#PROBLEMS[@]} cameras with differences no named cause explains: $(printf '%s; ' "${PROBLEMS[@]}")"
fi
