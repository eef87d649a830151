#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh TARGET SEEDS WORK SECONDS: one short libFuzzer run of TARGET from
# the committed SEEDS. What it finds goes to WORK (a fresh corpus and the
# crash files), never into the source tree. Fails on any crash, leak or
# broken invariant: exit status 1 (libFuzzer's default, 77, is meson's
# "skipped", which hid a broken invariant as a SKIP).
set -eu
target=$1 seeds=$2 work=$3 seconds=$4
rm -rf "$work/corpus"
mkdir -p "$work/corpus" "$work/findings"
exec nice "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
	-error_exitcode=1 -timeout_exitcode=1 \
	-print_final_stats=1 -artifact_prefix="$work/findings/" "$work/corpus" "$seeds"
