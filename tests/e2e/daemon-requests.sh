#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A camera that misbehaves on endpoint 0 and the status endpoint (issue 12,
# camera faults; uvcuse-vcam --request-fault): control values that STALL or
# come back short, an error code that cannot be read, probe or commit that
# STALL, a status endpoint sending garbage; and a camera unplugged in the
# middle of a control request or of a stream, or silent for 3 s. Each goes
# through uvcvideo first (the reference, same camera, same run), then
# uvcuse: the same errno, the daemon stays up, and once the fault is gone
# (SIGRTMIN+2 to the vcam) frames pass uvcuse-framecheck.
# Usage (in the guest): daemon-requests.sh BUILD_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
CLIENT="python3 $(dirname "$0")/stall_client.py"
NAME=video10
NODE=/dev/$NAME
TABLE=$WORK/table

load_modules vhci-hcd uvcvideo cuse

# result CLIENT_MODE NODE: the errno name (or value, or "ok") of one request.
result() {
	local r
	read -r _ _ r <<<"$($CLIENT "$1" "$2")"
	echo "$r"
}

# first_failed_ioctl: the first ioctl v4l2-ctl (on stdin) says failed, as
# "VIDIOC_X: failed: reason", or nothing.
first_failed_ioctl() {
	grep -oE 'VIDIOC_[A-Z_]+(: failed: | returned -1 \()[A-Za-z /-]+' | head -n 1 |
		sed -E 's/ returned -1 \(/: failed: /'
}

# stream_result NODE [WRAPPER]: "ok" when 5 YUYV 640x480 frames come
# through MMAP, else the first ioctl v4l2-ctl saw fail and its error.
stream_result() {
	local out
	out=$(timeout 60 ${2:+"$2"} v4l2-ctl -d "$1" --set-fmt-video=width=640,height=480,pixelformat=YUYV \
		--stream-mmap --stream-count=5 --stream-to=/dev/null 2>&1) || true
	out=$(first_failed_ioctl <<<"$out")
	echo "${out:-ok}"
}

# good_frames WHAT: with the fault gone, 20 frames through read() pass the checker.
good_frames() {
	v4l2-ctl -d "$NODE" --set-fmt-video=width=640,height=480,pixelformat=YUYV --set-parm=30 ||
		fail "$1: S_FMT once the fault is gone"
	timeout 60 "$READCAP" "$NODE" 20 "$WORK/good.raw" >/dev/null || fail "$1: read() once the fault is gone"
	framecheck "$WORK/good.raw" YUYV 640x480 --min-frames 20 --max-missing 20 | grep -E '^(frames intact|verdict)'
	rm -f "$WORK/good.raw"
}

# row FAULT WHAT UVCVIDEO UVCUSE: the fault table, printed at the end.
row() { printf '| %s | %s | %s | %s |\n' "$@" >>"$TABLE"; }

# replug SERIAL: the last camera unplugged and plugged in again (back to
# its power-on settings, and with uvcvideo)
replug() {
	local i
	kill -USR1 "${VCAM_PIDS[-1]}"
	for ((i = 0; i < 100; i++)); do [ -e "$KNODE" ] || break; sleep 0.1; done
	[ ! -e "$KNODE" ] || fail "$KNODE still there after the unplug"
	plug_back "$1"
}
# plug_back SERIAL: the last camera, unplugged, plugged in again
plug_back() {
	kill -USR2 "${VCAM_PIDS[-1]}"
	KNODE=$(video_node "$1")
}

N=0
# control_fault FAULTS: G_CTRL and S_CTRL of brightness through uvcvideo,
# then uvcuse (started with the fault armed); both must answer alike.
control_fault() {
	local faults=$1 serial k_get k_set u_get u_set
	N=$((N + 1))
	serial=R$N
	step "$faults: G_CTRL and S_CTRL through uvcvideo, then uvcuse"
	vcam_start "$serial" --profile default --request-fault "$faults"
	KNODE=$(video_node "$serial")
	k_get=$(result gctrl "$KNODE")
	k_set=$(result sctrl "$KNODE")
	echo "uvcvideo: G_CTRL $k_get, S_CTRL $k_set"
	replug "$serial" # the camera forgets the value uvcvideo set
	uvcuse_start "$serial" "$NAME"
	u_get=$(result gctrl "$NODE")
	u_set=$(result sctrl "$NODE")
	echo "uvcuse: G_CTRL $u_get, S_CTRL $u_set"
	row "$faults" "G_CTRL, S_CTRL" "$k_get, $k_set" "$u_get, $u_set"
	[ "$u_get" = "$k_get" ] && [ "$u_set" = "$k_set" ] || fail "$faults: uvcuse answers differ from uvcvideo's"
	kill -0 "$UVCUSE_PID" || fail "$faults: uvcuse died"
	kill -RTMIN+2 "${VCAM_PIDS[-1]}"
	sleep 0.2
	u_set=$(result sctrl "$NODE")
	u_get=$(result gctrl "$NODE")
	echo "fault gone: S_CTRL $u_set, G_CTRL $u_get"
	[ "$u_set" = ok ] && [ "$u_get" = 40 ] || fail "$faults: controls once the fault is gone"
	good_frames "$faults"
	uvcuse_stop "$NAME"
	vcam_stop_last
}

