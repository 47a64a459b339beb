#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make history: fetch Debian's uploads of the base, the host matrix, the booted sample
# (normal + forced), the DKMS builds and loads, then history.json + history.svg.
# env: OUT (build/BASE/history)  HISTORY ("55 57", or "newest:K"; empty = every upload)
#      SAMPLE_ONLY / DKMS_ONLY (module / package names that limit the tables)
#      MODULES (a directory of out-of-tree module source, built like DKMS)
set -u
. "$(dirname "$0")/../lab/common.sh"
OUT=${OUT:-$B/history}
mkdir -p "$OUT/logs" || exit 1
cd "$TOP" || exit 1
# the host tools: dkms (the out-of-tree builds) and the mkfs of every image
# history/images.tsv names (the sample's filesystem checks)
sh lab/deps.sh dkms $(awk -F'\t' '!/^#/ && NF >= 3 {print $2}' history/images.tsv | sort -u) || exit 1
case ${HISTORY:-} in
newest:*) want=$(sh history/fetch.sh --list | tail -n "${HISTORY#newest:}") ;;
*) want=${HISTORY:-} ;;
esac
rc=0
# shellcheck disable=SC2086
nums=$(sh history/fetch.sh "$OUT" $want) || rc=1
nums=$(echo $nums)
[ "$(echo "$nums" | wc -w)" -ge 2 ] || { echo "history: need two uploads, have '$nums'" >&2; exit 1; }
echo "  HIST   uploads $nums"
# the tables, limited when asked (a test run)
filter() {	# filter TABLE NAMES: keep comment lines and lines whose column $3 is named
	awk -F'\t' -v names=" $2 " -v col="$3" '/^#/ || index(names, " " $col " ")' "$1"
}
sample=history/sample.tsv dkms=history/dkms.tsv
if [ -n "${SAMPLE_ONLY:-}" ]; then sample=$OUT/sample.tsv; filter history/sample.tsv "$SAMPLE_ONLY" 1 > "$sample"; fi
if [ -n "${DKMS_ONLY:-}" ]; then dkms=$OUT/dkms.tsv; filter history/dkms.tsv "$DKMS_ONLY" 1 > "$dkms"; fi
rm -f "$OUT/matrix.json" "$OUT/boots.json" "$OUT/dkms.json" "$OUT/history.json"
# shellcheck disable=SC2086
python3 -m history.matrix "$OUT" $nums > "$OUT/logs/matrix.log" || { cat "$OUT/logs/matrix.log"; exit 1; }
echo "  HIST   matrix: $(wc -l < "$OUT/logs/matrix.log") upload pairs"
# shellcheck disable=SC2086
python3 -m history.boot "$OUT" "$sample" $nums || rc=1
# shellcheck disable=SC2086
# every -dkms package the archive has, unless DKMS_ONLY names some
every=--all; [ -z "${DKMS_ONLY:-}" ] || every=
python3 -m history.dkms "$OUT" "$dkms" $every ${MODULES:+--modules "$MODULES"} $nums || rc=1
python3 -m history.summary "$OUT" || rc=1
echo "  HIST   $OUT/history.json"
exit $rc
