#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Is the series bisectable? Apply its patches one at a time on the pristine
# tree (git am, in a scratch worktree) and build after each, with the lab
# config, in one incremental O= folder; also with CONFIG_MODVERSIONS=y for
# each patch while the tree still has the option (series-remove drops it).
# Writes build/bisect/ARM.tsv: patch, config, result, CPU seconds.
# usage: bisect.sh ARM
set -eu
. "$(dirname "$0")/common.sh"

arm=${1:?usage: bisect.sh ARM}
series=$(table series "$arm") || die "no arm $arm"
[ -f "$series/series" ] || die "no $series/series"
D=$B/bisect src=$B/bisect/$arm-src
mkdir -p "$D"
out=$D/$arm.tsv
# the pristine tree alone (lab/worktree.sh with the reference arm's empty
# series); the patches go on one at a time below
ref=$(table arms reference) || die "workload/arms.tsv: no reference arm"
[ "$(table series "$ref")" = - ] || die "the reference arm $ref has a series"
sh "$TOP/lab/worktree.sh" --fresh "$src" "$src.id" "$ref"
gs() { git -C "$src" -c user.name=modvlab -c user.email=modvlab@localhost "$@"; }

# build SRC-state CONFIG-NAME FRAGMENT...: configure (if the fragments took)
# and build in $D/$arm-<config>; prints pass, fail or n/a (option gone)
build() {
	name=$1; shift
	obj=$D/$arm-$name log=$D/$arm-$name.log
	mkdir -p "$obj"
	rm -f "$obj.json"	# no CPU time for a step that built nothing
	{ make -C "$src" O="$obj" $KARGS tinyconfig &&
	  "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$@" &&
	  make -C "$src" O="$obj" $KARGS olddefconfig; } >"$log" 2>&1 || { echo fail; return; }
	sh "$TOP/lab/config-check.sh" "$obj/.config" "$@" 2>>"$log" || { echo n/a; return; }
	if "$TOP/lab/cputime.py" "$obj.json" -- nice make -C "$src" O="$obj" $KARGS -j"$JOBS" \
		CC="$KCC" "$IMAGE" modules >>"$log" 2>&1; then echo pass; else echo fail; fi
}

printf 'patch\tconfig\tresult\tcpu_s\n' > "$out"
bad=0 k=0
for p in $(grep -v -e '^#' -e '^[[:space:]]*$' "$series/series"); do
	k=$((k + 1))
	gs am -q "$series/$p" >/dev/null 2>&1 || die "$p does not apply on the patches before it"
	for cfg in "$arm" "$ref"; do
		# shellcheck disable=SC2046
		r=$(build "$cfg" $(lab_fragments "$TOP/qemu/config/$cfg.config"))
		cpu=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['cpu_s'])" "$D/$arm-$cfg.json" 2>/dev/null || echo -)
		printf '%s\t%s\t%s\t%s\n' "$p" "$cfg" "$r" "$cpu" >> "$out"
		printf '  %-7s%s [%s] %s\n' BISECT "$p" "$cfg" "$r"
		[ "$r" = fail ] && bad=1
		[ "$cfg" = "$arm" ] || true
	done
done
git -C "$TREE" worktree remove -f "$src"
[ $bad = 0 ] || die "$series: a patch does not build (see $out)"