control_fault ctrl-stall
control_fault ctrl-short
control_fault ctrl-stall,errcode-stall

# stream_fault FAULT: 5 frames through uvcvideo, then through uvcuse.
stream_fault() {
	local fault=$1 serial k u
	N=$((N + 1))
	serial=R$N
	step "$fault: streaming through uvcvideo, then uvcuse"
	vcam_start "$serial" --profile default --request-fault "$fault"
	KNODE=$(video_node "$serial")
	k=$(stream_result "$KNODE")
	echo "uvcvideo: $k"
	uvcuse_start "$serial" "$NAME"
	u=$(stream_result "$NODE" "$UVCUSE_RUN")
	echo "uvcuse: $u"
	row "$fault" "5 frames, MMAP" "$k" "$u"
	[ "$u" = "$k" ] || fail "$fault: uvcuse answers '$u', uvcvideo '$k'"
	kill -0 "$UVCUSE_PID" || fail "$fault: uvcuse died"
	kill -RTMIN+2 "${VCAM_PIDS[-1]}"
	sleep 0.2
	good_frames "$fault"
	uvcuse_stop "$NAME"
	vcam_stop_last
}

stream_fault probe-stall
stream_fault commit-stall

step "status-garbage: a random status packet every 100 ms while streaming"
vcam_start GARBAGE --profile default --request-fault status-garbage
KNODE=$(video_node GARBAGE)
capture_mmap "$KNODE" YUYV 640x480 60 "$WORK/k.raw"
k=$(framecheck "$WORK/k.raw" YUYV 640x480 --min-frames 60 --max-missing 60 | grep -E '^frames intact')
echo "uvcvideo: $k"
uvcuse_start GARBAGE "$NAME"
"$UVCUSE_RUN" v4l2-ctl -d "$NODE" --set-fmt-video=width=640,height=480,pixelformat=YUYV \
	--stream-mmap --stream-count=60 --stream-to="$WORK/u.raw" || fail "uvcuse capture under garbage"
u=$(framecheck "$WORK/u.raw" YUYV 640x480 --min-frames 60 --max-missing 60 | grep -E '^frames intact')
echo "uvcuse: $u"
# events still arrive: the vcam's automatic controls keep sending real ones
result gctrl "$NODE" | grep -qE '^[0-9]+$' || fail "G_CTRL under garbage"
kill -0 "$UVCUSE_PID" || fail "uvcuse died under garbage"
uvcuse_stop "$NAME"
vcam_stop_last
grep -E 'garbage status packets' "$WORK/vcam-GARBAGE.log" || fail "the vcam sent no garbage"
row status-garbage "60 frames, MMAP" "${k#frames }" "${u#frames }"

step "the camera stops sending frames for 3 s mid-stream"
vcam_start SILENT --profile default
KNODE=$(video_node SILENT)
# silent CAPTURE_NODE [WRAPPER]: 90 frames at 30 fps with a 3 s pause after
# the first second; prints the longest gap between frames (s) and the checker's verdict
silent() {
	${2:+"$2"} v4l2-ctl -d "$1" --set-fmt-video=width=640,height=480,pixelformat=YUYV --set-parm=30 \
		--stream-mmap --stream-count=90 --stream-to="$WORK/s.raw" >"$WORK/s.log" 2>&1 &
	local pid=$!
	sleep 2
	kill -RTMIN "${VCAM_PIDS[-1]}"
	sleep 3
	kill -RTMIN+1 "${VCAM_PIDS[-1]}"
	timeout 60 tail --pid="$pid" -f /dev/null || fail "the capture did not end after the camera came back"
	wait "$pid" || { cat "$WORK/s.log"; fail "the capture failed across the silence"; }
	framecheck "$WORK/s.raw" YUYV 640x480 --min-frames 90 --max-missing 90 | grep -E '^(frames intact|stamp interval max|verdict)'
}
k=$(silent "$KNODE")
echo "uvcvideo: $k"
uvcuse_start SILENT "$NAME"
u=$(silent "$NODE" "$UVCUSE_RUN")
echo "uvcuse: $u"
grep -q 'verdict: pass' <<<"$u" || fail "frames around the silence"
row "3 s without frames" "90 frames, MMAP" "$(grep intact <<<"$k")" "$(grep intact <<<"$u")"
uvcuse_stop "$NAME"
vcam_stop_last

