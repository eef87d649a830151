#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A slow camera delays only the caller (issue 12, item 1). The vcam answers
# control values 2 s late (--ctrl-delay-ms) while one client streams
# through read(): its frames/s during another client's G_CTRL must stay
# what it was just before, within the noise of the same run (each of the 3
# seconds before the stall apart). The slow request is UVCIOC_CTRL_QUERY
# GET_CUR (never cached, as in uvcvideo). A signal ends one waiting in line,
# a client killed mid-request leaves nothing behind. A camera that never
# answers (--ctrl-hang): G_CTRL fails as uvcvideo's does, after its timeout.
# A camera slow to take probe and commit (--stream-delay-ms): S_FMT and
# STREAMON wait, another file's QUERYCAP does not, as with uvcvideo.
# Usage (in the guest): daemon-stall.sh BUILD_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
CLIENT="python3 $(dirname "$0")/stall_client.py"

load_modules vhci-hcd uvcvideo cuse

step "uvcvideo: G_CTRL of a camera that never answers (the reference)"
vcam_start S-hang --profile default --ctrl-hang
KNODE=$(video_node S-hang)
read -r k0 k1 kres <<<"$($CLIENT gctrl "$KNODE")"
echo "uvcvideo: $kres after $(awk -v a="$k0" -v b="$k1" 'BEGIN { printf "%.1f", b - a }') s"

step "uvcuse: the same G_CTRL, the same answer after the same timeout"
uvcuse_start S-hang video10
read -r u0 u1 ures <<<"$($CLIENT gctrl /dev/video10)"
echo "uvcuse: $ures after $(awk -v a="$u0" -v b="$u1" 'BEGIN { printf "%.1f", b - a }') s"
[ "$ures" = "$kres" ] || fail "uvcuse answers $ures, uvcvideo $kres"
awk -v a="$u0" -v b="$u1" 'BEGIN { exit !(b - a >= 4.5) }' || fail "uvcuse gave up before the 5 s timeout"
uvcuse_stop video10
kill -TERM "${VCAM_PIDS[0]}"
wait "${VCAM_PIDS[0]}" 2>/dev/null || true

step "uvcuse: one client streams while another waits 2 s for a control"
vcam_start S-slow --profile default --ctrl-delay-ms 2000
video_node S-slow >/dev/null
uvcuse_start S-slow video11
v4l2-ctl -d /dev/video11 -v pixelformat=MJPG,width=640,height=480 || fail "S_FMT MJPG"
# one process, one clock: its main thread streams 12 s, another of its
# threads makes the slow request (on a file of its own) 6 s in
read -r t0 t1 value <<<"$($CLIENT stall /dev/video11 12 6 "$WORK/frames")"
echo "UVCIOC_CTRL_QUERY GET_CUR: $value after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s"
[[ "$value" =~ ^[0-9]+$ ]] || fail "UVCIOC_CTRL_QUERY answered $value"
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 1.8) }' || fail "the camera's delay did not apply"
echo "$(wc -l <"$WORK/frames") frames read"

step "uvcuse: frames/s before and during the stall"
read -r before noise during <<<"$($CLIENT rates "$WORK/frames" "$t0" "$t1")"
bound=$(awk -v b="$before" -v n="$noise" 'BEGIN { if (n < 2) n = 2; printf "%.2f", b - n }')
echo "frames from $(head -n1 "$WORK/frames") to $(tail -n1 "$WORK/frames") s, the stall from $t0 to $t1 s"
echo "before the stall: $before frames/s (seconds apart: $noise); during it: $during frames/s; bound $bound"
awk -v f="$(head -n1 "$WORK/frames")" -v l="$(tail -n1 "$WORK/frames")" -v a="$t0" -v b="$t1" \
	'BEGIN { exit !(f + 3 <= a && b <= l) }' || fail "the stall fell outside the stream"
awk -v b="$before" 'BEGIN { exit !(b >= 10) }' || fail "the stream did not run before the stall ($before frames/s)"
awk -v d="$during" -v b="$bound" 'BEGIN { exit !(d >= b) }' ||
	fail "the stream slowed down during another client's control request: $during < $bound frames/s"

