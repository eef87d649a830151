#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# uvcuse enumerates exactly as uvcvideo does, and passes v4l2-compliance
# without streaming, on the profiles not covered by daemon.sh.
# Usage (in the guest): daemon-formats.sh BUILD_DIR [PROFILE...]
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
shift
if [ $# -gt 0 ]; then PROFILES=("$@"); else PROFILES=(nv12 h264 usb3); fi

# expect_exit STATUS PATTERN COMMAND...: the daemon refuses, clearly.
expect_exit() {
	local want=$1 pattern=$2 out status=0
	shift 2
	out=$("$@" 2>&1) || status=$?
	echo "$* -> $status: $out"
	[ "$status" -eq "$want" ] && grep -qE -- "$pattern" <<<"$out" ||
		fail "expected status $want and /$pattern/"
}

load_modules vhci-hcd uvcvideo
step "start-up errors: no such camera, not a UVC camera, name taken, no /dev/cuse"
vcam_start ERR --profile default
knode=$(video_node ERR)
expect_exit 1 "no camera matches \\(asked for serial NOPE\\)" "$UVCUSE" --serial NOPE -f
# vhci-hcd's own root hub: a USB device, but no video function
expect_exit 1 "has no UVC video function" "$UVCUSE" --device 1d6b:0002 -f
expect_exit 1 "name ${knode#/dev/} is taken" "$UVCUSE" --serial ERR --name "${knode#/dev/}" -f
if [ ! -e /dev/cuse ]; then
	expect_exit 1 "no /dev/cuse" "$UVCUSE" --serial ERR --name video10 -f
	video_node ERR 10 >/dev/null # the camera went back to uvcvideo
fi
load_modules cuse
step "without --foreground: detached once the node exists, SIGTERM removes it"
"$UVCUSE" --serial ERR --name video10 2>>"$WORK/uvcuse.log" || fail "detached start"
[ -c /dev/video10 ] || fail "no /dev/video10 when the parent returned"
pid=$(pgrep -f "uvcuse --serial ERR")
v4l2-ctl -d /dev/video10 --info | grep -q "Driver name.*uvcuse" || fail "detached node"
kill -TERM "$pid"
for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
[ ! -e /dev/video10 ] || fail "/dev/video10 outlived the daemon"
echo "detached daemon $pid served /dev/video10 and left on SIGTERM"
vcam_stop_last

for profile in "${PROFILES[@]}"; do
	serial=F-$profile
	step "$profile: uvcvideo's enumeration, then uvcuse's"
	vcam_start "$serial" --profile "$profile"
	knode=$(video_node "$serial")
	v4l2-ctl -d "$knode" --list-formats-ext >"$WORK/formats.kernel"
	uvcuse_start "$serial" video10
	v4l2-ctl -d /dev/video10 --list-formats-ext >"$WORK/formats.uvcuse"
	kernel_then_converted "$WORK/formats.kernel" "$WORK/formats.uvcuse"
	tail -n +"$(($(wc -l <"$WORK/formats.kernel") + 1))" "$WORK/formats.uvcuse"

	if [ "$profile" = nv12 ]; then
		step "nv12: uvcuse-run v4l2-compliance -s -f: every format (converted ones included), size and interval"
		# The kernel's NV12 name against v4l2-compliance 1.22's, exactly as
		# uvcvideo shows it (see kernel-reference.sh); our node uses the
		# kernel's descriptions.
		skew="pixelformat 3231564e (NV12) for buftype 1 not reported by ENUM_FMT"
		COMPLIANCE_RUN=$UVCUSE_RUN compliance /dev/video10 --all-formats \
			"VIDIOC_ENUM_FMT/FRAMESIZES/FRAMEINTERVALS|fmtdesc.description mismatch: was 'Y/UV 4:2:0', expected 'Y/CbCr 4:2:0'" \
			"VIDIOC_G_FMT|$skew" "VIDIOC_TRY_FMT|$skew" "VIDIOC_S_FMT|$skew"
		all_formats_streamed
	else
		step "$profile: v4l2-compliance (no streaming), converted formats offered"
		compliance /dev/video10 --no-streaming
	fi
	uvcuse_stop video10

	step "$profile: --no-convert is exactly uvcvideo's list, --convert the default one"
	uvcuse_start "$serial" video10 --no-convert
	v4l2-ctl -d /dev/video10 --list-formats-ext >"$WORK/formats.noconvert"
	diff -u "$WORK/formats.kernel" "$WORK/formats.noconvert" ||
		fail "$profile: --no-convert list differs from uvcvideo's"
	echo "$profile: $(grep -c Interval "$WORK/formats.noconvert") intervals, identical with --no-convert"
	if [ "$profile" = usb3 ]; then
		# SuperSpeed isochronous streams every native combination; the
		# converted ones are the same conversions daemon-apps, daemon-bulk
		# and nv12 above stream, over any bus
		step "usb3 --no-convert: uvcuse-run v4l2-compliance -s -f (every format, size and interval over SuperSpeed)"
		COMPLIANCE_RUN=$UVCUSE_RUN compliance /dev/video10 --all-formats
		echo "  $(grep -c 'test MMAP for Format' "$WORK/compliance.log") format/size/interval combinations streamed"
	fi
	uvcuse_stop video10
	uvcuse_start "$serial" video10 --convert
	v4l2-ctl -d /dev/video10 --list-formats-ext >"$WORK/formats.convert"
	diff -u "$WORK/formats.uvcuse" "$WORK/formats.convert" || fail "$profile: --convert is not the default list"
	uvcuse_stop video10
	vcam_stop_last
done
echo
echo "daemon formats: $STEPS steps passed"
