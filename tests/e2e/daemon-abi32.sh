#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 32-bit programs on uvcuse, judged against uvcvideo in the same guest.
# uvcuse-abiclient, built as a 64-bit program and as two 32-bit ones (64-bit
# and 32-bit time), asks every ioctl whose layout differs between the ABIs
# (formats, CREATE_BUFS, inputs, extended controls, events, QUERYBUF, QBUF,
# DQBUF, PREPARE_BUF) and streams MMAP and USERPTR; uvcuse-xuctl32 asks the
# extension unit ioctls. On uvcvideo, the kernel's own compat layer answers
# the 32-bit builds; on uvcuse, the daemon's (src/v4l2/compat32.c). Every
# transcript must equal uvcvideo's of the same build, every 32-bit one the
# 64-bit one, and every captured frame must be intact. The 32-bit programs
# run through uvcuse-run, which gives them the 32-bit preload library, whose
# fast path carries their QBUFs and DQBUFs (counted by the daemon).
# Usage (in the guest): daemon-abi32.sh BUILD_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
SERIAL=C-abi
NAME=video10
NODE=/dev/$NAME
TOOLS=$BUILD/tests/tools
FRAMES=60
BUILDS=(uvcuse-abiclient uvcuse-abiclient32 uvcuse-abiclient32-time32)

# client BUILD NODE TAG: one run, its transcript in $WORK/TAG.txt (without
# the line naming the ABI in TAG.cmp), its frames checked.
client() {
	local exe=$1 node=$2 tag=$3
	timeout 180 "$UVCUSE_RUN" "$TOOLS/$exe" "$node" "$WORK/$tag" "$FRAMES" \
		>"$WORK/$tag.txt" 2>"$WORK/$tag.err" ||
		{ cat "$WORK/$tag.txt" "$WORK/$tag.err"; fail "$exe on $node"; }
	head -n 1 "$WORK/$tag.txt"
	! grep -q "ELF class" "$WORK/$tag.err" || { cat "$WORK/$tag.err"; fail "ld.so: $exe got the wrong library"; }
	# PREPARE_BUF came to uvcvideo in 6.17 (the 6.1 referee: ENOTTY):
	# compared apart. An unnamed camera terminal is input "Camera N" on
	# uvcuse and uvcvideo 6.12+, "Input N" on the 6.1 referee (a missing
	# else): compared as 6.1's, uvcuse's name checked below.
	grep -v -e '^abi:' -e 'prepare_buf' "$WORK/$tag.txt" |
		sed -E 's/^(enuminput [0-9]+: 0 )Camera ([0-9]+) /\1Input \2 /' >"$WORK/$tag.cmp"
	for io in mmap userptr; do
		framecheck "$WORK/$tag.$io" YUYV 640x480 --min-frames "$FRAMES" |
			grep -E '^(frames intact|verdict)' | sed "s/^/$io: /"
		rm -f "$WORK/$tag.$io"
	done
}

# fast_path: the requests the fast path served, its channels' and its
# rings' (DQBUFs taken, QBUFs posted) summed, as VIDIOC_LOG_STATUS logs
# them (lib.sh's fast_requests counts the channels' alone)
fast_path() {
	fast_requests "$NODE" >/dev/null # (LOG_STATUS, its line waited for)
	grep -a "through the fast path" "$WORK/uvcuse.log" | tail -n 1 |
		sed -E 's/.* ([0-9]+) through the fast path \(and ([0-9]+) DQBUFs taken from its rings, ([0-9]+) QBUFs posted.*/\1 + \2 + \3/' |
		{ read -r expr && echo $((expr)); }
}

same() { # same A B WHAT
	diff -u "$WORK/$1.cmp" "$WORK/$2.cmp" || fail "$3"
	echo "$3: $(wc -l <"$WORK/$1.cmp") answers, identical"
}

for exe in "${BUILDS[@]}" uvcuse-xuctl32 uvcuse-fastpathcheck32 uvcuse-metagrab32; do
	[ -x "$TOOLS/$exe" ] || fail "$TOOLS/$exe is missing (a -m32 toolchain: gcc-multilib)"
done
load_modules vhci-hcd uvcvideo cuse
vcam_start "$SERIAL" --profile default
KNODE=$(video_node "$SERIAL")

step "uvcvideo: the three builds (the kernel's compat layer answers the 32-bit ones)"
for exe in "${BUILDS[@]}"; do
	client "$exe" "$KNODE" "kernel-$exe"
done
same kernel-uvcuse-abiclient kernel-uvcuse-abiclient32 "uvcvideo: 32-bit (64-bit time) as 64-bit"
same kernel-uvcuse-abiclient kernel-uvcuse-abiclient32-time32 "uvcvideo: 32-bit (32-bit time) as 64-bit"
"$TOOLS/uvcuse-xuctl32" "$KNODE" query >"$WORK/xu-query.kernel" || fail "uvcuse-xuctl32 query on uvcvideo"
"$TOOLS/uvcuse-xuctl32" "$KNODE" map >"$WORK/xu-map.kernel" || fail "uvcuse-xuctl32 map on uvcvideo"

