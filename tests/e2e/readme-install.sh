#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The README's install block, run as written (tests/vm/run --systemd), in
# the guest's writable view of the source tree, whose `build` is BUILD: the
# host configured it with --prefix=/usr and built it, so the block's `meson
# setup` finds it configured and its compile has nothing left to do; the
# block's `sudo meson install` then installs into the guest's root. Checks
# what a user would find: every file meson installs, the programs on a
# user's PATH, the user uvcuse, the unit, /dev/cuse. Notes in $INSTALLED
# (lib.sh) the files installed and the directories the install made, for
# readme-uninstall.sh. Usage (in the guest): readme-install.sh BUILD_DIR
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
SHOW_LOGS=failure

step "the README's install block"
readme_block install >"$WORK/install.sh"
cat "$WORK/install.sh"
grep -q 'meson install' "$WORK/install.sh" || fail "no install block in $SRC_ROOT/README.md"
command -v sudo >/dev/null || fail "no sudo in the guest (scripts/install-deps installs it)"
if [ "$(cd "$SRC_ROOT/build" 2>/dev/null && pwd -P)" != "$(cd "$BUILD" && pwd -P)" ]; then
	mkdir -p "$SRC_ROOT/build"
	mount --bind "$BUILD" "$SRC_ROOT/build"
fi
prefix=$(python3 -c 'import json, sys
print(next(o["value"] for o in json.load(open(sys.argv[1])) if o["name"] == "prefix"))' \
	"$BUILD/meson-info/intro-buildoptions.json")
[ "$prefix" = /usr ] || fail "$BUILD is configured with prefix $prefix: the README's is /usr"

# what meson will install, and which of the directories above it are new
python3 -c 'import json, os, sys
dests = sorted(set(json.load(open(sys.argv[1])).values()))
dirs = set()
for d in dests:
    p = os.path.dirname(d)
    while p != "/" and not os.path.isdir(p):
        dirs.add(p)
        p = os.path.dirname(p)
with open(sys.argv[2], "w") as f:
    f.write("\n".join(dests) + "\n")
with open(sys.argv[3], "w") as f:
    f.write("".join(d + "\n" for d in sorted(dirs)))' \
	"$BUILD/meson-info/intro-installed.json" "$WORK/files" "$WORK/new-dirs"
echo "meson installs $(wc -l <"$WORK/files") files; new directories: $(tr '\n' ' ' <"$WORK/new-dirs")"

step "run as written, in $SRC_ROOT"
(cd "$SRC_ROOT" && bash -e -x "$WORK/install.sh") 2>&1 | tail -n 40
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "the README's install block failed"

step "what a user finds"
while read -r f; do
	[ -e "$f" ] || [ -L "$f" ] || fail "$f not installed"
done <"$WORK/files"
for prog in uvcuse uvcuse-run; do
	found=$(runuser -u nobody -- bash -lc "command -v $prog") || fail "$prog is not on a user's PATH"
	echo "$prog: $found"
done
id uvcuse || fail "no user uvcuse"
id -nG uvcuse | grep -qw video || fail "uvcuse is not in group video"
systemctl cat uvcuse@.service >/dev/null || fail "systemd does not know uvcuse@.service"
[ -c /dev/cuse ] || fail "no /dev/cuse after modprobe cuse"
mkdir -p "${INSTALLED%/*}"
cp "$WORK/files" "$INSTALLED.files"
cp "$WORK/new-dirs" "$INSTALLED.dirs"
touch "$INSTALLED"
echo "installed: $(wc -l <"$INSTALLED.files") files"
