#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Reboots the guest at once, before the init can record a status: the runner
# must report that and exit 125.
echo "no-status.sh: rebooting without a status"
echo b >/proc/sysrq-trigger
sleep 60
