#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every source file names its license in an SPDX-License-Identifier line
# near its top: LGPL-2.1-or-later for what is loaded into other people's
# programs (src/preload/, src/client/, include/uvcuse/), GPL-2.0-or-later
# for the rest; each license's full text is in LICENSES/. With Debian's
# reuse installed, `reuse lint` must pass too (REUSE 3.0: .reuse/dep5 says
# it for the files that carry no header).
set -u
root=${1:?usage: license-check.sh SOURCE_ROOT}
cd "$root" || exit 1
if [ -d .git ] || git rev-parse --git-dir >/dev/null 2>&1; then
	files=$(git ls-files)
else
	files=$(find . -type f -not -path './.git/*' -not -path './build*' | sed 's,^\./,,')
fi
failed=0
checked=0
for f in $files; do
	case "$f" in
	tests/fuzz/corpus/*) continue ;;
	*.c | *.h | *.sh | *.py | */meson.build | meson.build | meson_options.txt | \
		scripts/* | .ci/run | tests/vm/run | tests/vm/init | tests/vm/selftest | \
		*.in) ;;
	*) continue ;;
	esac
	case "$f" in
	src/preload/* | src/client/* | include/uvcuse/*) want=LGPL-2.1-or-later ;;
	*) want=GPL-2.0-or-later ;;
	esac
	checked=$((checked + 1))
	if ! head -n 3 "$f" | grep -q "SPDX-License-Identifier: $want\b"; then
		echo "FAIL: $f: no 'SPDX-License-Identifier: $want' in its first lines"
		failed=1
	fi
done
for l in GPL-2.0-or-later LGPL-2.1-or-later; do
	[ -s "LICENSES/$l.txt" ] || { echo "FAIL: LICENSES/$l.txt missing"; failed=1; }
done
echo "$checked source files checked"
if command -v reuse >/dev/null 2>&1; then
	if reuse lint >/tmp/reuse-lint.$$ 2>&1; then
		echo "reuse lint: compliant"
	else
		tail -n 20 /tmp/reuse-lint.$$
		echo "FAIL: reuse lint"
		failed=1
	fi
	rm -f /tmp/reuse-lint.$$
fi
exit $failed
