#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build one arm's kernel generations (workload/gens/gens.tsv) incrementally in
# its O= folder: for each, apply the generation's patch on G0, build, keep the
# kernel in kernels/<kid>/ and build the probe users against it; then put the
# tree and obj/ back at G0. An arm whose config has an ABI version string
# (series-remove) is built under two distributor policies: "lax" never bumps
# the string, "diligent" bumps it for every generation that changes an
# export (kernel ids G<n>-diligent). Up-to-date kernels are skipped.
# usage: gens.sh ARM        env: GENS="G1 G2" (default: every generation)
set -eu
. "$(dirname "$0")/common.sh"

arm=${1:?usage: gens.sh ARM}
A=$ARMS_DIR/$arm src=$ARMS_DIR/$arm/src obj=$ARMS_DIR/$arm/obj
gdir=$TOP/workload/gens
[ -f "$obj/vmlinux" ] || die "arm $arm is not built"
all=$(grep -v -e '^#' -e '^[[:space:]]*$' "$gdir/gens.tsv" | cut -f1)
gens=${GENS:-$all}
for g in $gens; do
	echo "$all" | grep -qx "$g" || die "GENS: unknown generation '$g' (workload/gens/gens.tsv has: $(echo $all))"
done
abi=$(sed -n 's/^CONFIG_MODULE_ABI_VERSION="\(.*\)"$/\1/p' "$obj/.config")
policies=-; [ -n "$abi" ] && policies="lax diligent"
logs=$A/logs
cfg0=$A/config.G0
cp "$obj/.config" "$cfg0"

# reset: the worktree back at G0 (the probe commit), .config back to G0's
reset_tree() {
	git -C "$src" checkout -q -- . && git -C "$src" clean -fdqx
	cmp -s "$cfg0" "$obj/.config" || { cp "$cfg0" "$obj/.config"; make -C "$src" O="$obj" olddefconfig >/dev/null; }
}
trap 'reset_tree' EXIT

kbuild() { # LOG: incremental kernel build
	make -C "$src" O="$obj" -j"$JOBS" CC="ccache gcc" bzImage modules >"$1" 2>&1
}

built=0
for g in $gens; do
	line=$(awk -F'\t' -v g="$g" '$1 == g' "$gdir/gens.tsv")
	patch=$gdir/$(echo "$line" | cut -f2)
	changes=$(echo "$line" | cut -f3)
	for pol in $policies; do
		kid=$g string=
		if [ "$pol" = diligent ] && [ "$changes" != - ]; then
			kid=$g-diligent string=$abi.$g
		fi
		k=$A/kernels/$kid
		id=$(cat "$A/series.id" "$A/config.id" "$patch" "$TOP/workload/build.sh" \
			"$TOP"/workload/probe-users/* | sha256sum | cut -c1-16)$string
		[ "$(cat "$k/id" 2>/dev/null)" = "$id" ] && continue
		step GEN "$arm $kid"
		reset_tree
		git -C "$src" apply "$patch" || die "$arm: $(basename "$patch") does not apply"
		if [ -n "$string" ]; then
			"$src/scripts/config" --file "$obj/.config" --set-str MODULE_ABI_VERSION "$string"
			make -C "$src" O="$obj" olddefconfig >/dev/null
		fi
		mkdir -p "$k"
		kbuild "$k/build.log" || die "$arm $kid: build failed (log: $k/build.log)"
		cp "$obj/arch/x86/boot/bzImage" "$obj/Module.symvers" "$k/"
		sh "$TOP/workload/build.sh" "$arm" probe "$k/mods"
		echo "$id" > "$k/id"
		built=$((built + 1))
		done_step
	done
done
# leave obj/ at G0, so the next run (and sizes) start from the release
if [ "$built" -gt 0 ]; then
	reset_tree
	step BUILD "$arm G0 (back from generations)"
	kbuild "$logs/build-g0.log" || die "$arm: G0 rebuild failed (log: $logs/build-g0.log)"
	done_step
fi
