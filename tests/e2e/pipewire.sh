#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Cameras in PipeWire (tests/vm/run --systemd): uvcuse installed by the
# README's install block (readme-install.sh), a user session (lingering, so systemd --user runs
# dbus, pipewire, wireplumber and the enabled uvcuse-pipewire.service), a
# virtual camera plugged in. The user's PipeWire gets a Video/Source node
# for it: GStreamer's device monitor lists it, pipewiresrc captures checked
# YUYV and MJPEG frames while ffmpeg streams the same camera from the node,
# the Camera portal (with a headless access backend) hands out a remote
# that captures converted RGB, an idle bridge costs no wakeup and no
# streaming, a capture goes on across an unplug, a PipeWire restart
# republishes the node, and a user who may not open the camera gets none.
# Usage (in the guest): pipewire.sh BUILD_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
SERIAL=PW-1
E2E=$(cd "$(dirname "$0")" && pwd)
VID=1209 PID=0001
UNIT=$(systemd-escape --template=uvcuse@.service "serial-$VID-$PID-$SERIAL")

# as USER CMD...: CMD in USER's session (their runtime dir and bus).
as() {
	local user=$1 uid
	shift
	uid=$(id -u "$user")
	runuser -u "$user" -- env XDG_RUNTIME_DIR="/run/user/$uid" \
		DBUS_SESSION_BUS_ADDRESS="unix:path=/run/user/$uid/bus" "$@"
}
# bridge_log USER: the bridge's journal in USER's session.
bridge_log() { journalctl -b --no-pager -o cat _UID="$(id -u "$1")" _SYSTEMD_USER_UNIT=uvcuse-pipewire.service; }
bridge_pid() { as "$1" systemctl --user show -p MainPID --value uvcuse-pipewire.service; }
# pw_nodes USER: the names of USER's PipeWire nodes that uvcuse publishes.
pw_nodes() { as "$1" pw-cli ls Node 2>/dev/null | sed -nE 's/.*node\.name = "(uvcuse_input\.[^"]*)".*/\1/p'; }
# wait_for TIMEOUT_S TEXT CMD...: until CMD succeeds.
wait_for() {
	local timeout=$1 what=$2 i
	shift 2
	for ((i = 0; i < timeout * 10; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	fail "$what: not within ${timeout} s"
}
has_node() { [ -n "$(pw_nodes "$1")" ]; }
no_node() { [ -z "$(pw_nodes "$1")" ]; }
# switches USER: voluntary + involuntary context switches of all the
# bridge's threads so far.
switches() {
	local pid
	pid=$(bridge_pid "$1")
	cat /proc/"$pid"/task/*/status | awk '/ctxt_switches/ { s += $2 } END { print s }'
}
streaming() { systemctl show -p StatusText --value "$UNIT" | grep -q streaming; }
commits() { grep -c 'stream started' "$WORK/vcam-$SERIAL.log" || true; }

on_exit() {
	local status=$?
	if [ $status -ne 0 ]; then
		echo "--- uvcuse-pipewire (alice), last 30 lines"
		journalctl -b --no-pager -o short-monotonic _UID="$(id -u alice)" _SYSTEMD_USER_UNIT=uvcuse-pipewire.service | tail -n 30 || true
		echo "--- wireplumber (alice), last 15 lines"
		journalctl -b --no-pager -o cat _UID="$(id -u alice)" _SYSTEMD_USER_UNIT=wireplumber.service | tail -n 15 || true
		journalctl -b --no-pager -o cat -u "$UNIT" | tail -n 20 || true
	fi
	# what the scenario set up beside the README's install
	loginctl disable-linger alice mallory 2>/dev/null || true
	rm -rf /etc/systemd/user/uvcuse-pipewire.service.d /etc/uvcuse
	cleanup "$status"
}
trap on_exit EXIT

step "installed by the README's install block; users; the bridge enabled for every user"
ensure_installed
systemctl --global enable uvcuse-pipewire.service
mkdir -p /etc/systemd/user/uvcuse-pipewire.service.d
printf '[Service]\nExecStart=\nExecStart=/usr/bin/uvcuse-pipewire --log-level debug\n' \
	>/etc/systemd/user/uvcuse-pipewire.service.d/debug.conf
load_modules vhci-hcd
useradd -m -G video alice
useradd -m mallory # not in group video: may not open the camera
OUT=$(runuser -u alice -- mktemp -d) # alice's captures
# the node goes 2 s after the camera (default 30)
mkdir -p /etc/uvcuse
printf '[uvcuse]\nlinger = 2\n' >/etc/uvcuse/uvcuse.conf

step "plug in: the service serves the camera"
vcam_start "$SERIAL" --profile default
wait_for 20 "$UNIT active" systemctl is-active -q "$UNIT"
NODE=$(systemctl show -p StatusText --value "$UNIT" | grep -oE '/dev/video[0-9]+' | head -n 1)
[ -n "$NODE" ] || fail "the unit names no node"
CARD=$(v4l2-ctl -d "$NODE" --info | sed -nE 's/^\s*Card type\s*: (.*)$/\1/p')
echo "node $NODE, card \"$CARD\""

step "user sessions start: pipewire, wireplumber and the bridge"
loginctl enable-linger alice mallory
wait_for 60 "alice's bridge active" as alice systemctl --user is-active -q uvcuse-pipewire.service
wait_for 30 "alice's PipeWire node" has_node alice
NAME=$(pw_nodes alice | head -n 1)
echo "alice's node: $NAME"
as alice pw-cli info "$NAME" | grep -E 'media\.(class|role)|node\.(name|description)|device\.(vendor|product)\.id|object\.serial' | tee "$WORK/props.txt"
grep -q 'media.class = "Video/Source"' "$WORK/props.txt" || fail "media.class"
grep -q 'media.role = "Camera"' "$WORK/props.txt" || fail "media.role"
grep -q "node.description = \"$CARD\"" "$WORK/props.txt" || fail "node.description is not the card name"
grep -q "device.vendor.id = \"0x$VID\"" "$WORK/props.txt" || fail "device.vendor.id"
grep -q "device.product.id = \"0x$PID\"" "$WORK/props.txt" || fail "device.product.id"

step "a user who may not open the camera gets no node"
wait_for 60 "mallory's bridge active" as mallory systemctl --user is-active -q uvcuse-pipewire.service
sleep 2
no_node mallory || fail "mallory got a node: $(pw_nodes mallory)"
echo "mallory: no uvcuse node"

step "GStreamer's device monitor lists the camera"
as alice timeout 60 gst-device-monitor-1.0 Video/Source | tee "$WORK/monitor.txt" | grep -E 'name|class' || true
grep -q "name  *: $CARD" "$WORK/monitor.txt" || fail "gst-device-monitor does not list \"$CARD\""

step "idle: no streaming, no wakeup of the bridge over 10 s"
c0=$(commits)
s0=$(switches alice)
sleep 10
s1=$(switches alice)
c1=$(commits)
echo "bridge context switches in 10 s: $((s1 - s0)); camera streams started: $((c1 - c0))"
[ "$((s1 - s0))" -eq 0 ] || fail "the idle bridge woke up $((s1 - s0)) times"
[ "$c1" -eq 0 ] || fail "the camera streamed with no consumer"

# pw_capture COUNT CAPS FILE: COUNT frames from the node through pipewiresrc.
pw_capture() {
	as alice timeout 120 gst-launch-1.0 pipewiresrc target-object="$NAME" num-buffers="$1" ! \
		"$2" ! filesink location="$3" >"$WORK/gst.log" 2>&1 ||
		{ tail -n 20 "$WORK/gst.log"; fail "pipewiresrc $2"; }
}

# capture_pw CAPS FOURCC SIZE FILE FFMPEG_FORMAT [BUSY_CAPS]: 60 frames
# through pipewiresrc while uvcuse-run ffmpeg streams the same mode from the
# node (and first, BUSY_CAPS, a mode the camera cannot give meanwhile).
capture_pw() {
	local caps=$1 fourcc=$2 size=$3 file=$4 ffmt=$5
	as alice uvcuse-run ffmpeg -hide_banner -loglevel error -nostdin -f v4l2 -input_format "$ffmt" \
		-video_size "$size" -i "$NODE" -t 40 -f null - >"$WORK/ffmpeg.log" 2>&1 &
	local ff=$!
	wait_for 30 "ffmpeg streaming" streaming
	if [ -n "${6:-}" ]; then
		# another mode while ffmpeg streams: the sharing rules answer EBUSY,
		# the bridge fails that stream (pipewiresrc then waits, its default
		# on a lost link: cut short here), and a fresh node serves the next
		local n
		n=$(bridge_log alice | grep -c 'setting the format: Device or resource busy' || true)
		if as alice timeout 8 gst-launch-1.0 pipewiresrc target-object="$NAME" num-buffers=5 ! \
			"$6" ! fakesink >"$WORK/gst-busy.log" 2>&1; then
			fail "pipewiresrc got $6 while ffmpeg streams $ffmt $size"
		fi
		wait_for 10 "the bridge's EBUSY" test "$(bridge_log alice | grep -c 'setting the format: Device or resource busy')" -gt "$n"
		echo "$6 while ffmpeg streams: no frame, the bridge says: $(bridge_log alice | grep -m1 -o 'setting the format: .*')"
		wait_for 10 "the node back after the refusal" has_node alice
	fi
	camera_mark "$SERIAL"
	pw_capture 60 "$caps" "$file"
	kill -0 "$ff" 2>/dev/null || { cat "$WORK/ffmpeg.log"; fail "ffmpeg did not stream all along"; }
	# runuser does not pass signals on: ffmpeg itself is told to stop
	pkill -INT -u alice -x ffmpeg || true
	wait "$ff" || true
	framecheck "$file" "$fourcc" "$size" --min-frames 60
	rm -f "$file"
}

step "pipewiresrc: 60 YUYV 640x480 frames while ffmpeg streams the camera"
capture_pw "video/x-raw,format=YUY2,width=640,height=480" YUYV 640x480 "$OUT/pw.yuyv" yuyv422 \
	"image/jpeg,width=1920,height=1080"
step "pipewiresrc: 60 MJPEG 1280x720 frames while ffmpeg streams the camera"
capture_pw "image/jpeg,width=1280,height=720" MJPG 1280x720 "$OUT/pw.mjpg" mjpeg
bridge_log alice | grep -E 'streaming|stopped' | tail -n 4
# pipewiresrc takes dma-bufs (SPA_DATA_DmaBuf, no modifier: PipeWire's
# convention for a camera's): the bridge gives them where the daemon makes
# them (/dev/udmabuf: Debian's 6.12, not its 6.1), memfds otherwise; the
# frames above were read through them
if [ -e /dev/udmabuf ]; then BUFFERS=dma-bufs; else BUFFERS=memfds; fi
n=$(bridge_log alice | grep -c "streaming .* to PipeWire in $BUFFERS" || true)
[ "$n" -ge 2 ] || fail "the bridge did not stream in $BUFFERS: $(bridge_log alice | grep -E 'streaming .* to PipeWire' | tail -n 2)"
echo "both captures in $BUFFERS (/dev/udmabuf: $([ -e /dev/udmabuf ] && echo yes || echo no))"

step "the Camera portal: IsCameraPresent, AccessCamera, OpenPipeWireRemote, checked frames"
# xdg-desktop-portal needs an access backend: a headless stub that allows
mkdir -p /usr/share/xdg-desktop-portal/portals
cat >/usr/share/xdg-desktop-portal/portals/uvcusetest.portal <<'PORTAL'
[portal]
DBusName=org.freedesktop.impl.portal.desktop.uvcusetest
Interfaces=org.freedesktop.impl.portal.Access;
UseIn=uvcusetest
PORTAL
as alice systemctl --user set-environment XDG_CURRENT_DESKTOP=uvcusetest
as alice "$E2E/portal_access_stub.py" >"$OUT/access.log" 2>&1 &
wait_for 30 "the access backend" grep -q ready "$OUT/access.log"
# (in RGB: a format the daemon converts to)
as alice "$E2E/portal_camera.py" "$NAME" 30 video/x-raw,format=RGB,width=640,height=480 \
	"$OUT/portal.rgb" || { cat "$OUT/access.log"; fail "capture through the Camera portal"; }
cat "$OUT/access.log"
framecheck "$OUT/portal.rgb" RGB24 640x480 --min-frames 30
rm -f "$OUT/portal.rgb"

step "unplugged 2 s during a pipewiresrc capture: the node stays, the capture goes on"
as alice timeout 120 gst-launch-1.0 pipewiresrc target-object="$NAME" num-buffers=120 ! \
	video/x-raw,format=YUY2,width=640,height=480 ! filesink location="$OUT/replug.yuyv" \
	>"$WORK/gst.log" 2>&1 &
gst=$!
wait_for 30 "the capture streaming" streaming
sleep 1
kill -USR1 "${VCAM_PIDS[-1]}"
wait_for 10 "the camera away" bash -c "systemctl show -p StatusText --value '$UNIT' | grep -q away"
sleep 2
has_node alice || fail "the node left during a short unplug"
kill -USR2 "${VCAM_PIDS[-1]}"
wait "$gst" || { tail -n 20 "$WORK/gst.log"; fail "pipewiresrc across the unplug"; }
# the frames the camera did not send while away are missing, no others
framecheck "$OUT/replug.yuyv" YUYV 640x480 --min-frames 120 | grep -E '^(frames|verdict)'
rm -f "$OUT/replug.yuyv"

step "PipeWire restarts: the bridge publishes the camera again within 5 s of PipeWire serving"
# From the moment the new PipeWire answers a client to the bridge's
# "published" line (logged once its node is in PipeWire's registry), both
# in CLOCK_MONOTONIC. Not from systemd's "Started": PipeWire serves no
# client until its modules are loaded, which in this guest, with no RTKit,
# takes about 10 s (module-rt's D-Bus calls), the bridge's connection
# waiting like any other.
published() { bridge_log alice | grep -c 'published as PipeWire node' || true; }
mono() { sed -nE 's/^\[ *([0-9]+\.[0-9]+)\].*/\1/p' | tail -n 1; }
before=$(published)
published_again() { [ "$(published)" -gt "$before" ]; }
uid=$(id -u alice)
# (what PipeWire and the bridge did meanwhile, should it be slow)
restart_log() {
	journalctl -b --no-pager -o short-monotonic _UID="$uid" --since=-60s |
		grep -E 'pipewire|uvcuse-pipewire|wireplumber' | tail -n 40 || true
}
as alice systemctl --user restart pipewire.service
as alice timeout 60 pw-cli info 0 >/dev/null || fail "the new PipeWire answers no client"
t_serving=$(cut -d' ' -f1 /proc/uptime)
for ((i = 0; i < 300; i++)); do published_again && break; sleep 0.1; done
published_again || { restart_log; fail "the bridge did not publish again within 30 s"; }
t_pw=$(journalctl -b --no-pager -o short-monotonic _UID="$uid" USER_UNIT=pipewire.service |
	grep 'Started' | mono)
t_node=$(journalctl -b --no-pager -o short-monotonic _UID="$uid" _SYSTEMD_USER_UNIT=uvcuse-pipewire.service |
	grep 'published as PipeWire node' | mono)
[ -n "$t_pw" ] && [ -n "$t_node" ] || fail "no journal times (PipeWire started: '$t_pw', node published: '$t_node')"
back=$(awk -v a="$t_serving" -v b="$t_node" 'BEGIN { printf "%.2f", b - a }')
echo "PipeWire started at $t_pw s, served a client at $t_serving s; the node published again at $t_node s: $back s after"
# (negative: the bridge, connected first, was in before the probe's answer)
awk -v d="$back" 'BEGIN { exit !(d <= 5) }' || { restart_log; fail "republished $back s after PipeWire served"; }
# the bridge says "published" once its node is in PipeWire (PAUSED); a
# client that connects now lists it
has_node alice || { as alice pw-cli ls Node | grep -E 'node.name|id ' || true; fail "the republished node is not in PipeWire"; }
pw_capture 30 video/x-raw,format=YUY2,width=640,height=480 "$OUT/restart.yuyv"
framecheck "$OUT/restart.yuyv" YUYV 640x480 --min-frames 30

if [ -e /dev/udmabuf ]; then
	step "a daemon that cannot make dma-bufs: the bridge gives memfds"
	# as on a kernel without udmabuf (Debian's 6.1): the unit may not see it
	mkdir -p "/run/systemd/system/$UNIT.d"
	printf '[Service]\nInaccessiblePaths=/dev/udmabuf\n' >"/run/systemd/system/$UNIT.d/no-udmabuf.conf"
	systemctl daemon-reload
	systemctl restart "$UNIT"
	wait_for 20 "$UNIT active" systemctl is-active -q "$UNIT"
	wait_for 30 "the node in PipeWire again" has_node alice
	NAME=$(pw_nodes alice | head -n 1)
	pw_capture 30 video/x-raw,format=YUY2,width=640,height=480 "$OUT/memfd.yuyv"
	framecheck "$OUT/memfd.yuyv" YUYV 640x480 --min-frames 30 | grep -E '^(frames|verdict)'
	rm -f "$OUT/memfd.yuyv" "/run/systemd/system/$UNIT.d/no-udmabuf.conf"
	systemctl daemon-reload
	bridge_log alice | grep -E 'streaming .* to PipeWire' | tail -n 1 | tee "$WORK/last.txt"
	grep -q 'in memfds' "$WORK/last.txt" || fail "the bridge did not fall back to memfds"
fi

step "the camera goes: the node goes"
vcam_stop_last
wait_for 30 "the node gone" no_node alice
echo "PASS"
