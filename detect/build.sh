#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The dwarf detector's own build: ARM's tree (series + probe) with
# qemu/config/debuginfo.config in build/arms/ARM-dwarf/ (its own worktree and O=),
# then every generation of workload/gens/gens.tsv incrementally as gens.sh
# does, keeping each vmlinux (with DWARF) and Module.symvers in
# kernels/<gen>/. Nothing here is booted. CPU seconds: build.json (G0, clean
# or incremental) and kernels/<gen>/build.json.
# usage: detect/build.sh ARM      env: GENS="G2 G4" (default: every generation)
set -eu
. "$(dirname "$0")/../lab/common.sh"

arm=${1:?usage: detect/build.sh ARM}
variant=dwarf name=$arm-dwarf
A=$ARMS_DIR/$name src=$ARMS_DIR/$name/src obj=$ARMS_DIR/$name/obj logs=$ARMS_DIR/$name/logs
armfrag=$TOP/qemu/config/$arm.config
vfrag=$TOP/qemu/config/debuginfo.config
[ -f "$armfrag" ] || die "unknown arm '$arm' (no qemu/config/$arm.config)"
git -C "$TREE" rev-parse -q --verify pristine >/dev/null 2>&1 || die "no tree (make tree)"
mkdir -p "$obj" "$logs"

# --- worktree: pristine + the arm's series + the probe, as lab/arm.sh -------
sh "$TOP/lab/worktree.sh" --probe "$src" "$A/series.id" "$arm"

# --- config: tinyconfig + lab + arm + dwarf, checked ------------------------
# shellcheck disable=SC2046
sh "$TOP/lab/configure.sh" "$name" "$src" "$obj" "$A" $(lab_fragments "$armfrag" "$vfrag")
cfg0=$A/config.G0
cp "$obj/.config" "$cfg0"

# kbuild JSON LOG: incremental build, CPU seconds recorded (lab/cputime.py)
kbuild() {
	"$TOP/lab/cputime.py" "$1" -- nice make -C "$src" O="$obj" $KARGS -j"$JOBS" \
		CC="$KCC" vmlinux modules >"$2" 2>&1
}
keep() { # DIR: what the detector reads
	mkdir -p "$1" && cp "$obj/vmlinux" "$obj/Module.symvers" "$1/"
}
reset_tree() {
	git -C "$src" checkout -q -- . && git -C "$src" clean -fdqx
	cmp -s "$cfg0" "$obj/.config" || cp "$cfg0" "$obj/.config"
}
trap 'reset_tree' EXIT

# --- G0 ----------------------------------------------------------------------
reset_tree
g0id=$(cat "$A/series.id" "$A/config.id")
if [ "$(cat "$A/kernels/G0/id" 2>/dev/null)" != "$g0id" ]; then
	fresh=; [ -f "$obj/vmlinux" ] || fresh=1
	step BUILD "$name G0${fresh:+ (clean)}"
	kbuild "$A/build.json" "$logs/build.log" ||
		die "build of $name failed: $(grep -m1 -e 'error:' -e 'Error ' "$logs/build.log") (log: $logs/build.log)"
	[ -z "$fresh" ] || cp "$A/build.json" "$A/build-clean.json"
	keep "$A/kernels/G0"
	echo "$g0id" > "$A/kernels/G0/id"
	done_step
fi

# --- generations, each one patch on G0 --------------------------------------
gens=$(py core.generations kernels -) || die "$BASE_GENS: cannot list the generations"
built=0 tab=$(printf '\t')
while IFS=$tab read -r g patch _kid _string; do
	[ -n "$g" ] || continue
	patch=$(table gen-patch "$patch") || exit 1
	k=$A/kernels/$g id=$(sha256sum < "$patch" | cut -c1-16)$g0id
	[ "$(cat "$k/id" 2>/dev/null)" = "$id" ] && continue
	step GEN "$name $g"
	reset_tree
	git -C "$src" apply "$patch" || die "$name: $(basename "$patch") does not apply"
	mkdir -p "$k"
	kbuild "$k/build.json" "$k/build.log" </dev/null ||
		die "$name $g: build failed (log: $k/build.log)"
	keep "$k"
	echo "$id" > "$k/id"
	built=$((built + 1))
	done_step
done <<EOF2
$gens
EOF2
# obj/ back at G0 for the next incremental run
if [ "$built" -gt 0 ]; then
	reset_tree
	kbuild "$logs/build-g0.json" "$logs/build-g0.log" ||
		die "$name: G0 rebuild failed (log: $logs/build-g0.log)"
fi
