#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# DMABUF on a kernel with udmabuf (Debian 12's 6.12: run with tests/vm/run
# --kernel 6.12), judged against uvcvideo in the same guest, with vivid's
# capture node as the other driver whose dma-bufs a camera's frames go to:
# - export (VIDIOC_EXPBUF: the library asks the daemon for a dma-buf it
#   makes through /dev/udmabuf): v4l2-compliance -s's EXPBUF test, and
#   GStreamer's v4l2src io-mode=dmabuf capturing 60 intact frames;
# - import (V4L2_MEMORY_DMABUF: the library hands the app's dma-bufs to the
#   daemon, which maps them): compliance's DMABUF test with vivid as the
#   exporter, uvcuse-dmabufgrab's 60 frames intact in vivid's dma-bufs and
#   its transcript of vb2's answers identical to uvcvideo's (its frames
#   checked), and GStreamer's io-mode=dmabuf-import into the dma-bufs of
#   v4l2sink on vivid's output node (60 imported, 60 to EOS: the only
#   dma-buf pool a headless GStreamer 1.22 has; the camera says BT.601
#   colorimetry, which vivid's output takes);
# - without the library EXPBUF stays ENOTTY, as CUSE cannot hand an fd back.
# Usage (in the guest): daemon-dmabuf.sh BUILD_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
SERIAL=C-dmabuf
NAME=video10
NODE=/dev/$NAME

[ -c /dev/udmabuf ] || fail "no /dev/udmabuf: this kernel ($(uname -r)) has no udmabuf; run with --kernel 6.12"

# gst_dmabuf NODE OUT [RUN]: 60 frames of YUYV 640x480 through exported dma-bufs
gst_dmabuf() {
	timeout 120 ${3:+"$3"} gst-launch-1.0 -q v4l2src device="$1" io-mode=dmabuf num-buffers=60 \
		! video/x-raw,format=YUY2,width=640,height=480 \
		! filesink location="$2" || fail "gst-launch-1.0 io-mode=dmabuf on $1"
	framecheck "$2" YUYV 640x480 --min-frames 60 | grep -E '^(frames intact|verdict)'
}

# verdicts NODE OUT [RUN]: v4l2-compliance -s's test verdicts, one a line,
# vivid's capture node exporting the dma-bufs of the DMABUF test
verdicts() {
	timeout 300 ${3:+"$3"} v4l2-compliance -d "$1" -s -e "$VIVID" >"$2.log" 2>&1 || true
	tr '\r' '\n' <"$2.log" | grep -E '^\s*test .*: (OK|FAIL)' | sed 's/^\s*//' >"$2"
	grep -E '^Total for' "$2.log" | tail -n 1
}

# grab NODE OUT [RUN]: 60 frames into vivid's dma-bufs, the transcript in OUT.txt
grab() {
	timeout 120 ${3:+"$3"} "$DMABUFGRAB" "$1" "$VIVID" 60 "$2" >"$2.txt" 2>&1 ||
		{ cat "$2.txt"; fail "uvcuse-dmabufgrab on $1"; }
	framecheck "$2" YUYV 640x480 --min-frames 60 | grep -E '^(frames intact|verdict)'
}

# gst_import NODE [RUN]: 60 frames of the camera into vivid's output
# buffers, which v4l2sink exports and offers upstream (the one dma-buf pool
# a headless GStreamer 1.22 has); counted by GStreamer's allocator log
gst_import() {
	GST_DEBUG=v4l2allocator:6 timeout 120 ${2:+"$2"} gst-launch-1.0 -q v4l2src device="$1" \
		io-mode=dmabuf-import num-buffers=60 ! video/x-raw,format=YUY2,width=640,height=480 \
		! v4l2sink device="$VIVID_OUT" io-mode=dmabuf sync=false >"$WORK/gst-import.log" 2>&1 ||
		{ grep -E "ERROR|WARN" "$WORK/gst-import.log" | tail -n 8; fail "io-mode=dmabuf-import on $1"; }
	local imports
	imports=$(grep -c "imported DMABUF as fd" "$WORK/gst-import.log" || true)
	echo "v4l2src io-mode=dmabuf-import on $1: 60 buffers to EOS, $imports dma-buf imports"
	[ "$imports" -ge 60 ] || fail "v4l2src did not import dma-bufs"
}

