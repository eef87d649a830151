#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Leaves a file for the host in the --share directory $1.
set -eu
echo "written in the guest by $(uname -r)" >"$1/from-guest.txt"
mkdir -p "$1/sub" && echo nested >"$1/sub/file"
echo "share.sh: wrote $1/from-guest.txt"
