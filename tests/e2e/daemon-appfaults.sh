#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Apps that misbehave (issue 12, app faults), against one daemon:
# - every ioctl with a bad pointer and with NULL, and the ioctls that carry
#   pointers with those bad; wrong sizes and unknown ioctls: the answers
#   must be uvcvideo's on the same camera (uvcuse-appfault badptr/badsize,
#   run on both nodes and diffed);
# - SIGKILL during a blocking DQBUF, during a blocking read(), and at random
#   points of a loop of multi-round ioctls; close while streaming;
# - 1000 open/close cycles; 100 files open with 10 streaming in turn; a
#   process opening until refused: its 129th open EMFILE (its
#   max-opens-per-process, issue 29 finding 2);
# - a process flooding the buffer socket while an app maps through it;
# - a hostile fast-path client (uvcuse-appfault channel): random and
#   malformed channel messages from a file that does not own the queue
#   while another file streams; no buffer may reach it;
# - random ioctls (numbers from the table and outside it, random bytes and
#   sizes) for RANDOM_SECONDS (default 60; 300 by hand).
# Afterwards the daemon is alive, a capture passes uvcuse-framecheck, and
# its fd count and RSS are back where they were (within 10 %).
# Usage (in the guest): daemon-appfaults.sh BUILD_DIR [RANDOM_SECONDS]
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
RANDOM_SECONDS=${2:-60}
APPFAULT=$BUILD/tests/tools/uvcuse-appfault
SERIAL=APPFAULT
NAME=video10
NODE=/dev/$NAME

load_modules vhci-hcd uvcvideo cuse
vcam_start "$SERIAL" --profile default
KNODE=$(video_node "$SERIAL")

step "uvcvideo: bad pointers, wrong sizes, unknown ioctls (the reference)"
"$APPFAULT" badptr "$KNODE" >"$WORK/badptr.kernel" || fail "badptr on uvcvideo"
"$APPFAULT" badsize "$KNODE" >"$WORK/badsize.kernel" || fail "badsize on uvcvideo"
echo "$(wc -l <"$WORK/badptr.kernel") bad-pointer lines, $(wc -l <"$WORK/badsize.kernel") size lines"

uvcuse_start "$SERIAL" "$NAME"


# capture_check WHAT: 30 frames through the library, all intact
capture_check() {
	"$UVCUSE_RUN" v4l2-ctl -d "$NODE" --set-fmt-video=width=640,height=480,pixelformat=YUYV \
		--set-parm=30 --stream-mmap --stream-count=30 --stream-to="$WORK/cap.raw" >/dev/null 2>&1 ||
		fail "$1: capture"
	framecheck "$WORK/cap.raw" YUYV 640x480 --min-frames 30 --max-missing 30 |
		grep -E '^(frames intact|verdict)' | sed "s/^/$1: /"
	rm -f "$WORK/cap.raw"
}

# rss_by_mapping: the daemon's resident KiB by mapping name, largest first
rss_by_mapping() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { name = NF >= 6 ? $6 : "[anon]" }
	     /^Rss:/ { rss[name] += $2 }
	     END { for (n in rss) if (rss[n]) printf "%8d %s\n", rss[n], n }' \
		"/proc/$UVCUSE_PID/smaps" | sort -rn
}

step "warm-up: a capture through each path, then the daemon's fds and RSS"
capture_check warm-up
v4l2-ctl -d "$NODE" --set-fmt-video=width=640,height=480,pixelformat=YUYV >/dev/null
"$READCAP" "$NODE" 10 /dev/null >/dev/null || fail "warm-up read()"
"$UVCUSE_RUN" v4l2-ctl -d "$NODE" --stream-user --stream-count=10 >/dev/null 2>&1 || fail "warm-up USERPTR"
sleep 0.5
FD0=$(fd_count)
RSS0=$(rss_kib)
echo "uvcuse: $FD0 fds, RSS $RSS0 KiB"
rss_by_mapping >"$WORK/rss0.txt"

step "uvcuse: the same bad pointers, sizes and unknown ioctls: uvcvideo's answers"
"$APPFAULT" badptr "$NODE" >"$WORK/badptr.uvcuse" || fail "badptr on uvcuse"
"$APPFAULT" badsize "$NODE" >"$WORK/badsize.uvcuse" || fail "badsize on uvcuse"
diff -u "$WORK/badptr.kernel" "$WORK/badptr.uvcuse" || fail "bad pointers answered unlike uvcvideo"
diff -u "$WORK/badsize.kernel" "$WORK/badsize.uvcuse" || fail "wrong sizes answered unlike uvcvideo"
grep -c EFAULT "$WORK/badptr.uvcuse" | sed 's/^/EFAULT answers: /'
kill -0 "$UVCUSE_PID" || fail "uvcuse died"