load_modules vhci-hcd uvcvideo cuse
# its buffers must hold the camera's 640x480 YUYV frames
VIVID=$(vivid_exporter 1280x720)
VIVID_OUT=''
for d in /sys/class/video4linux/video*; do
	[ "$(cat "$d/name")" = vivid-000-vid-out ] && VIVID_OUT=/dev/${d##*/}
done
[ -c "$VIVID_OUT" ] || fail "no vivid output node"
# its HDMI output takes the camera's progressive 640x480 YUYV
v4l2-ctl -d "$VIVID_OUT" --set-output=1 >/dev/null || fail "vivid's output"
v4l2-ctl -d "$VIVID_OUT" --set-fmt-video-out=width=640,height=480,pixelformat=YUYV,field=none ||
	fail "vivid's output format"
# (--bt601: colorimetry that vivid's output takes too, for GStreamer's
# v4l2src ! v4l2sink to negotiate)
vcam_start "$SERIAL" --profile default --bt601
KNODE=$(video_node "$SERIAL")
DMABUFGRAB=$BUILD/tests/tools/uvcuse-dmabufgrab
echo "kernel $(uname -r), /dev/udmabuf: $(stat -c '%A %U:%G' /dev/udmabuf), vivid $VIVID"

# (Debian 12's v4l2-compliance is older than 6.12's vb2: some of its checks
# fail on uvcvideo itself; the reference is what uvcvideo answers.)
step "uvcvideo: v4l2-compliance -s -e vivid (the reference), io-mode=dmabuf and uvcuse-dmabufgrab"
verdicts "$KNODE" "$WORK/verdicts.kernel"
grep -x "test VIDIOC_EXPBUF: OK" "$WORK/verdicts.kernel" || fail "uvcvideo does not export buffers here"
grep -E "test DMABUF.*: OK" "$WORK/verdicts.kernel" || fail "uvcvideo does not import vivid's dma-bufs here"
gst_dmabuf "$KNODE" "$WORK/gst-kernel.yuyv"
gst_import "$KNODE"
grab "$KNODE" "$WORK/grab-kernel.yuyv"

step "uvcuse takes the camera"
uvcuse_start "$SERIAL" "$NAME"

step "uvcuse-run v4l2-compliance -s -e vivid: EXPBUF and DMABUF as on uvcvideo, no test failed"
total=$(verdicts "$NODE" "$WORK/verdicts.uvcuse" "$UVCUSE_RUN")
echo "$total"
grep -x "test VIDIOC_EXPBUF: OK" "$WORK/verdicts.uvcuse" ||
	{ cat "$WORK/verdicts.uvcuse.log"; fail "EXPBUF is not OK on uvcuse"; }
grep -E "test DMABUF.*: OK" "$WORK/verdicts.uvcuse" ||
	{ cat "$WORK/verdicts.uvcuse.log"; fail "DMABUF is not OK on uvcuse"; }
grep -q ', Failed: 0,' <<<"$total" || { grep FAIL "$WORK/verdicts.uvcuse"; fail "v4l2-compliance: $total"; }
grep -c "dma-buf\|dmabuf\|EXPBUF" "$WORK/uvcuse.log" || true

step "uvcuse-run gst-launch-1.0 v4l2src io-mode=dmabuf: 60 frames from dma-bufs"
gst_dmabuf "$NODE" "$WORK/gst-uvcuse.yuyv" "$UVCUSE_RUN"

step "uvcuse-run uvcuse-dmabufgrab: 60 frames in vivid's dma-bufs, vb2's answers as uvcvideo's"
before=$(fast_requests "$NODE")
grab "$NODE" "$WORK/grab-uvcuse.yuyv" "$UVCUSE_RUN"
fast=$(($(fast_requests "$NODE") - before))
echo "requests through the fast path's channel: $fast (the DMABUF QBUFs among them)"
[ "$fast" -ge 60 ] || fail "the DMABUF QBUFs did not take the fast path"
# an app queueing each buffer again as it dequeued it: the ring serves it
before=$(fast_requests "$NODE" posted)
"$UVCUSE_RUN" "$BUILD/tests/tools/uvcuse-streambench" "$NODE" --dmabuf "$VIVID" -f YUYV -s 640x480 \
	-n 60 >/dev/null || fail "uvcuse-streambench --dmabuf"
posted=$(($(fast_requests "$NODE" posted) - before))
echo "uvcuse-streambench --dmabuf: $posted of its 60 QBUFs posted in the ring"
[ "$posted" -ge 50 ] || fail "DMABUF QBUFs were not posted in the ring"
diff "$WORK/grab-kernel.yuyv.txt" "$WORK/grab-uvcuse.yuyv.txt" ||
	fail "uvcuse-dmabufgrab's transcripts differ (uvcvideo's, then uvcuse's)"
sed 's/^/  /' "$WORK/grab-uvcuse.yuyv.txt"

step "uvcuse-run gst-launch-1.0 v4l2src io-mode=dmabuf-import into v4l2sink's dma-bufs"
gst_import "$NODE" "$UVCUSE_RUN"

step "without the library, EXPBUF is ENOTTY (CUSE hands no fd back)"
python3 - "$NODE" <<'PY' || fail "EXPBUF without the library"
import ctypes, fcntl, os, struct, sys
VIDIOC_REQBUFS = 0xc0145608
VIDIOC_EXPBUF = 0xc0405610
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.ioctl(fd, VIDIOC_REQBUFS, bytearray(struct.pack("5I", 2, 1, 1, 0, 0)))
try:
    fcntl.ioctl(fd, VIDIOC_EXPBUF, bytearray(struct.pack("5I44x", 1, 0, 0, os.O_RDWR, 0)))
    sys.exit("EXPBUF answered without the library")
except OSError as e:
    print("EXPBUF without the library:", os.strerror(e.errno))
    sys.exit(0 if e.errno == 25 else 1)
PY
uvcuse_stop "$NAME"
echo
echo "daemon dmabuf: $STEPS steps passed"
