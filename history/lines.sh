#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make history: every Debian kernel line the archive serves (history/lines.py
# discovers them; HISTORY= selects lines and uploads), each run as one
# history (history/run.sh: churn, survival per policy, booted sample, forced
# loads, DKMS) in its own folder, then the upgrades from one line to the next
# (history/across.py) into ROOT/lines.json.
# env: ROOT (build/history)  HISTORY  MODULES  SAMPLE_ONLY  DKMS_ONLY
#      OUT_BASE (the base's own line's folder: build/BASE/history)
set -u
. "$(dirname "$0")/../lab/common.sh"
ROOT=${ROOT:-$(dirname "$B")/history}
OUT_BASE=${OUT_BASE:-$B/history}
mkdir -p "$ROOT" || exit 1
cd "$TOP" || exit 1
step LINES "discover Debian's kernel lines"
python3 -m history.lines select "${HISTORY:-}" > "$ROOT/lines.sel" || exit 1
: > "$ROOT/lines.tsv"
rc=0
while IFS='	' read -r name pattern suites apt kbuild ups; do
	out=$ROOT/$name
	[ "$pattern" = "$BASE_ABINAME" ] && out=$OUT_BASE
	echo "  LINE   $name ($suites, $apt apt): uploads $ups -> $out"
	export HIST_ABINAME="$pattern" HIST_SUITES="$suites" HIST_APT="$apt" HIST_KBUILD="$kbuild" HIST_LINE="$name"
	if [ "$(echo "$ups" | wc -w)" -ge 2 ]; then
		# shellcheck disable=SC2086
		OUT=$out HISTORY="$ups" sh history/run.sh < /dev/null || rc=1
	else	# one upload: nothing to update within the line, only across
		mkdir -p "$out"
		# shellcheck disable=SC2086
		sh history/fetch.sh "$out" $ups < /dev/null > /dev/null || rc=1
	fi
	got=
	for n in $ups; do [ -f "$out/up/$n/.done" ] && got="$got $n"; done
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$pattern" "$suites" "$apt" "$kbuild" \
		"$(echo $got)" "$out" >> "$ROOT/lines.tsv"
done < "$ROOT/lines.sel"
unset HIST_ABINAME HIST_SUITES HIST_APT HIST_KBUILD HIST_LINE
sample=history/sample.tsv
if [ -n "${SAMPLE_ONLY:-}" ]; then
	sample=$ROOT/sample.tsv
	awk -F'\t' -v names=" $SAMPLE_ONLY " '/^#/ || index(names, " " $1 " ")' history/sample.tsv > "$sample"
fi
python3 -m history.across "$ROOT" "$ROOT/lines.tsv" "$sample" || rc=1
echo "  HIST   $ROOT/lines.json"
exit $rc
