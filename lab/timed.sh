#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run a lab target and append its wall time to build/lab-times.tsv
# (TARGET<tab>WALL_S<tab>DATE<tab>KIND<tab>RC), which make bench's Costs
# section reads. KIND is what the run started from:
#   cold   no arm built in build/ and an empty ccache (a new machine)
#   fresh  no arm built, ccache warm (a clean clone on a used machine)
#   warm   the arms already built (nothing to do unless an input changed)
# usage: timed.sh TARGET COMMAND...     exit status: COMMAND's
set -eu
. "$(dirname "$0")/common.sh"

target=${1:?usage: timed.sh TARGET COMMAND...}
shift
kind=warm
if ! ls "$ARMS_DIR"/*/kernels/G0/$IMAGE >/dev/null 2>&1; then
	kind=fresh
	[ -n "$(find "$CCACHE_DIR" -type f -name '*R' 2>/dev/null | head -n 1)" ] || kind=cold
fi
t0=$(date +%s.%N)
rc=0
"$@" || rc=$?
wall=$(echo "$(date +%s.%N) - $t0" | bc)
mkdir -p "$B"
printf '%s\t%.1f\t%s\t%s\t%d\n' "$target" "$wall" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	"$kind" "$rc" >> "$B/lab-times.tsv"
echo "modvlab: make $target ($kind start): $(printf '%.0f' "$wall") s wall, exit $rc" >&2
exit $rc
