#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Several scenarios in one guest boot, one after the other, each as if it had
# the guest to itself: its own process group (what it leaves running is
# killed when it ends), its own time limit, an empty kernel log; afterwards
# its files in /tmp are removed, the users and groups it added forgotten
# (/etc/passwd, group, shadow, gshadow as they were), and the daemon's
# runtime and state directories it made removed (a daemon of another user
# would find them not its own). A boot costs about 6 s of TCG time (22 s under
# systemd), so CI groups the scenarios (tests/e2e/meson.build); each one is
# still a test of its own under `meson test --setup scenario NAME`.
# NAME:SECONDS:keep marks a scenario whose changes the later ones build on
# (readme-install.sh): the batch takes its picture of the guest after it.
# Ends with a table (scenario, status, seconds) and fails if any failed.
# Usage (in the guest): batch.sh NAME:SECONDS[:keep] SCRIPT [ARGS...] [:: ...]
set -uo pipefail
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

SUMMARY=()
FAILED=0
ETC_SAVED=$(mktemp -d /tmp/batch-etc.XXXXXX)
ACCOUNTS=(/etc/passwd /etc/group /etc/shadow /etc/gshadow)

# picture: what reset brings the guest back to: its accounts, and which of
# the daemon's directories did not exist.
picture() {
	cp -a "${ACCOUNTS[@]}" "$ETC_SAVED/" 2>/dev/null
	FRESH_DIRS=()
	for dir in /run/uvcuse /var/lib/uvcuse; do
		[ -e "$dir" ] || FRESH_DIRS+=("$dir")
	done
}
picture

# reset: the guest's accounts and the daemon's directories as in the
# picture; the homes and lingering sessions of the users a scenario added go.
reset() {
	local f
	# (a pipe: a plain guest has no /dev/fd for <(...))
	awk -F: 'NR == FNR { old[$1]; next } !($1 in old) { print $1 ":" $6 }' \
		"$ETC_SAVED/passwd" /etc/passwd | while IFS=: read -r user home; do
		if [ -d /run/systemd/system ]; then
			loginctl disable-linger "$user" 2>/dev/null
			loginctl terminate-user "$user" 2>/dev/null
		fi
		case $home in /home/?*) rm -rf "$home" ;; esac
	done
	for f in "${ACCOUNTS[@]}"; do
		[ ! -e "$ETC_SAVED/${f##*/}" ] || cp -a "$ETC_SAVED/${f##*/}" "$f"
	done
	rm -rf "${FRESH_DIRS[@]}" /tmp/scenario.*
}

# leftovers KILL_GROUP: whatever the scenario left running is stopped, the
# processes of its group and any uvcuse program that detached from it.
leftovers() {
	kill -KILL -- "-$1" 2>/dev/null
	local exe pid
	for pid in $(pgrep -f 'uvcuse' || true); do
		[ "$pid" != $$ ] || continue
		exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || continue
		case ${exe##*/} in uvcuse*) kill -KILL "$pid" 2>/dev/null ;; esac
	done
	for ((i = 0; i < 50; i++)); do # a vcam's port frees as it exits
		ps -C uvcuse-vcam -o stat= | grep -qv '^Z' || break
		sleep 0.1
	done
}

# scenario NAME:SECONDS[:keep] SCRIPT [ARGS...]
scenario() {
	local name limit keep start=$SECONDS status
	IFS=: read -r name limit keep <<<"$1"
	shift
	echo
	echo "######## scenario $name (at most $limit s) ########"
	dmesg -C
	# timeout(1) leads a process group of its own: the scenario's; its
	# output, kept for the reason of a failure, is shown once it ends
	local out=$ETC_SAVED/out
	timeout -k 10 "$limit" bash "$@" </dev/null >"$out" 2>&1 &
	local group=$!
	wait "$group"
	status=$?
	leftovers "$group"
	cat "$out"
	local why
	why=$(grep -m1 '^FAIL: ' "$out" | cut -c7-200)
	if [ "$keep" = keep ]; then
		rm -rf /tmp/scenario.*
		picture
	else
		reset
	fi
	local took=$((SECONDS - start)) verdict=ok
	[ "$status" -eq 0 ] || verdict="FAIL (status $status$([ "$status" -eq 124 ] && echo ", timed out"))${why:+: $why}"
	[ "$status" -eq 0 ] || FAILED=$((FAILED + 1))
	echo "######## scenario $name: $verdict after $took s ########"
	SUMMARY+=("$(printf '%-18s %5d s  %s' "$name" "$took" "$verdict")")
}

[ $# -gt 0 ] || { echo "usage: batch.sh NAME:SECONDS SCRIPT [ARGS...] [:: ...]" >&2; exit 2; }
while [ $# -gt 0 ]; do
	args=()
	while [ $# -gt 0 ] && [ "$1" != :: ]; do
		args+=("$1")
		shift
	done
	[ $# -eq 0 ] || shift
	[ ${#args[@]} -ge 2 ] && [[ ${args[0]} =~ ^[^:]+:[0-9]+(:keep)?$ ]] ||
		{ echo "batch.sh: bad scenario: ${args[*]}" >&2; exit 2; }
	scenario "${args[@]}"
done
echo
echo "######## $((${#SUMMARY[@]})) scenarios, $FAILED failed ########"
printf '%s\n' "${SUMMARY[@]}"
[ "$FAILED" -eq 0 ]