step "unplugged during a control request that the camera never answers"
vcam_start HANG --profile default --ctrl-hang
KNODE=$(video_node HANG)
# unplug_during_request NODE: G_CTRL, the camera unplugged 1 s into it;
# prints the answer and how long it took
unplug_during_request() {
	rm -f "$WORK/hang.mark"
	$CLIENT gctrl "$1" 0 "$WORK/hang.mark" >"$WORK/hang.out" &
	local pid=$! i
	# (the mark appears just before the ioctl)
	for ((i = 0; i < 100; i++)); do [ -e "$WORK/hang.mark" ] && break; sleep 0.1; done
	sleep 1
	kill -USR1 "${VCAM_PIDS[-1]}"
	timeout 20 tail --pid="$pid" -f /dev/null || fail "the request hung after the unplug"
	wait "$pid"
	read -r t0 t1 r <"$WORK/hang.out"
	echo "$r after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
}
k=$(unplug_during_request "$KNODE")
echo "uvcvideo: $k"
[[ "$k" =~ ^E[A-Z]+\  ]] || { dmesg | tail -n 20; fail "uvcvideo's answer is not an errno: '$k'"; }
plug_back HANG
uvcuse_start HANG "$NAME" --exit-on-unplug
u=$(unplug_during_request "$NODE")
echo "uvcuse: $u"
[[ "$u" =~ ^E[A-Z]+\  ]] || fail "uvcuse's answer is not an errno: '$u'"
row "unplug mid-control-request" "G_CTRL (camera never answers)" "$k" "$u"
awk -v t="${u##* after }" 'BEGIN { exit !(t + 0 < 4.5) }' || fail "uvcuse answered only after its timeout"
wait "$UVCUSE_PID" || fail "uvcuse exited with $? after the unplug"
UVCUSE_PID=
[ ! -e "$NODE" ] || fail "$NODE still there after the unplug"
grep -m1 'camera unplugged' "$WORK/uvcuse.log" || fail "uvcuse did not log the unplug"
vcam_stop_last

step "unplugged while an app streams: MMAP through the library, then read()"
vcam_start GONE --profile default
KNODE=$(video_node GONE)
# unplug_during_stream NODE [WRAPPER]: prints how the streaming app ended
unplug_during_stream() {
	${2:+"$2"} v4l2-ctl -d "$1" --set-fmt-video=width=640,height=480,pixelformat=YUYV \
		--stream-mmap --stream-count=100000 >"$WORK/gone.log" 2>&1 &
	app_ended_after_unplug $!
	echo "exit $APP_STATUS, $(tr '\r' '\n' <"$WORK/gone.log" | first_failed_ioctl)"
}
# app_ended_after_unplug PID: the camera unplugged 3 s into the app's
# stream; the app must end within 20 s (its status in APP_STATUS)
app_ended_after_unplug() {
	APP_STATUS=0
	sleep 3
	kill -0 "$1" 2>/dev/null || fail "the app had ended before the unplug"
	kill -USR1 "${VCAM_PIDS[-1]}"
	timeout 20 tail --pid="$1" -f /dev/null || fail "the app hung after the unplug"
	wait "$1" || APP_STATUS=$?
}
# uvcuse_gone: with --exit-on-unplug the daemon exits 0 on an unplug (as
# uvcvideo's node goes)
uvcuse_gone() {
	wait "$UVCUSE_PID" || fail "uvcuse exited with $? after the unplug"
	UVCUSE_PID=
	[ ! -e "$NODE" ] || fail "$NODE still there after the unplug"
}
k=$(unplug_during_stream "$KNODE")
echo "uvcvideo: $k"
plug_back GONE
uvcuse_start GONE "$NAME" --exit-on-unplug
u=$(unplug_during_stream "$NODE" "$UVCUSE_RUN")
echo "uvcuse: $u"
row "unplug mid-stream" "MMAP app" "$k" "$u"
uvcuse_gone
plug_back GONE
uvcuse_start GONE "$NAME" --exit-on-unplug
timeout 60 "$READCAP" "$NODE" 100000 /dev/null >"$WORK/reader.log" 2>&1 &
app_ended_after_unplug $!
u="exit $APP_STATUS, $(tail -n 1 "$WORK/reader.log")"
echo "uvcuse, read(): $u"
[ "$APP_STATUS" != 0 ] || fail "the read() client ended well after the unplug"
row "unplug mid-stream" "read() app" "(no read())" "$u"
uvcuse_gone
vcam_stop_last

step "the table"
echo "| fault | what | uvcvideo | uvcuse |"
echo "| --- | --- | --- | --- |"
cat "$TABLE"
echo "PASS: $STEPS steps"
