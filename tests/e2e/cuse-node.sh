#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The CUSE layer (src/cuse/) through a real /dev node: uvcuse-cusetest serves
# fixed answers, tests/e2e/cuse_client.py and v4l2-ctl check them byte-exact,
# plus parked requests, interrupts, many opens, a taken name, node removal,
# and (with 'bench', from scripts/bench) the cost of an ioctl and of read().
# Usage (in the guest): cuse-node.sh BUILD_DIR [bench]  (bench: only the cost)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

CUSETEST=$BUILD/tests/tools/uvcuse-cusetest
CLIENT=$(dirname "$0")/cuse_client.py
SERVER_PIDS=()

cuse_cleanup() {
	local status=$?
	for pid in "${SERVER_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${SERVER_PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	for log in "$WORK"/server-*.log; do
		[ -e "$log" ] || continue
		echo "--- $(basename "$log") (last 15 lines)"
		tail -n 15 "$log"
	done
	cleanup "$status"
}
trap cuse_cleanup EXIT

# server_start NAME [options...]: serves /dev/NAME, waits for the node.
server_start() {
	local name=$1 i
	shift
	"$CUSETEST" --name "$name" "$@" 2>"$WORK/server-$name.log" &
	SERVER_PIDS+=($!)
	for ((i = 0; i < 100; i++)); do
		[ -c "/dev/$name" ] && return 0
		sleep 0.05
	done
	fail "/dev/$name did not appear"
}

client() { # client NODE CHECK...
	local node=$1
	shift
	python3 "$CLIENT" "$WORK/table" "$node" "$@" || fail "client: $*"
}

load_modules cuse
# v4l2-ctl accepts a node only if its uevent DEVNAME is video<N>.
"$CUSETEST" --ioctls >"$WORK/table"
echo "$(wc -l <"$WORK/table") ioctls in the table"

bench() {
	step "cost: µs per QUERYCAP, MB/s of read()"
	[ -c /dev/video61 ] || server_start video61 --frames -1
	client /dev/video61 bench | tee "$WORK/bench.txt"
}
if [ "${2:-}" = bench ]; then
	bench
	bench
	bench
	exit 0
fi

step "node appears; v4l2-ctl reads QUERYCAP"
server_start video60
SERVER=${SERVER_PIDS[0]}
ls -l /dev/video60 /sys/class/cuse/video60/dev
v4l2-ctl -D -d /dev/video60 | tee "$WORK/v4l2-ctl.txt"
grep -Eq 'Driver name\s*: cusetest$' "$WORK/v4l2-ctl.txt" || fail "v4l2-ctl: driver name"
grep -Eq 'Card type\s*: cusetest card$' "$WORK/v4l2-ctl.txt" || fail "v4l2-ctl: card"
grep -Eq 'Bus info\s*: cuse:video60$' "$WORK/v4l2-ctl.txt" || fail "v4l2-ctl: bus info"

step "ioctl round trips are byte-exact"
client /dev/video60 querycap fmt ext userptr uvcquery

step "unknown ioctls answer ENOTTY, bad pointers EFAULT"
client /dev/video60 enotty

step "parked DQBUF and read(), poll wakeups"
client /dev/video60 dqbuf read

step "a client SIGKILLed in read() gets the daemon an interrupt"
client /dev/video60 sigkill
grep -q "interrupted read from pid" "$WORK/server-video60.log" || fail "no interrupt for the read"
grep -q "interrupted DQBUF from pid" "$WORK/server-video60.log" || fail "no interrupt for the DQBUF"

step "100 simultaneous opens"
client /dev/video60 many

step "a second server with the same name fails"
status=0
"$CUSETEST" --name video60 2>"$WORK/second.log" || status=$?
cat "$WORK/second.log"
[ "$status" -eq 3 ] && grep -q "name taken" "$WORK/second.log" || fail "second server: status $status"
kill -0 "$SERVER" || fail "the first server died"
# A second server that passed the name check before the first registered:
# the kernel refuses its CUSE_INIT and its session must end (status 1).
"$CUSETEST" --name video62 --hold-ms 1500 2>"$WORK/late.log" &
late=$!
# only once its name check has passed (a slow guest may start it late)
for ((i = 0; i < 100; i++)); do grep -q 'name checked' "$WORK/late.log" && break; sleep 0.05; done
grep -q 'name checked' "$WORK/late.log" || fail "the late server did not reach its name check"
server_start video62
status=0
wait "$late" || status=$?
cat "$WORK/late.log"
[ "$status" = 1 ] && grep -q "the kernel refused the device" "$WORK/late.log" ||
	fail "a server refused by the kernel: status $status"
[ -c /dev/video62 ] || fail "the registered video62 went away"

step "server exit removes the node"
kill -TERM "$SERVER"
wait "$SERVER" || fail "server exit status $?"
SERVER_PIDS=()
for ((i = 0; i < 100; i++)); do
	[ -e /dev/video60 ] || [ -e /sys/class/cuse/video60 ] || break
	sleep 0.05
done
[ ! -e /dev/video60 ] || fail "/dev/video60 still there"
[ ! -e /sys/class/cuse/video60 ] || fail "/sys/class/cuse/video60 still there"
grep "exit:" "$WORK/server-video60.log"
opens=$(sed -nE 's/.*exit:.*; ([0-9]+) opens, ([0-9]+) releases.*/\1 \2/p' "$WORK/server-video60.log")
[ "${opens% *}" = "${opens#* }" ] || fail "opens and releases differ: $opens"
echo "node removed; opens/releases: $opens"

echo
echo "cuse node: $STEPS steps passed"
