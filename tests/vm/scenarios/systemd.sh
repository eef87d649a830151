#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Under --systemd: PID 1 is systemd, the system is up, this runs as a unit.
set -u
state=$(systemctl is-system-running --wait)
echo "is-system-running: $state"
systemctl --failed --no-pager
echo "pid 1: $(cat /proc/1/comm)"
echo "cgroup: $(cat /proc/self/cgroup)"
systemctl is-active multi-user.target
[ "$(cat /proc/1/comm)" = systemd ] || exit 1
grep -q uvcuse-vm.service /proc/self/cgroup || exit 1
case "$state" in running | degraded) exit 0 ;; *) exit 1 ;; esac