step "uvcuse takes the camera (its formats alone, as uvcvideo's)"
uvcuse_start "$SERIAL" "$NAME" --no-convert

step "uvcuse: each build answered as uvcvideo answered it"
for exe in "${BUILDS[@]}"; do
	before=$(fast_path)
	client "$exe" "$NODE" "uvcuse-$exe"
	fast=$(($(fast_path) - before))
	echo "$exe: $fast requests through the fast path"
	[ "$fast" -ge $((2 * FRAMES)) ] || fail "$exe: $fast requests through the fast path for $((2 * FRAMES)) frames"
	same "kernel-$exe" "uvcuse-$exe" "$exe: uvcuse as uvcvideo"
	grep -q '^enuminput 0: 0 Camera 1 type 2 ' "$WORK/uvcuse-$exe.txt" ||
		fail "$exe: input 0 is not \"Camera 1\": $(grep '^enuminput 0' "$WORK/uvcuse-$exe.txt")"
	grep -qx "userptr: prepare_buf 0: 0" "$WORK/uvcuse-$exe.txt" || fail "$exe: PREPARE_BUF failed"
	grep -qx "userptr: prepare_buf 0: -25" "$WORK/kernel-$exe.txt" ||
		fail "$exe: uvcvideo answers PREPARE_BUF now: compare it with the rest"
done
echo "PREPARE_BUF: uvcuse 0 (as uvcvideo 6.17+), the 6.1 referee ENOTTY"

step "uvcuse-fastpathcheck32: a 32-bit program's streaming semantics with the fast path off and on"
UVCUSE_FASTPATH=0 timeout 180 "$UVCUSE_RUN" "$TOOLS/uvcuse-fastpathcheck32" "$NODE" >"$WORK/fpc-off.txt" ||
	{ cat "$WORK/fpc-off.txt"; fail "uvcuse-fastpathcheck32 with the fast path off"; }
before=$(fast_path)
timeout 180 "$UVCUSE_RUN" "$TOOLS/uvcuse-fastpathcheck32" "$NODE" >"$WORK/fpc-on.txt" ||
	{ cat "$WORK/fpc-on.txt"; fail "uvcuse-fastpathcheck32 with the fast path on"; }
diff -u "$WORK/fpc-off.txt" "$WORK/fpc-on.txt" || fail "uvcuse-fastpathcheck32 answers differ with the fast path"
fast=$(($(fast_path) - before))
[ "$fast" -gt 0 ] || fail "the fast path served no request of uvcuse-fastpathcheck32"
echo "$(grep -c '^ok:' "$WORK/fpc-on.txt") checks passed both ways; $fast requests through the fast path"

step "uvcuse-metagrab32: a 32-bit program streams the video and the metadata node at once"
for run in "mmap uvch" "userptr uvch"; do
	# shellcheck disable=SC2086 # (the mode and format, two words)
	timeout 120 "$UVCUSE_RUN" "$TOOLS/uvcuse-metagrab32" "$NODE" /dev/video11 45 $run \
		>"$WORK/metagrab32.log" ||
		{ cat "$WORK/metagrab32.log"; fail "32-bit metadata does not pair with the frames ($run)"; }
	echo "$run: $(tail -n 1 "$WORK/metagrab32.log")"
done

step "uvcuse: the extension unit ioctls of a 32-bit program as uvcvideo's"
"$TOOLS/uvcuse-xuctl32" "$NODE" query >"$WORK/xu-query.uvcuse" || { cat "$WORK/xu-query.uvcuse"; fail "uvcuse-xuctl32 query"; }
diff -u "$WORK/xu-query.kernel" "$WORK/xu-query.uvcuse" || fail "32-bit UVCIOC_CTRL_QUERY differs from uvcvideo's"
"$TOOLS/uvcuse-xuctl32" "$NODE" map >"$WORK/xu-map.uvcuse" || { cat "$WORK/xu-map.uvcuse"; fail "uvcuse-xuctl32 map"; }
diff -u "$WORK/xu-map.kernel" "$WORK/xu-map.uvcuse" || fail "32-bit UVCIOC_CTRL_MAP differs from uvcvideo's"
echo "UVCIOC_CTRL_QUERY: $(wc -l <"$WORK/xu-query.uvcuse") answers, UVCIOC_CTRL_MAP: $(wc -l <"$WORK/xu-map.uvcuse"), identical"

uvcuse_stop "$NAME"
echo
echo "daemon abi32: $STEPS steps passed"