step "SIGKILL during a blocking DQBUF and a blocking read() (camera paused)"
kill -RTMIN "${VCAM_PIDS[0]}"
"$UVCUSE_RUN" v4l2-ctl -d "$NODE" --stream-mmap --stream-count=1000 >/dev/null 2>&1 &
app=$!
sleep 3
kill -KILL "$app" 2>/dev/null || fail "the MMAP app ended while the camera was paused"
wait "$app" 2>/dev/null || true
"$READCAP" "$NODE" 1000 /dev/null >/dev/null 2>&1 &
app=$!
sleep 3
kill -KILL "$app" 2>/dev/null || fail "the read() app ended while the camera was paused"
wait "$app" 2>/dev/null || true
kill -RTMIN+1 "${VCAM_PIDS[0]}"
capture_check "after the kills"

step "SIGKILL at random points of multi-round ioctls (20 times), close while streaming"
for ((i = 0; i < 20; i++)); do
	"$APPFAULT" ioctls "$NODE" >"$WORK/ioctls.out" &
	app=$!
	for ((j = 0; j < 50; j++)); do [ -s "$WORK/ioctls.out" ] && break; sleep 0.1; done
	sleep "0.$((RANDOM % 10))"
	kill -KILL "$app" 2>/dev/null || fail "the ioctl loop had ended"
	wait "$app" 2>/dev/null || true
done
# close while streaming: the app exits (closing its file) mid-stream
timeout -s INT 2 "$UVCUSE_RUN" v4l2-ctl -d "$NODE" --stream-mmap --stream-count=1000 >/dev/null 2>&1 || true
capture_check "after the kills"

step "1000 open/close cycles, 100 files open with 10 streaming in turn, the 129th open of a process EMFILE"
"$APPFAULT" openclose "$NODE" 1000 || fail "open/close cycles"
"$APPFAULT" manyfiles "$NODE" 100 10 5 || fail "many files"
python3 - "$NODE" <<'EOF' || fail "a process's opens are not limited to 128"
import errno, os, sys
fds = []
try:
    while len(fds) < 200:
        fds.append(os.open(sys.argv[1], os.O_RDWR))
except OSError as e:
    assert e.errno == errno.EMFILE, e
print(len(fds), "files open, the next one EMFILE")
assert len(fds) == 128, len(fds)
EOF
grep -q "open refused (EMFILE): the process has 128 files" "$WORK/uvcuse.log" ||
	fail "the refusal was not logged"

step "a process floods the buffer socket while an app maps through it"
SOCK=$(find /run/uvcuse -name "$NAME.sock" | head -n 1)
[ -S "$SOCK" ] || fail "no buffer socket for $NAME"
"$APPFAULT" flood "$SOCK" 20 >"$WORK/flood.out" &
flood=$!
sleep 2
capture_check "under the flood"
wait "$flood" || fail "the flood client failed"
cat "$WORK/flood.out"

# (UVCUSE_APPFAULT_SEED replays a run: its seed is printed)
seed=${UVCUSE_APPFAULT_SEED:-$(date +%s)}
step "a hostile fast-path client on one file while another streams (seed $seed)"
"$APPFAULT" channel "$NODE" 8 "$seed" || fail "the fast path gave a file another file's buffer, hung, or stopped its stream (seed $seed)"
kill -0 "$UVCUSE_PID" || fail "uvcuse died under the hostile fast-path client (seed $seed)"

step "random ioctls for $RANDOM_SECONDS s"
echo "seed $seed"
"$APPFAULT" random "$NODE" "$RANDOM_SECONDS" "$seed" || fail "the random client (seed $seed) hung or failed"
kill -0 "$UVCUSE_PID" || fail "uvcuse died under random ioctls (seed $seed)"

step "afterwards: alive, a capture intact, fds and RSS back where they were"
capture_check afterwards
sleep 0.5
FD1=$(fd_count)
RSS1=$(rss_kib)
echo "uvcuse: $FD1 fds (before: $FD0), RSS $RSS1 KiB (before: $RSS0 KiB)"
[ "$FD1" -le "$FD0" ] || { ls -l "/proc/$UVCUSE_PID/fd"; fail "fds grew from $FD0 to $FD1"; }
if ! awk -v a="$RSS1" -v b="$RSS0" 'BEGIN { exit !(a <= b * 1.10) }'; then
	# where it grew: the heap (allocator), buffers (memfd), libraries...
	rss_by_mapping >"$WORK/rss1.txt"
	echo "RSS by mapping, KiB: before, then after"
	paste "$WORK/rss0.txt" "$WORK/rss1.txt" | head -n 12
	fail "RSS grew more than 10 %"
fi
uvcuse_stop "$NAME"
echo "PASS: $STEPS steps"
