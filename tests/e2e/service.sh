#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Plug in and use (tests/vm/run --systemd): uvcuse installed by the README's
# install block (readme-install.sh), a virtual camera plugged in,
# udev starts uvcuse@IDENTITY.service by itself, and unprivileged users
# capture from the node. Also: the unit's own checks, a second camera, a
# camera the config leaves to uvcvideo, kill -9, a bad config, uvcuse
# --status, an unplug and replug during a capture (the same daemon takes the
# camera back), and an unplug with no app (the instance ends after the
# linger).
# Usage (in the guest): service.sh BUILD_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
VID=1209 PID=0001

# unit_of SERIAL: the instance udev starts for a camera with that serial.
unit_of() { systemd-escape --template=uvcuse@.service "serial-$VID-$PID-$1"; }
main_pid() { systemctl show -p MainPID --value "$1"; }

# wait_active UNIT TIMEOUT_S: active (for Type=notify: node ready) in time.
wait_active() {
	local unit=$1 timeout=$2 i
	for ((i = 0; i < timeout * 10; i++)); do
		systemctl is-active -q "$unit" && return 0
		sleep 0.1
	done
	systemctl status --no-pager "$unit" || true
	journalctl -b --no-pager -u "$unit" | tail -n 30
	fail "$unit not active after ${timeout}s"
}

# late_of NODE UNIT: the frames the apps were too late to take, so far
# (lib.sh's late_frames, from the unit's journal); a capture's frames
# missing are bounded by those plus a few the camera may skip
late_of() { late_frames "$1" journalctl -b --no-pager -o cat -u "$2"; }

# node_of UNIT: the node the instance serves (its STATUS= line names it).
node_of() {
	systemctl show -p StatusText --value "$1" | grep -oE '/dev/video[0-9]+' | head -n 1
}

step "installed by the README's install block"
ensure_installed
UVCUSE_BIN=$(command -v uvcuse) || fail "uvcuse is not on PATH after the install"
RUN_BIN=$(command -v uvcuse-run) || fail "uvcuse-run is not on PATH after the install"
echo "installed: $UVCUSE_BIN, $RUN_BIN"
load_modules vhci-hcd uvcvideo

step "systemd-analyze verify and security"
SERIAL=SVC-1
UNIT=$(unit_of "$SERIAL")
systemd-analyze verify "$UNIT" 2>&1 | tee "$WORK/verify.log"
[ ! -s "$WORK/verify.log" ] || fail "systemd-analyze verify is not clean"
systemd-analyze security --no-pager "$UNIT" >"$WORK/security.log" 2>&1 || true
exposure=$(sed -nE 's/.*Overall exposure level for .*: ([0-9.]+).*/\1/p' "$WORK/security.log")
echo "exposure: $exposure"
[ -n "$exposure" ] || { cat "$WORK/security.log"; fail "no exposure figure"; }
awk -v e="$exposure" 'BEGIN { exit !(e <= 1.5) }' || { grep '✗' "$WORK/security.log"; fail "exposure $exposure > 1.5"; }

step "plug in: udev starts $UNIT by itself"
t0=$(date +%s.%N)
vcam_start "$SERIAL" --profile default
wait_active "$UNIT" 10
t1=$(date +%s.%N)
echo "active after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
NODE=$(node_of "$UNIT")
[ -n "$NODE" ] || fail "the unit's status names no node: $(systemctl show -p StatusText --value "$UNIT")"
systemctl status --no-pager "$UNIT" | tee "$WORK/status.txt" | head -n 12
grep -q "Status: \".*$NODE" "$WORK/status.txt" || fail "systemctl status shows no STATUS line with $NODE"
perms=$(stat -c '%A %U:%G' "$NODE")
echo "$NODE: $perms"
if [ "$perms" != "crw-rw---- root:video" ]; then
	udevadm info "$NODE" || true
	"$UVCUSE_BIN" --udev-properties "$NODE" || true
	ls -la /run/uvcuse || true
	journalctl -b --no-pager -u systemd-udevd | tail -n 20
	fail "$NODE is $perms, want crw-rw---- root:video"
