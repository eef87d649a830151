#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Exits with the status given as $1 (the runner must hand it back).
echo "exit.sh: exiting with ${1:?status}"
exit "$1"
