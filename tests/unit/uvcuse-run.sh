#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# uvcuse-run's command line (suite unit): usage, the library it preloads,
# and --install-global / --uninstall-global on a stand-in ld.so.preload
# (UVCUSE_LD_SO_PRELOAD) that keeps every other entry.
set -u
run=${1:?usage: uvcuse-run.sh UVCUSE-RUN}
# shellcheck source-path=SCRIPTDIR source=../common/cli-check.sh
. "$(dirname "$0")/../common/cli-check.sh"
lib=$("$run" --print-library)
check "no arguments" 2 "^uvcuse-run: missing APP" "$run"
check "no arguments: one line and where help is" 0 "^2$" sh -c "'$run' 2>&1 | wc -l"
check "--help" 0 "usage: uvcuse-run APP" "$run" --help
check "-h" 0 "usage: uvcuse-run APP" "$run" -h
check "--version" 0 "^uvcuse-run [0-9]+\.[0-9]+\.[0-9]+$" "$run" --version
check "-V" 0 "^uvcuse-run [0-9]+\.[0-9]+\.[0-9]+$" "$run" -V
check "unknown option" 2 "^uvcuse-run: unknown option --bogus" "$run" --bogus
check "unknown option: Try --help" 2 "Try 'uvcuse-run --help'" "$run" --bogus
check "the library exists" 0 "libuvcuse-preload.so$" ls "$lib"
check "APP runs with the library first in LD_PRELOAD" 0 "^$lib:/other.so$" \
	env LD_PRELOAD=/other.so "$run" sh -c 'echo "$LD_PRELOAD"'
check "APP's exit status" 7 "" "$run" sh -c 'exit 7'

tmp=$(mktemp -d)
safe=
trap 'rm -rf "$tmp" ${safe:+"$safe"}' EXIT
export UVCUSE_LD_SO_PRELOAD=$tmp/ld.so.preload
printf '/lib/a.so /lib/b.so\n/lib/c.so\n' > "$UVCUSE_LD_SO_PRELOAD"
# A library that someone other than root could change runs in every
# process once listed: one under /tmp (others may write there) is refused.
cp "$run" "$lib" "$tmp/"
check "--install-global of a library under /tmp: refused" 1 \
	"refusing .*(writable by others than root|not owned by root)" "$tmp/uvcuse-run" --install-global
check "refused: the list unchanged" 0 "^/lib/a.so /lib/b.so /lib/c.so $" \
	sh -c "tr '\n' ' ' < $UVCUSE_LD_SO_PRELOAD"
if [ "$(id -u)" -ne 0 ]; then
	echo "ok: (not root: --install-global of a root-owned library not tried)"
	[ "$failures" -eq 0 ] || { echo "$failures failed"; exit 1; }
	exit 0
fi
# root's library in root's directories (/run is root's, 0755)
safe=$(mktemp -d -p /run uvcuse-run-test.XXXXXX)
chmod 0755 "$safe"
cp "$run" "$lib" "$safe/"
run=$safe/uvcuse-run
lib=$safe/libuvcuse-preload.so
check "--install-global" 0 "every program now loads $lib" "$run" --install-global
check "--install-global again" 0 "" "$run" --install-global
check "installed once, others kept" 0 "^/lib/a.so /lib/b.so /lib/c.so $lib $" \
	sh -c "tr '\n' ' ' < $UVCUSE_LD_SO_PRELOAD"
check "readable by every program" 0 "^644$" stat -c %a "$UVCUSE_LD_SO_PRELOAD"
check "--uninstall-global" 0 "no longer listed" "$run" --uninstall-global
check "only ours removed" 0 "^/lib/a.so /lib/b.so /lib/c.so $" \
	sh -c "tr '\n' ' ' < $UVCUSE_LD_SO_PRELOAD"
rm "$UVCUSE_LD_SO_PRELOAD"
check "--install-global without a file" 0 "" "$run" --install-global
check "a new file holds the library" 0 "^$lib$" cat "$UVCUSE_LD_SO_PRELOAD"
chmod 0775 "$safe"
check "a directory its group may write: refused" 1 "writable by others than root" \
	"$run" --install-global
[ "$failures" -eq 0 ] || { echo "$failures failed"; exit 1; }
