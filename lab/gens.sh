#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build one arm's kernel generations (workload/gens/gens.tsv) incrementally in
# its O= folder: for each, apply the generation's patch on G0, build, keep the
# kernel in kernels/<kid>/ and build the probe users against it; then put the
# tree and obj/ back at G0. An arm whose distributor sets a string
# (workload/arms.tsv: abi = CONFIG_MODULE_ABI_VERSION, release = the kernel
# release) is built once per string its policies give the generation
# (workload/gens/policies.tsv; the list of kernels comes from
# `python3 -m core.generations kernels`). On a release arm the policy, not the
# patch, decides the release: a localversion file the patch adds is dropped
# and CONFIG_LOCALVERSION is the policy's string (empty: G0's release, even
# for G1's respin). Up-to-date kernels are skipped.
# usage: gens.sh ARM        env: GENS="G1 G2" (default: every generation)
set -eu
. "$(dirname "$0")/common.sh"

arm=${1:?usage: gens.sh ARM}
A=$ARMS_DIR/$arm src=$ARMS_DIR/$arm/src obj=$ARMS_DIR/$arm/obj
[ -f "$obj/vmlinux" ] || die "arm $arm is not built"
abi=$(sed -n 's/^CONFIG_MODULE_ABI_VERSION="\(.*\)"$/\1/p' "$obj/.config")
kind=$(table string "$arm") || die "workload/arms.tsv: no string for $arm"
rel0=$(cat "$obj/include/config/kernel.release") || die "$arm: G0 has no kernel.release"
[ "$kind" = release ] && set -- --release || set -- "${abi:--}"
# GEN PATCH KID STRING per kernel to build (STRING "-": the arm's own)
kernels=$(py core.generations kernels "$1") ||
	die "$BASE_GENS: cannot list the generations (or their policies)"
logs=$A/logs
cfg0=$A/config.G0
cp "$obj/.config" "$cfg0"

# reset: the worktree back at G0 (the probe commit), .config back to G0's
reset_tree() {
	git -C "$src" checkout -q -- . && git -C "$src" clean -fdqx
	cmp -s "$cfg0" "$obj/.config" || { cp "$cfg0" "$obj/.config"; make -C "$src" O="$obj" $KARGS olddefconfig >/dev/null; }
}
trap 'reset_tree' EXIT

kbuild() { # LOG: incremental kernel build
	make -C "$src" O="$obj" $KARGS -j"$JOBS" CC="$KCC" "$IMAGE" modules >"$1" 2>&1
}

built=0
tab=$(printf '\t')
while IFS=$tab read -r g patch kid string; do
	[ -n "$g" ] || continue
	patch=$(table gen-patch "$patch") || exit 1
	[ "$string" = - ] && string=
	k=$A/kernels/$kid
	id=$(cat "$A/series.id" "$A/config.id" "$patch" "$TOP/workload/build.sh" \
		"$TOP"/workload/probe-users/* | sha256sum | cut -c1-16)$string
	[ "$(cat "$k/id" 2>/dev/null)" = "$id" ] && continue
	step GEN "$arm $kid"
	reset_tree
	git -C "$src" apply "$patch" || die "$arm: $(basename "$patch") does not apply"
	if [ "$kind" = release ]; then
		# the release is the policy's: none of the patch's localversion files
		git -C "$src" ls-files -o -- 'localversion*' | (cd "$src" && xargs rm -f)
		git -C "$src" ls-files -m -- 'localversion*' |
			(cd "$src" && xargs -r git checkout -q --)
		"$src/scripts/config" --file "$obj/.config" --set-str LOCALVERSION "$string"
		make -C "$src" O="$obj" $KARGS olddefconfig >/dev/null
	elif [ -n "$string" ]; then
		"$src/scripts/config" --file "$obj/.config" --set-str MODULE_ABI_VERSION "$string"
		make -C "$src" O="$obj" $KARGS olddefconfig >/dev/null
	fi
	mkdir -p "$k"
	kbuild "$k/build.log" </dev/null || die "$arm $kid: build failed (log: $k/build.log)"
	if [ "$kind" = release ]; then
		rel=$(cat "$obj/include/config/kernel.release")
		[ "$rel" = "$rel0$string" ] ||
			die "$arm $kid: release is $rel, its policy wants $rel0$string"
	fi
	cp "$obj/$ARCH_IMAGE" "$obj/Module.symvers" "$k/"
	sh "$TOP/workload/build.sh" "$arm" probe "$k/mods" </dev/null
	echo "$id" > "$k/id"
	built=$((built + 1))
	done_step
done <<EOF
$kernels
EOF
# leave obj/ at G0, so the next run (and sizes) start from the release
if [ "$built" -gt 0 ]; then
	reset_tree
	step BUILD "$arm G0 (back from generations)"
	kbuild "$logs/build-g0.log" || die "$arm: G0 rebuild failed (log: $logs/build-g0.log)"
	done_step
fi
