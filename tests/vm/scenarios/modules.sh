#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The kernel features uvcuse needs are loadable in the guest.
set -eu
kver=$(uname -r)
echo "kernel $kver, modules in /lib/modules/$kver"
modprobe cuse
test -c /dev/cuse && echo "ok: /dev/cuse"
modprobe vhci-hcd
test -e /sys/devices/platform/vhci_hcd.0/attach && echo "ok: vhci_hcd.0/attach"
modprobe uvcvideo
grep -q '^uvcvideo ' /proc/modules && echo "ok: uvcvideo loaded"
