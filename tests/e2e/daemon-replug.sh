#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A node that outlives an unplug (issue 13, first part): uvcuse --linger.
# The camera is unplugged (vcam SIGUSR1) during an MMAP capture through the
# library and plugged back (SIGUSR2) 4 s later: the same v4l2-ctl process
# gets all its frames, every one passes the checker, the V4L2 sequence
# numbers jump by about the 4 s of frames the camera did not send, and a
# brightness set before the unplug is in effect after it. A non-blocking
# file meanwhile: V4L2_EVENT_SOURCE_CHANGE at the unplug and the replug, no
# POLLIN and DQBUF EAGAIN while the camera is away (replug_client.py). The
# same for a read() client with an RGB24 one beside it (two processes, one
# converted) and GStreamer through the library (ffmpeg survives its unplug
# in service.sh). Then an
# unplug with no file open: the node goes after the linger and the daemon
# exits 0. Last, --exit-on-unplug: open files get ENODEV, and the node goes
# once they close. The replug rule: with any-port a clone of the camera
# (its serial and descriptors) on another port is taken into the stream
# while the camera is away, with same-port it is not, and the camera back
# on its own port is (issue 29, finding 10). Runs under --systemd: libusb hears of hotplug through
# udevd.
# Usage (in the guest): daemon-replug.sh BUILD_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

[ -d /run/systemd/system ] || fail "needs tests/vm/run --systemd (udevd brings libusb its hotplug events)"
load_modules vhci-hcd uvcvideo cuse
SERIAL=REPLUG
NODE=/dev/video10
vcam_start "$SERIAL" --profile default
video_node "$SERIAL" >/dev/null
uvcuse_start "$SERIAL" video10 --linger 4 --state-dir "$WORK/state"
CAM_PID=${VCAM_PIDS[-1]} # (VCAM is the vcam program, lib.sh)
v4l2-ctl -d "$NODE" -c brightness=40 || fail "brightness"

# replug_during APP_PID: unplug 3 s into the app's stream, back 4 s later
replug_during() {
	# 3 s after the app opened the node (its start may take long: GStreamer's
	# first run in a guest builds its plugin registry, 24 s under TCG)
	local i
	for ((i = 0; i < 600; i++)); do
		ls -l "/proc/$1/fd" 2>/dev/null | grep -q " $NODE\$" && break
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	sleep 3
	kill -0 "$1" 2>/dev/null || fail "the app ended before the unplug"
	kill -USR1 "$CAM_PID"
	sleep 4
	kill -0 "$1" 2>/dev/null || fail "the app ended while the camera was away"
	kill -USR2 "$CAM_PID"
	timeout 60 tail --pid="$1" -f /dev/null || fail "the app hung after the replug"
	wait "$1" || fail "the app failed: $(tail -n 3 "$WORK/app.log")"
}

step "MMAP through the library: unplugged 3 s in, back 4 s later"
"$UVCUSE_RUN" v4l2-ctl -d "$NODE" --set-fmt-video=width=640,height=480,pixelformat=YUYV \
	--set-parm=30 --stream-mmap --stream-count=240 --stream-to="$WORK/mmap.yuyv" --verbose \
	>"$WORK/app.log" 2>&1 &
replug_during $!
framecheck "$WORK/mmap.yuyv" YUYV 640x480 --min-frames 240 --expect-brightness 40 |
	grep -E '^(frames|mean luma|verdict)'
# The largest step between the V4L2 sequence numbers the app saw must
# match the time between those two frames' timestamps at 30 fps (within
# 20 % and 5 frames): the gap says how long the camera was away.
read -r jump gap <<<"$(tr '\r' '\n' <"$WORK/app.log" | grep -E 'seq: *[0-9]+.* ts: *[0-9.]+' |
	sed -E 's/.*seq: *([0-9]+).* ts: *([0-9.]+).*/\1 \2/' |
	awk 'NR > 1 && $1 - p > m { m = $1 - p; g = $2 - t } { p = $1; t = $2 } END { print m + 0, g + 0 }')"