step "uvcuse: clients killed mid-request, one interrupted by a signal"
# marked: the file appears just before the client's ioctl
marked() {
	local i
	for ((i = 0; i < 100; i++)); do [ -e "$1" ] && return 0; sleep 0.1; done
	fail "no client reached its request ($1)"
}
$CLIENT xuget /dev/video11 0 "$WORK/first.mark" >"$WORK/first.out" &
first=$!
marked "$WORK/first.mark"
# this one waits in line behind the first (each takes the camera 2 s)
$CLIENT xuget /dev/video11 0 "$WORK/queued.mark" >"$WORK/queued.out" &
queued=$!
marked "$WORK/queued.mark"
sleep 0.3
kill -KILL "$queued" 2>/dev/null || fail "the client to kill had ended: $(cat "$WORK/queued.out")"
wait "$queued" 2>/dev/null || true
# a signal 0.5 s into a request that takes at least 2 s: EINTR at once
read -r i0 i1 ires <<<"$($CLIENT xuget /dev/video11 0.5)"
echo "interrupted after $(awk -v a="$i0" -v b="$i1" 'BEGIN { printf "%.2f", b - a }') s: $ires"
[ "$ires" = EINTR ] || fail "the interrupted request answered $ires"
awk -v a="$i0" -v b="$i1" 'BEGIN { exit !(b - a < 1.5) }' || fail "the interrupt was answered only with the camera"
wait "$first" || fail "the first request failed"
echo "the first one, not disturbed: $(cat "$WORK/first.out")"
[[ "$(cat "$WORK/first.out")" =~ \ [0-9]+$ ]] || fail "the first request answered $(cat "$WORK/first.out")"
# killed while its own request is on the wire: its answer comes to nobody
$CLIENT xuget /dev/video11 0 "$WORK/wire.mark" >/dev/null &
wire=$!
marked "$WORK/wire.mark"
sleep 0.5
kill -KILL "$wire" 2>/dev/null || fail "the client on the wire had ended"
wait "$wire" 2>/dev/null || true
kill -0 "$UVCUSE_PID" || fail "uvcuse died"

step "uvcuse: still serving after all that"
read -r _ _ value <<<"$(timeout 15 $CLIENT xuget /dev/video11 || echo - - "no answer within 15 s")"
[[ "$value" =~ ^[0-9]+$ ]] || fail "UVCIOC_CTRL_QUERY after the faults answered $value"
read -r _ _ value <<<"$(timeout 15 $CLIENT gctrl /dev/video11 || echo - - "no answer within 15 s")"
[[ "$value" =~ ^[0-9]+$ ]] || fail "G_CTRL after the faults answered $value"
uvcuse_stop video11
vcam_stop_last

# A camera slow to set probe and commit (2 s each SET_CUR): S_FMT (two of
# them) and STREAMON wait; another file's QUERYCAP must not. uvcvideo first
# (QUERYCAP takes none of the locks S_FMT and STREAMON hold), then uvcuse.
# Bound: half the camera's delay, from the fault itself: a daemon blocked
# for the camera answers QUERYCAP no sooner than 1.5 s.
beside() { # NODE WHO
	local what secs res ref during
	for what in sfmt streamon; do
		read -r secs res ref during <<<"$($CLIENT beside "$1" "$what" 2)"
		echo "$2: $what took $secs s ($res); the other file's QUERYCAP: $during s meanwhile, $ref s before"
		[ "$res" = ok ] || fail "$2: $what answered $res"
		awk -v s="$secs" 'BEGIN { exit !(s >= 1.8) }' || fail "$2: the camera's delay did not apply to $what"
		awk -v d="$during" 'BEGIN { exit !(d < 1.0) }' ||
			fail "$2: QUERYCAP waited $during s for another file's $what"
	done
}
step "uvcvideo: S_FMT and STREAMON wait for a slow camera, QUERYCAP does not"
vcam_start S-vs --profile default --stream-delay-ms 2000
KNODE=$(video_node S-vs)
beside "$KNODE" uvcvideo

step "uvcuse: the same"
uvcuse_start S-vs video12
beside /dev/video12 uvcuse
uvcuse_stop video12
echo "PASS: $STEPS steps"
