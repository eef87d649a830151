#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The preload library and the buffer socket without the daemon: the
# uvcuse-bufsharetest node (src/cuse/ + src/share/bufshare.c, one memfd buffer)
# mapped through `uvcuse-run python3` (mmap, syscall(SYS_mmap), fork, dup),
# refusals (not the owner, MAP_PRIVATE, bad offset, no library), and the
# socket refusing a token presented by another process or user.
# Usage (in the guest): preload.sh BUILD_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

SERVER=$BUILD/tests/tools/uvcuse-bufsharetest
RUN=$BUILD/src/preload/uvcuse-run
CLIENT=$(dirname "$0")/preload_client.py
NODE=/dev/video62
# another user cannot run root's python (a pyenv shim under /root)
SYSPY=/usr/bin/python3
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
SERVER_PID=

preload_cleanup() {
	local status=$?
	if [ -n "$SERVER_PID" ]; then
		kill -TERM "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
		echo "--- server.log"
		cat "$WORK/server.log"
	fi
	cleanup "$status"
}
trap preload_cleanup EXIT

# expect WANT CMD...: runs CMD, requires its exit status and prints its output.
expect() {
	local want=$1 got=0
	shift
	"$@" >"$WORK/out" 2>&1 || got=$?
	sed 's/^/  /' "$WORK/out"
	[ "$got" = "$want" ] || fail "exit $got, wanted $want: $*"
}

load_modules cuse
"$SERVER" --name video62 2>"$WORK/server.log" &
SERVER_PID=$!
for ((i = 0; i < 100; i++)); do
	[ -c $NODE ] && break
	sleep 0.05
done
[ -c $NODE ] || fail "$NODE did not appear"
SOCK=/run/uvcuse/video62.sock
[ -S $SOCK ] || fail "no socket $SOCK"
stat -c '%A %U %n' /run/uvcuse $SOCK

step "without the library: CUSE cannot mmap (ENODEV)"
expect 3 python3 "$CLIENT" map $NODE
grep -q ENODEV "$WORK/out" || fail "wanted ENODEV"

step "uvcuse-run: the owner maps the buffer, content and writes shared"
expect 0 "$RUN" python3 "$CLIENT" map $NODE
expect 0 "$RUN" python3 "$CLIENT" map $NODE own shared 0x10000 4096

step "refusals: not the owner (EACCES), MAP_PRIVATE and bad offset/size (EINVAL)"
expect 3 "$RUN" python3 "$CLIENT" map $NODE notown
grep -q EACCES "$WORK/out" || fail "wanted EACCES"
expect 3 "$RUN" python3 "$CLIENT" map $NODE own private
grep -q EINVAL "$WORK/out" || fail "wanted EINVAL"
expect 3 "$RUN" python3 "$CLIENT" map $NODE own shared 0x20000 4096
grep -q EINVAL "$WORK/out" || fail "wanted EINVAL"
expect 3 "$RUN" python3 "$CLIENT" map $NODE own shared 0x10000 $((1280 * 720 * 2 + 4096))
grep -q EINVAL "$WORK/out" || fail "wanted EINVAL"

step "libv4l2's path: syscall(SYS_mmap/SYS_munmap)"
expect 0 "$RUN" python3 "$CLIENT" syscall $NODE

step "fork, dup, a reused fd number"
expect 0 "$RUN" python3 "$CLIENT" fork $NODE

step "other mappings untouched under the library"
expect 0 "$RUN" python3 "$CLIENT" other

step "the socket: a token is worth nothing to another process or user"
# the token holder keeps its file open until its stdin (a fifo) closes
mkfifo "$WORK/hold"
python3 "$CLIENT" hello $NODE 3 <"$WORK/hold" >"$WORK/tokens" &
HOLDER=$!
exec 7>"$WORK/hold"
for ((i = 0; i < 100; i++)); do
	[ "$(wc -l <"$WORK/tokens")" -ge 3 ] && break
	sleep 0.05
done
{ read -r tok1 path; read -r tok2 _; read -r tok3 _; } <"$WORK/tokens"
[ "$path" = $SOCK ] || fail "hello named $path"
echo "tokens issued to pid $HOLDER"
# nobody cannot open the node at all...
expect 1 "${NOBODY[@]}" $SYSPY -c "open('$NODE', 'rb')"
grep -q PermissionError "$WORK/out" || fail "nobody opened $NODE"
# ...nor use a stolen token: the socket follows the node's group and mode
# (open only to root here), so nobody is refused before the daemon reads it
expect 0 "${NOBODY[@]}" $SYSPY "$CLIENT" steal "$path" "$tok1"
grep -q "refused at connect" "$WORK/out" || fail "nobody reached the buffer socket"
# root, but another process than the token's
expect 0 python3 "$CLIENT" steal "$path" "$tok2"
# a made-up token
expect 0 python3 "$CLIENT" steal "$path" "00112233445566778899aabbccddeeff"
exec 7>&-
wait "$HOLDER" || fail "token holder failed"
# the file was released: its last token died with it
expect 0 python3 "$CLIENT" steal "$path" "$tok3"
# the three that reached the daemon (nobody's never did)
[ "$(grep -c 'refused pid' "$WORK/server.log")" -ge 3 ] || fail "refusals not logged"
grep 'refused pid' "$WORK/server.log" | head -n 3

step "the server saw the writes and ends cleanly"
kill -TERM "$SERVER_PID"
wait "$SERVER_PID" || fail "server exit status $?"
SERVER_PID=
cat "$WORK/server.log"
grep -q "last word 0x5a0707ff" "$WORK/server.log" || fail "server's memory not as written back"
[ ! -e $SOCK ] || fail "socket left behind"
echo "preload: $STEPS steps passed"
