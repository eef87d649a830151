#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The README's uninstall block, run as written (tests/vm/run --systemd),
# after readme-install.sh (run now if it has not run in this guest): then
# nothing of uvcuse is left but what the README says stays (the user uvcuse
# and /var/lib/uvcuse): no installed file, no directory the install made, no
# entry in /etc/ld.so.preload, no unit, no process.
# Usage (in the guest): readme-uninstall.sh BUILD_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
SHOW_LOGS=failure
ensure_installed
# as a user may have left it: the library in ld.so.preload, the bridge enabled
uvcuse-run --install-global
systemctl --global enable uvcuse-pipewire.service || fail "the bridge's user unit"

step "the README's uninstall block, run as written, in $SRC_ROOT"
readme_block uninstall >"$WORK/uninstall.sh"
cat "$WORK/uninstall.sh"
grep -q 'uninstall' "$WORK/uninstall.sh" || fail "no uninstall block in $SRC_ROOT/README.md"
(cd "$SRC_ROOT" && bash -e -x "$WORK/uninstall.sh") 2>&1 | tail -n 30
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "the README's uninstall block failed"

step "nothing left behind"
cat "$INSTALLED.files" "$INSTALLED.dirs" >"$WORK/paths"
left=0
while read -r f; do
	if [ -e "$f" ] || [ -L "$f" ]; then
		echo "left: $f"
		left=$((left + 1))
	fi
done <"$WORK/paths"
[ "$left" -eq 0 ] || fail "$left installed files or directories left"
! grep -qs uvcuse /etc/ld.so.preload || fail "/etc/ld.so.preload still lists $(grep uvcuse /etc/ld.so.preload)"
! systemctl cat uvcuse@.service >/dev/null 2>&1 || fail "systemd still knows uvcuse@.service"
links=$(find /etc/systemd -name 'uvcuse*' ! -name 'uvcuse-vm.service' 2>/dev/null) # (uvcuse-vm: the VM runner's)
[ -z "$links" ] || fail "left in /etc/systemd: $links"
units=$(systemctl list-units --all --no-legend 'uvcuse@*' | grep -v 'not-found.*inactive.*dead' || true)
[ -z "$units" ] || fail "units left: $units"
procs=$(pgrep -a uvcuse || true)
[ -z "$procs" ] || fail "processes left: $procs"
command -v uvcuse >/dev/null && fail "uvcuse is still on PATH: $(command -v uvcuse)"
echo "$(wc -l <"$INSTALLED.files") files and $(wc -l <"$INSTALLED.dirs") directories gone;" \
	"ld.so.preload, units, processes: none left"
rm -f "$INSTALLED" "$INSTALLED.files" "$INSTALLED.dirs"
