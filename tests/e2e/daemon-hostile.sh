#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Apps cannot harm one another (issue 29): while user bob (group video)
# runs every flood at once (uvcuse-hostile: opens until refused, idle
# buffer-socket connections, fast-path channel churn, garbage ring posts),
# user alice's MMAP stream through uvcuse-run keeps at least 0.95 of the
# share of frames it gets alone, every frame intact; the daemon does not
# spin (its CPU under the flood is printed and bounded), its fds come back
# once bob's processes are gone and its RSS stays at the flood's peak at
# most. The figures go to
# docs/robustness.md.
# Usage (in the guest): daemon-hostile.sh BUILD_DIR [FLOOD_SECONDS]
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
FLOOD_SECONDS=${2:-12}
HOSTILE=$BUILD/tests/tools/uvcuse-hostile
SERIAL=HOSTILE
NAME=video10
NODE=/dev/$NAME
FRAMES=150

load_modules vhci-hcd uvcvideo cuse
useradd --no-create-home --groups video alice
useradd --no-create-home --groups video bob
vcam_start "$SERIAL" --profile default
video_node "$SERIAL" >/dev/null
uvcuse_start "$SERIAL" "$NAME"
# what the udev rule gives the node (root:video 0660)
chgrp video "$NODE"
chmod 0660 "$NODE"
ALICE=$WORK/alice # where alice's captures go ($WORK is root's alone)
mkdir "$ALICE"
chown alice "$ALICE"
chmod 0755 "$WORK"

# alice_share FILE: alice captures FRAMES frames of YUYV 640x480 through the
# library; every frame must be intact; prints the share of the camera's
# frames she got: seen / (seen + missing), from the sequence numbers the
# vcam stamps, less the frames the vcam logged as never sent within her
# first and last ("late: frames A to B dropped": drawing them in a busy
# guest; no driver could have delivered those). Their count goes to
# FILE.drops.
alice_share() {
	runuser -u alice -- "$UVCUSE_RUN" v4l2-ctl -d "$NODE" \
		--set-fmt-video=width=640,height=480,pixelformat=YUYV --stream-mmap \
		--stream-count="$FRAMES" --stream-to="$1" >/dev/null 2>&1 || fail "alice's capture"
	local check=$WORK/${1##*/}.check first last
	"$FRAMECHECK" "$1" --format YUYV --size 640x480 --min-frames "$FRAMES" \
		--max-missing 100000 >"$check" || { cat "$check"; fail "alice's frames"; }
	first=$(sed -nE 's/^first sequence: ([0-9]+)/\1/p' "$check")
	last=$(sed -nE 's/^last sequence: ([0-9]+)/\1/p' "$check")
	sed -nE 's/.*late: frames ([0-9]+) to ([0-9]+) dropped.*/\1 \2/p' "$WORK/vcam-$SERIAL.log" |
		awk -v f="${first:?}" -v l="${last:?}" '{ a = $1 > f ? $1 : f; b = $2 < l ? $2 : l
			if (b >= a) n += b - a + 1 } END { print n + 0 }' >"$1.drops"
	awk -F': *' -v d="$(cat "$1.drops")" '/^frames seen/ { s = $2 } /^frames missing/ { m = $2 }
		END { m -= d; if (m < 0) m = 0; printf "%.4f\n", s / (s + m) }' "$check"
}

# cpu_ticks: the daemon's user + system time so far (clock ticks)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$UVCUSE_PID/stat"; }

step "alice alone: $FRAMES frames"
alone=$(alice_share "$ALICE/alone.yuv")
FD0=$(fd_count)
RSS0=$(rss_kib)
echo "alice alone: $alone of the camera's frames; daemon: $FD0 fds, $RSS0 KiB"

step "alice while bob floods ($FLOOD_SECONDS s: opens, socket connections, channels, ring posts)"
runuser -u bob -- "$HOSTILE" "$NODE" "$FLOOD_SECONDS" >"$WORK/hostile.out" 2>&1 &
bob=$!
sleep 2 # every flooder running
t0=$(cpu_ticks)
s0=$(date +%s.%N)
flood=$(alice_share "$ALICE/flood.yuv")
t1=$(cpu_ticks)
s1=$(date +%s.%N)
FD_PEAK=$(fd_count)
RSS_PEAK=$(rss_kib)
bob_status=0
wait "$bob" || bob_status=$?
sed 's/^/  /' "$WORK/hostile.out"
[ "$bob_status" -eq 0 ] || fail "bob's flooders did not all start"
hz=$(getconf CLK_TCK)
cpu=$(awk -v a="$t0" -v b="$t1" -v s="$s0" -v e="$s1" -v hz="$hz" \
	'BEGIN { printf "%.3f\n", (b - a) / hz / (e - s) }')
echo "alice under the flood: $flood of the camera's frames (alone: $alone)"
grep "left the stream" "$WORK/uvcuse.log" | sed 's/^/  /' || true
echo "  the camera's own drops among her frames (not counted against her): $(cat "$ALICE/flood.yuv.drops")"
echo "daemon under the flood: $cpu of a CPU, $FD_PEAK fds, $RSS_PEAK KiB"
awk -v f="$flood" -v a="$alone" 'BEGIN { exit !(f >= 0.95 * a) }' ||
	fail "alice got $flood of the frames under the flood, less than 0.95 x $alone"
# not spinning: a loop on a refused accept or a ring's garbage took a whole CPU
awk -v c="$cpu" 'BEGIN { exit !(c < 0.8) }' || fail "the daemon took $cpu of a CPU under the flood"
grep -q "opens refused (last: Too many open files)" "$WORK/hostile.out" ||
	fail "no open of bob's was refused with EMFILE"
grep -Eq "ended by the daemon" "$WORK/hostile.out" || fail "no holder line"

step "afterwards: bob's files closed, the daemon's fds and RSS back"
for ((i = 0; i < 50; i++)); do
	[ "$(fd_count)" -le $((FD0 + 2)) ] && break
	sleep 0.1
done
FD1=$(fd_count)
RSS1=$(rss_kib)
echo "daemon: $FD1 fds (before $FD0, peak $FD_PEAK), $RSS1 KiB (before $RSS0, peak $RSS_PEAK)"
[ "$FD1" -le $((FD0 + 2)) ] || { ls -l "/proc/$UVCUSE_PID/fd"; fail "fds: $FD1 after, $FD0 before"; }
# bob's 512 files cost the daemon's heap some MiB that malloc may keep: no
# more than at the flood's peak
[ "$RSS1" -le $((RSS_PEAK + 1024)) ] || fail "RSS: $RSS1 KiB after, $RSS_PEAK KiB at the flood's peak"
alice_share "$ALICE/after.yuv" >/dev/null
echo "alice captures again: $FRAMES frames intact"
{ grep -E "refused|closed [0-9]+ connections" "$WORK/uvcuse.log" || true; } | head -n 8 |
	sed 's/^/  log: /'
uvcuse_stop "$NAME"
