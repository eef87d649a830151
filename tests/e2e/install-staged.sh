#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Host side of the service scenarios: `meson install` into BUILD/stage (what
# a package would hold), then the VM command, which copies it over the
# guest's root. Usage: install-staged.sh BUILD_DIR COMMAND...
set -euo pipefail
build=${1:?usage: install-staged.sh BUILD_DIR COMMAND...}
shift
rm -rf "$build/stage"
meson install -C "$build" --no-rebuild --quiet --destdir "$build/stage" >/dev/null
exec "$@"