fi
usb=$(grep -l "^$SERIAL\$" /sys/bus/usb/devices/*/serial | xargs dirname)
id_serial=$(udevadm info -q property -p "$usb" | sed -n 's/^ID_SERIAL=//p')
link=/dev/v4l/by-id/usb-$id_serial-video-index0
[ "$(readlink -f "$link")" = "$NODE" ] || { ls -l /dev/v4l/*/ || true; fail "$link does not point to $NODE"; }
echo "$link -> $NODE"
bypath=$(find /dev/v4l/by-path -lname "*$(basename "$NODE")" | head -n 1)
[ -n "$bypath" ] || fail "no /dev/v4l/by-path link to $NODE"
echo "$bypath -> $NODE"
# its metadata node: the video node's permissions, the links' index 1
META=/dev/$("$UVCUSE_BIN" --status --json | sed -n 's/.*"meta_node": "\([^"]*\)".*/\1/p' | head -n 1)
[ -c "$META" ] || fail "no metadata node ($META)"
[ "$(stat -c '%A %U:%G' "$META")" = "crw-rw---- root:video" ] ||
	fail "$META is $(stat -c '%A %U:%G' "$META"), want crw-rw---- root:video"
[ "$(readlink -f "/dev/v4l/by-id/usb-$id_serial-video-index1")" = "$META" ] ||
	{ ls -l /dev/v4l/*/ || true; fail "the by-id index1 link does not point to $META"; }
echo "/dev/v4l/by-id/usb-$id_serial-video-index1 -> $META (crw-rw---- root:video)"
pid=$(main_pid "$UNIT")
user=$(ps -o user= -p "$pid")
capeff=$(awk '/^CapEff:/ { print $2 }' "/proc/$pid/status")
echo "daemon pid $pid runs as $user, CapEff $capeff"
[ "$user" = uvcuse ] || fail "the daemon runs as $user"
[ "$capeff" = 0000000000000000 ] || fail "the daemon keeps capabilities $capeff"
# no camera bytes read as root: the drop comes before the camera is opened
journalctl -b --no-pager -o cat -u "$UNIT" >"$WORK/start.log"
drop=$(grep -n "running as uvcuse" "$WORK/start.log" | head -n 1 | cut -d: -f1)
served=$(grep -n "served as /dev/" "$WORK/start.log" | head -n 1 | cut -d: -f1)
echo "journal: root dropped at line ${drop:-none}, camera served at line ${served:-none}"
[ -n "$drop" ] && [ -n "$served" ] && [ "$drop" -lt "$served" ] ||
	fail "the camera was opened before root was dropped"
! grep -qE "GET_INFO|quirks:|restored" <(head -n "$drop" "$WORK/start.log") ||
	fail "the camera was read before root was dropped"
! ls /dev/video[0-9] 2>/dev/null | grep -q . || fail "uvcvideo's node is still there: $(ls /dev/video[0-9])"

step "users: alice (group video) captures, bob (not in video) gets EACCES"
useradd -m -G video alice
useradd -m bob
as_alice() { runuser -u alice -- "$@"; }
as_bob() { runuser -u bob -- "$@"; }
chmod 0777 "$WORK"
late=$(late_of "$NODE" "$UNIT")
as_alice "$RUN_BIN" ffmpeg -hide_banner -loglevel error -nostdin -f v4l2 -input_format yuyv422 \
	-video_size 640x480 -i "$NODE" -frames:v 60 -fps_mode passthrough -f rawvideo "$WORK/alice.yuyv" ||
	fail "alice's uvcuse-run ffmpeg"
framecheck "$WORK/alice.yuyv" YUYV 640x480 --min-frames 60 --max-missing $((6 + $(late_of "$NODE" "$UNIT") - late))
as_alice v4l2-ctl -d "$NODE" --list-ctrls | tee "$WORK/alice-ctrls.txt" | head -n 3
grep -q brightness "$WORK/alice-ctrls.txt" || fail "alice's v4l2-ctl --list-ctrls"
err=$(as_bob v4l2-ctl -d "$NODE" --info 2>&1 || true)
echo "bob: $err"
grep -q "Permission denied" <<<"$err" || fail "bob opened $NODE: $err"
# The buffer socket, once an app's HELLO opened it to the node's group: bob,
# outside that group, cannot even connect, so he gets no buffer.
ls -l /run/uvcuse/
sock=/run/uvcuse/$(basename "$NODE").sock
bobsock=$(as_bob python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
try:
    s.connect(sys.argv[1]); print("connected")
except OSError as e:
    print(e.strerror)' "$sock")
echo "bob on $sock: $bobsock"
[ "$bobsock" = "Permission denied" ] || fail "bob reached the buffer socket: $bobsock"

step "/etc/ld.so.preload: plain ffmpeg as alice; 64-bit, 32-bit and setuid programs"
"$RUN_BIN" --install-global
cat /etc/ld.so.preload
# shellcheck disable=SC2016 # ld.so's own $LIB, not the shell's
grep -qxF '/usr/$LIB/uvcuse/libuvcuse-preload.so' /etc/ld.so.preload ||
	fail "ld.so.preload does not name the library through \$LIB"
# preloaded BITS DIR: the program of that width loads the library from DIR, silently
preloaded() {
	local tool=$BUILD/tests/tools/uvcuse-preloaded${1#64} out
	[ -x "$tool" ] || fail "no $tool: the build has no $1-bit toolchain (Debian: gcc-multilib)"
	out=$(as_alice "$tool" 2>"$WORK/preloaded.err") || fail "$1-bit program: no library mapped: $out"
	echo "$out" | tr '\n' ' '
	echo
	[ ! -s "$WORK/preloaded.err" ] || fail "a $1-bit program printed: $(cat "$WORK/preloaded.err")"
	grep -qxF "$2/uvcuse/libuvcuse-preload.so" <<<"$out" || fail "the $1-bit program mapped another build"
}
preloaded 64 "/usr/lib/$(gcc -print-multiarch)"
preloaded 32 /usr/lib32
# setuid: ld.so still reads ld.so.preload (and expands $LIB) in a secure process
as_alice mount --version >/dev/null 2>"$WORK/setuid.err"
[ ! -s "$WORK/setuid.err" ] || fail "a setuid program printed: $(cat "$WORK/setuid.err")"
late=$(late_of "$NODE" "$UNIT")
as_alice ffmpeg -hide_banner -loglevel error -nostdin -f v4l2 -input_format yuyv422 \
	-video_size 640x480 -i "$NODE" -frames:v 60 -fps_mode passthrough -f rawvideo "$WORK/global.yuyv" ||
	fail "plain ffmpeg with the library in /etc/ld.so.preload"
framecheck "$WORK/global.yuyv" YUYV 640x480 --min-frames 60 --max-missing $((6 + $(late_of "$NODE" "$UNIT") - late))
"$RUN_BIN" --uninstall-global

step "uvcuse --status as alice, while a capture runs"
as_alice "$RUN_BIN" v4l2-ctl -d "$NODE" --stream-mmap --stream-count=150 --stream-to=/dev/null \
	>"$WORK/bg.log" 2>&1 &
bg=$!
sleep 2
as_alice "$UVCUSE_BIN" --status | tee "$WORK/status-alice.txt"
grep -q "$NODE" "$WORK/status-alice.txt" || fail "--status does not list $NODE"
wait "$bg" || fail "the background capture"

step "a second camera (another serial): a second instance and node; both stream"
SERIAL2=SVC-2
UNIT2=$(unit_of "$SERIAL2")
vcam_start "$SERIAL2" --profile default
wait_active "$UNIT2" 10
NODE_B=$(node_of "$UNIT2")
[ -n "$NODE_B" ] && [ "$NODE_B" != "$NODE" ] || fail "second node '$NODE_B' (first $NODE)"
echo "$UNIT2 serves $NODE_B"
late=$(late_of "$NODE" "$UNIT")
as_alice "$RUN_BIN" v4l2-ctl -d "$NODE" --stream-mmap --stream-count=150 --stream-to="$WORK/a.yuyv" \
	>"$WORK/bg.log" 2>&1 &
bg=$!
sleep 2
as_alice "$UVCUSE_BIN" --status | tee "$WORK/status-two.txt"
grep -q "^$NODE: .*streaming, frames [1-9]" "$WORK/status-two.txt" || fail "--status: $NODE not streaming"
grep -q "^$NODE_B: .*idle" "$WORK/status-two.txt" || fail "--status does not list $NODE_B"
wait "$bg" || fail "the capture on $NODE"
framecheck "$WORK/a.yuyv" YUYV 640x480 --min-frames 150 --max-missing $((15 + $(late_of "$NODE" "$UNIT") - late))
late=$(late_of "$NODE_B" "$UNIT2")
as_alice "$RUN_BIN" v4l2-ctl -d "$NODE_B" --stream-mmap --stream-count=60 --stream-to="$WORK/b.yuyv" ||
	fail "the capture on $NODE_B"
framecheck "$WORK/b.yuyv" YUYV 640x480 --min-frames 60 --max-missing $((6 + $(late_of "$NODE_B" "$UNIT2") - late))
kill -USR1 "${VCAM_PIDS[1]}"

step "a config that says ignore for a camera: no instance, uvcvideo keeps it"
mkdir -p /etc/uvcuse
printf '[camera serial=SVC-3]\nignore = yes\n' >/etc/uvcuse/uvcuse.conf
UNIT3=$(unit_of SVC-3)
vcam_start SVC-3 --profile default
KNODE=$(video_node SVC-3 20)
sleep 2 # time in which udev would have started the instance
echo "uvcvideo serves SVC-3 as $KNODE; $UNIT3: $(systemctl is-active "$UNIT3" || true)"
! systemctl is-active -q "$UNIT3" || fail "$UNIT3 started for an ignored camera"
[ "$(systemctl show -p ActiveEnterTimestampMonotonic --value "$UNIT3")" = 0 ] ||
	fail "$UNIT3 ran for an ignored camera"
kill -USR1 "${VCAM_PIDS[2]}"

step "a bad value in the config: the instance fails and the journal names file and line"
printf '[uvcuse]\nlog-level = info\nlinger = forever\n' >/etc/uvcuse/conf.d-bad.conf
mkdir -p /etc/uvcuse/conf.d
mv /etc/uvcuse/conf.d-bad.conf /etc/uvcuse/conf.d/50-bad.conf
SERIAL4=SVC-4
UNIT4=$(unit_of "$SERIAL4")
vcam_start "$SERIAL4" --profile default
for ((i = 0; i < 100; i++)); do
	[ "$(systemctl show -p Result --value "$UNIT4")" != success ] && break
	sleep 0.1
done
systemctl reset-failed "$UNIT4" 2>/dev/null || true
systemctl stop "$UNIT4" 2>/dev/null || true
journalctl -b --no-pager -u "$UNIT4" | grep "50-bad.conf" | sed -n 1,3p | tee "$WORK/bad.txt"
grep -q "/etc/uvcuse/conf.d/50-bad.conf:3:" "$WORK/bad.txt" || fail "the journal does not name 50-bad.conf:3"
kill -USR1 "${VCAM_PIDS[3]}"
rm -r /etc/uvcuse

step "kill -9: systemd restarts the daemon, the node and the controls come back"
# (the restarted daemon reads this: the unplug steps below wait 8 s, not 30)
mkdir -p /etc/uvcuse
printf '[camera serial=%s]\nlinger = 8\n' "$SERIAL" >/etc/uvcuse/uvcuse.conf
v4l2-ctl -d "$NODE" --set-ctrl brightness=40 || fail "set brightness"
sleep 1.5 # saved within a second
old=$(main_pid "$UNIT")
kill -9 "$old"
for ((i = 0; i < 150; i++)); do
	new=$(main_pid "$UNIT")
	[ "$new" != 0 ] && [ "$new" != "$old" ] && systemctl is-active -q "$UNIT" && break
	sleep 0.1
done
[ "$new" != "$old" ] && [ "$new" != 0 ] || fail "not restarted after kill -9"
NODE2=$(node_of "$UNIT")
[ -c "$NODE2" ] || fail "no node after the restart"
got=$(v4l2-ctl -d "$NODE2" --get-ctrl brightness)
echo "restarted as pid $new, $NODE2, $got"
[ "$got" = "brightness: 40" ] || fail "brightness after the restart: $got"
NODE=$NODE2

# unit_procs UNIT: the processes in the unit's control group
unit_procs() { wc -l <"/sys/fs/cgroup$(systemctl show -p ControlGroup --value "$1")/cgroup.procs"; }

step "unplug and replug while alice streams: one daemon throughout, the app survives"
pid=$(main_pid "$UNIT")
# (ffmpeg: the app most users have; daemon-replug unplugs v4l2-ctl,
# read(), a converted stream and GStreamer)
as_alice "$RUN_BIN" ffmpeg -hide_banner -loglevel error -nostdin -f v4l2 -input_format yuyv422 \
	-video_size 640x480 -framerate 30 -i "$NODE" -frames:v 240 -fps_mode passthrough \
	-f rawvideo "$WORK/replug.yuyv" >"$WORK/replug.log" 2>&1 &
app=$!
sleep 3
kill -0 "$app" 2>/dev/null || fail "the capture ended before the unplug: $(tail -n 3 "$WORK/replug.log")"
kill -USR1 "${VCAM_PIDS[0]}"
sleep 4
kill -0 "$app" 2>/dev/null || fail "the capture ended while the camera was away"
systemctl is-active -q "$UNIT" || fail "$UNIT stopped at the unplug"
[ "$(main_pid "$UNIT")" = "$pid" ] || fail "the daemon changed at the unplug"
[ -c "$NODE" ] || fail "$NODE went at the unplug"
away=$(systemctl show -p StatusText --value "$UNIT")
echo "camera away: $UNIT active, pid $pid, $NODE there; status: $away"
[[ "$away" == *"camera away"* ]] || fail "the unit's status does not say the camera is away"
as_alice "$UVCUSE_BIN" --status | grep -q "^$NODE: .*camera away" || fail "--status does not say the camera is away"
kill -USR2 "${VCAM_PIDS[0]}"
timeout 60 tail --pid="$app" -f /dev/null || fail "the capture hung after the replug"
wait "$app" || fail "the capture failed: $(tail -n 3 "$WORK/replug.log")"
framecheck "$WORK/replug.yuyv" YUYV 640x480 --min-frames 240 --expect-brightness 40 |
	grep -E '^(frames|mean luma|verdict)'
[ "$(main_pid "$UNIT")" = "$pid" ] || fail "the daemon changed at the replug"
[ "$(unit_procs "$UNIT")" = 1 ] || fail "$UNIT has $(unit_procs "$UNIT") processes"
journalctl -b --no-pager -u "$UNIT" | grep -E "unplugged|camera back after" | tail -n 2
unit_logged "$UNIT" "camera back after" || fail "no replug in the journal"
echo "one daemon throughout: pid $pid"

step "unplugged with no app: the node goes after the linger, and the instance stops cleanly"
kill -USR1 "${VCAM_PIDS[0]}"
sleep 3
systemctl is-active -q "$UNIT" && [ -c "$NODE" ] || fail "$UNIT or $NODE went before the 8 s linger"
for ((i = 0; i < 200; i++)); do
	systemctl is-active -q "$UNIT" || break
	sleep 0.1
done
! systemctl is-active -q "$UNIT" || fail "$UNIT still active 23 s after the unplug"
[ ! -e "$NODE" ] || fail "$NODE still there after the linger"
result=$(systemctl show -p Result --value "$UNIT")
[ "$result" = success ] || fail "$UNIT ended with $result"
echo "$UNIT: $(systemctl is-active "$UNIT") ($result), $NODE gone"
rm -r /etc/uvcuse