echo "largest jump of the sequence numbers: $jump, over $gap s of timestamps"
awk -v j="$jump" -v g="$gap" 'BEGIN { e = g * 30; d = j - e; if (d < 0) d = -d
	exit !(j >= 60 && d <= 0.2 * e + 5) }' ||
	fail "the sequence numbers jumped by $jump over $gap s (30 fps: $(awk -v g="$gap" 'BEGIN { printf "%.0f", g * 30 }'))"
grep -q "camera back after" "$WORK/uvcuse.log" || fail "no replug in the daemon's log"
grep -q "restored 1 of 1 saved controls" "$WORK/uvcuse.log" || fail "brightness not sent again"

step "a file that streams sees the camera go and come back"
python3 "$(dirname "$0")/replug_client.py" "$NODE" "$CAM_PID" || fail "replug client"

step "read() and RGB24 through the library, two processes on the camera: the same"
# the stream restarts for both: YUYV copied to one, converted for the other
"$READCAP" "$NODE" 300 "$WORK/read.yuyv" >"$WORK/read.log" 2>&1 &
READ=$!
for ((i = 0; i < 150; i++)); do grep -q 'streaming YUYV 640x480, ' "$WORK/uvcuse.log" && break; sleep 0.1; done
joins=$(grep -c 'joins the stream as RGB3' "$WORK/uvcuse.log" || true)
"$UVCUSE_RUN" v4l2-ctl -d "$NODE" --set-fmt-video=width=640,height=480,pixelformat=RGB3 \
	--stream-mmap --stream-count=200 --stream-to="$WORK/rgb.raw" >"$WORK/app.log" 2>&1 &
RGB=$!
for ((i = 0; i < 150; i++)); do
	[ "$(grep -c 'joins the stream as RGB3' "$WORK/uvcuse.log")" -gt "$joins" ] && break
	sleep 0.1
done
replug_during "$RGB"
wait "$READ" || { cat "$WORK/read.log"; fail "the read() capture beside it"; }
framecheck "$WORK/read.yuyv" YUYV 640x480 --min-frames 300 --expect-brightness 40 |
	grep -E '^(frames|mean luma|verdict)'
framecheck "$WORK/rgb.raw" RGB3 640x480 --min-frames 200 --expect-brightness 40 |
	grep -E '^(frames|mean luma|verdict)'
rm -f "$WORK/rgb.raw" "$WORK/read.yuyv"

step "GStreamer (v4l2src through the library): the same"
# (v4l2src's buffer pool subscribes to V4L2_EVENT_SOURCE_CHANGE, and the
# element renegotiates its format at it, while the camera is away)
"$UVCUSE_RUN" gst-launch-1.0 -q v4l2src device="$NODE" num-buffers=240 \
	! video/x-raw,format=YUY2,width=640,height=480,framerate=30/1 \
	! filesink location="$WORK/gst.yuyv" >"$WORK/app.log" 2>&1 &
replug_during $!
framecheck "$WORK/gst.yuyv" YUYV 640x480 --min-frames 240 --expect-brightness 40 |
	grep -E '^(frames|mean luma|verdict)'

step "unplugged with no file open: the node goes after the linger"
kill -USR1 "$CAM_PID"
for ((i = 0; i < 50; i++)); do grep -q "goes in 4 s" "$WORK/uvcuse.log" && break; sleep 0.1; done
[ -c "$NODE" ] || fail "$NODE went at once"
timeout 15 tail --pid="$UVCUSE_PID" -f /dev/null || fail "uvcuse did not leave after the linger"
wait "$UVCUSE_PID" || fail "uvcuse exited with $?"
UVCUSE_PID=
[ ! -e "$NODE" ] || fail "$NODE still there"
grep -E "unplugged|goes in|not back|camera back" "$WORK/uvcuse.log"

