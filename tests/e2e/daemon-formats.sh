#!/usr/bin/env bash
# uvcuse enumerates exactly as uvcvideo does, and passes v4l2-compliance
# without streaming, on the profiles not covered by daemon.sh.
# Usage (in the guest): daemon-formats.sh BUILD_DIR [PROFILE...]
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
shift
if [ $# -gt 0 ]; then PROFILES=("$@"); else PROFILES=(nv12 h264 usb3); fi

load_modules vhci-hcd uvcvideo cuse
for profile in "${PROFILES[@]}"; do
	serial=F-$profile
	step "$profile: uvcvideo's enumeration, then uvcuse's"
	vcam_start "$serial" --profile "$profile"
	knode=$(video_node "$serial")
	v4l2-ctl -d "$knode" --list-formats-ext >"$WORK/formats.kernel"
	uvcuse_start "$serial" video10
	v4l2-ctl -d /dev/video10 --list-formats-ext >"$WORK/formats.uvcuse"
	diff -u "$WORK/formats.kernel" "$WORK/formats.uvcuse" ||
		fail "$profile: --list-formats-ext differs from uvcvideo's"
	echo "$profile: $(grep -c Interval "$WORK/formats.uvcuse") intervals, identical"

	step "$profile: v4l2-compliance (no streaming)"
	if [ "$profile" = nv12 ]; then
		# The kernel's NV12 name against v4l2-compliance 1.22's, exactly as
		# uvcvideo shows it (see kernel-reference.sh); our node uses the
		# kernel's descriptions.
		skew="pixelformat 3231564e (NV12) for buftype 1 not reported by ENUM_FMT"
		compliance /dev/video10 --no-streaming \
			"VIDIOC_ENUM_FMT/FRAMESIZES/FRAMEINTERVALS|fmtdesc.description mismatch: was 'Y/UV 4:2:0', expected 'Y/CbCr 4:2:0'" \
			"VIDIOC_G_FMT|$skew" "VIDIOC_TRY_FMT|$skew" "VIDIOC_S_FMT|$skew"
	else
		compliance /dev/video10 --no-streaming
	fi
	uvcuse_stop video10
	kill -TERM "${VCAM_PIDS[-1]}"
	wait "${VCAM_PIDS[-1]}" || true
	unset 'VCAM_PIDS[-1]'
done
echo
echo "daemon formats: $STEPS steps passed"
