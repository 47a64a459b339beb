#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Prepare and build one arm: worktree of the pristine tree + its series (git am),
# config (tinyconfig + qemu/config fragments, checked), kernel build in O=.
# usage: arm.sh ARM
set -eu
. "$(dirname "$0")/common.sh"

arm=${1:?usage: arm.sh ARM}
frag=$TOP/qemu/config/$arm.config
[ -f "$frag" ] || die "unknown arm '$arm' (no qemu/config/$arm.config)"
A=$ARMS_DIR/$arm
src=$A/src obj=$A/obj logs=$A/logs
mkdir -p "$obj" "$logs"

# --- worktree + series ----------------------------------------------------
series=$TOP/series-$arm
patches=
if [ -f "$series/series" ]; then
	patches=$(grep -v -e '^#' -e '^[[:space:]]*$' "$series/series" |
		sed "s|^|$series/|")
fi
# then the lab's probe exports, identical in every arm (workload/probe/)
probe=$(ls "$TOP"/workload/probe/*.patch)
series_id=$(cat /dev/null $patches $probe | sha256sum | cut -c1-16)
if [ ! -d "$src/.git" ] && [ ! -f "$src/.git" ]; then
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$src" pristine >"$logs/worktree.log" 2>&1 ||
		die "cannot create worktree $src (log: $logs/worktree.log)"
	rm -f "$A/series.id"
fi
if [ "$(cat "$A/series.id" 2>/dev/null)" != "$series_id" ]; then
	step AM "$arm: $(echo $patches | wc -w) patches + probe"
	gs() { git -C "$src" -c user.name=modvlab -c user.email=modvlab@localhost "$@"; }
	gs am --abort >/dev/null 2>&1 || true
	gs reset -q --hard pristine
	gs clean -fdq
	if [ -n "$patches" ]; then
		# shellcheck disable=SC2086
		gs am -q $patches >"$logs/am.log" 2>&1 ||
			die "series-$arm does not apply: $(grep -m1 -e error -e 'Patch failed' "$logs/am.log") (log: $logs/am.log)"
	fi
	git -C "$src" tag -f "arm/$arm" >/dev/null	# the arm without the lab probe
	# shellcheck disable=SC2086
	gs am -q $probe >>"$logs/am.log" 2>&1 ||
		die "workload/probe does not apply on $arm (log: $logs/am.log)"
	echo "$series_id" > "$A/series.id"
	rm -f "$A/config.id"
	done_step
fi

# --- config -----------------------------------------------------------------
lab=$TOP/qemu/config/lab.config
sh "$TOP/lab/configure.sh" "$arm" "$src" "$obj" "$A" "$lab" "$frag"

# --- build ------------------------------------------------------------------
fresh=; [ -f "$obj/vmlinux" ] || fresh=1
step BUILD "$arm${fresh:+ (clean)}"
if ! "$TOP/lab/cputime.py" "$A/build.json" -- \
	make -C "$src" O="$obj" -j"$JOBS" CC="ccache gcc" bzImage modules \
	>"$logs/build.log" 2>&1; then
	die "build of $arm failed: $(grep -m1 -e 'error:' -e 'Error ' "$logs/build.log") (log: $logs/build.log)"
fi
# G0, the release: kept apart, since generations rebuild obj/ in place
mkdir -p "$A/kernels/G0"
cp "$obj/arch/x86/boot/bzImage" "$obj/Module.symvers" "$obj/vmlinux" "$A/kernels/G0/"
if [ -n "$fresh" ]; then
	cp "$A/build.json" "$A/build-clean.json"
	cp "$logs/build.log" "$logs/build-clean.log"
fi
done_step