step "--exit-on-unplug: open files get ENODEV, the node goes when they close"
kill -USR2 "$CAM_PID"
video_node "$SERIAL" >/dev/null
: >"$WORK/uvcuse.log"
uvcuse_start "$SERIAL" video10 --exit-on-unplug
python3 "$(dirname "$0")/replug_client.py" "$NODE" "$CAM_PID" gone || fail "gone client"
timeout 15 tail --pid="$UVCUSE_PID" -f /dev/null || fail "uvcuse did not leave once the files closed"
wait "$UVCUSE_PID" || fail "uvcuse exited with $?"
UVCUSE_PID=
[ ! -e "$NODE" ] || fail "$NODE still there"
grep -E "unplugged|last file" "$WORK/uvcuse.log"

# clone_while_away RULE WAIT_S: a daemon with replug = RULE serves the
# camera to a streaming app; the camera is unplugged, another camera takes
# its port and a clone of it (same serial, same descriptors) comes on the
# next one. Sets TAKEN to the seconds the daemon took to splice the clone
# into the stream, or to "no" when it had not after WAIT_S seconds (the
# clone's node from uvcvideo already there). The camera stays unplugged.
clone_while_away() {
	local rule=$1 wait_s=$2 t0 app port
	kill -USR2 "$CAM_PID"
	video_node "$SERIAL" >/dev/null
	printf '[uvcuse]\nreplug = %s\n' "$rule" >"$WORK/$rule.conf"
	: >"$WORK/uvcuse.log"
	uvcuse_start "$SERIAL" video10 --linger 60 --config "$WORK/$rule.conf"
	port=$(sed -nE 's/.*\((usb-[^)]*)\) served as.*/\1/p' "$WORK/uvcuse.log" | sed -n 1p)
	"$UVCUSE_RUN" v4l2-ctl -d "$NODE" --stream-mmap --stream-count=100000 --stream-to=/dev/null \
		>"$WORK/app.log" 2>&1 &
	app=$!
	for ((i = 0; i < 150; i++)); do grep -q 'streaming YUYV' "$WORK/uvcuse.log" && break; sleep 0.1; done
	kill -USR1 "$CAM_PID"
	for ((i = 0; i < 100; i++)); do grep -q "waiting for it to come back" "$WORK/uvcuse.log" && break; sleep 0.1; done
	vcam_start OTHER --profile nv12
	video_node OTHER >/dev/null
	vcam_start "$SERIAL" --profile default
	t0=$SECONDS
	TAKEN=no
	while [ $((SECONDS - t0)) -lt "$wait_s" ]; do
		if grep -q "camera back after" "$WORK/uvcuse.log"; then
			TAKEN=$((SECONDS - t0))
			break
		fi
		sleep 0.1
	done
	echo "camera on $port; replug = $rule: the clone on the next port taken: $TAKEN"
	kill "$app" 2>/dev/null
	wait "$app" 2>/dev/null || true
	vcam_stop_last
	vcam_stop_last
}

step "replug = any-port: a clone of the camera (its serial) on another port is taken into the stream"
clone_while_away any-port 30
[ "$TAKEN" != no ] || fail "replug = any-port: the clone was not taken in 30 s"
uvcuse_stop video10

step "replug = same-port: the clone is not taken; the camera back on its own port is"
# the clone's own node (uvcvideo) is there, and the daemon has had four
# times what it took to take the clone above (at least 5 s)
clone_while_away same-port $((TAKEN * 4 > 5 ? TAKEN * 4 : 5))
[ "$TAKEN" = no ] || fail "replug = same-port: a clone on another port was spliced into the stream"
kill -USR2 "$CAM_PID"
for ((i = 0; i < 300; i++)); do grep -q "camera back after" "$WORK/uvcuse.log" && break; sleep 0.1; done
grep -E "camera back after" "$WORK/uvcuse.log" || fail "replug = same-port: the camera back on its port was not taken"
uvcuse_stop video10
echo "PASS: $STEPS steps"
