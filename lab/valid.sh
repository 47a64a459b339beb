#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make valid: does a series refuse a module that is fine? Builds the
# reference arm and each series arm with the same extra module set
# (valid/SET.config, merged after the arm's own fragments), from the arm's
# own worktree, in its own O= folder, then boots each with every module the
# build made, dependencies first (python3 -m valid.boot). The reference
# arm's outcome is what a series must match.
#   build/BASE/valid/ARCH-SET/arms/ARM/{obj,logs,build.json,boot/}
#     (obj links to build/BASE/arms/ARM/obj-valid-ARCH-SET: ccache hits)
#   build/BASE/valid/ARCH-SET/not-taken.ARM   the set's options the tree lacks
#   .../arms/ARM/obj/extra/, extra.json         modules from elsewhere (valid/extra.py)
# VALID_CC=COMPILER builds all of it (kernels and modules: the configuration
# probes its compiler) with another compiler than the table's, into
# ARCH-SET-COMPILER: clang-N (with LLVM=-N: its assembler, linker and
# binutils too) or gcc-N, each with the architecture's CROSS_COMPILE.
# usage: valid.sh SET ARM...
set -eu
. "$(dirname "$0")/common.sh"

# the compiler of every make below (the configuration's too) and its packages
vcc=${VALID_CC:-} ccpkgs=
case $vcc in
'') ;;
clang|clang-[0-9]*)
	v=${vcc#clang}
	KARGS="$KARGS LLVM=${v:-1}" KCC="ccache $vcc"
	ccpkgs="$vcc lld${v} llvm${v}" ;;
gcc-[0-9]*)
	KARGS="$KARGS CC=${_cross}$vcc" KCC="ccache ${_cross}$vcc"
	ccpkgs=$vcc; [ -z "$_cross" ] || ccpkgs=$vcc-${_cross%-} ;;
*)	die "VALID_CC=$vcc: not a compiler the lab builds with (clang, clang-N, gcc-N)" ;;
esac

[ $# -ge 2 ] || die "usage: valid.sh SET ARM..."
set_=$1; shift
frag=$TOP/valid/$set_.config
[ -f "$frag" ] || die "no module set '$set_' (valid/$set_.config; those: $(cd "$TOP/valid" && ls ./*.config | sed 's|^\./||; s|\.config$||' | tr '\n' ' '))"
V=$B/valid/$ARCH_NAME-$set_${vcc:+-$vcc}
mkdir -p "$V"
echo "$set_" > "$V/set"
table arches boot | tr ' ' '\n' | grep -qx "$ARCH_NAME" ||
	die "ARCH=$ARCH_NAME cannot boot here: lab/arches.tsv has no QEMU machine for it (bootable: $(table arches boot))"
# the architecture's compiler, QEMU and (cross) static libc
sh "$TOP/lab/deps.sh"
# shellcheck disable=SC2086
[ -z "$ccpkgs" ] || sh "$TOP/lab/deps.sh" $ccpkgs

# valid_config FRAGS VFRAG: A/obj's .config from tinyconfig, the arm's
# fragments and the set (A, src from the loop below)
valid_config() {
	# shellcheck disable=SC2086
	{ make -C "$src" O="$A/obj" $KARGS tinyconfig &&
	  "$src/scripts/kconfig/merge_config.sh" -m -O "$A/obj" "$A/obj/.config" $1 "$2" &&
	  make -C "$src" O="$A/obj" $KARGS olddefconfig; } >"$A/logs/config.log" 2>&1
}
# same_make BUILD_JSON: the arm's last kernel make (lab/cputime.py's record)
# had this run's ARCH=, CROSS_COMPILE=, LLVM= and CC= (no copy of another
# architecture's objects)
same_make() {
	[ -f "$1" ] || return 1
	for _w in $KARGS "CC=$KCC"; do
		grep -qF "\"$_w\"" "$1" || return 1
	done
}
# same_target CONFIG CONFIG: the same architecture, word size and compiler
# (after same_make: sparc32 and sparc64, powerpc32 and 64 share ARCH= and
# can share a compiler; only the configuration tells them apart)
same_target() {
	for _k in '^# Linux/' '^CONFIG_64BIT=' '^CONFIG_CC_VERSION_TEXT='; do
		[ "$(grep -m1 "$_k" "$1")" = "$(grep -m1 "$_k" "$2")" ] || return 1
	done
}

for arm; do
	armfrag=$TOP/qemu/config/$arm.config
	[ -f "$armfrag" ] || die "unknown arm '$arm' (no qemu/config/$arm.config)"
	A=$V/arms/$arm src=$ARMS_DIR/$arm/src
	mkdir -p "$A/logs"
	[ -d "$src" ] || need_space 3 "arm $arm (a worktree of the tree)"
	sh "$TOP/lab/worktree.sh" --probe "$src" "$ARMS_DIR/$arm/series.id" "$arm"
	ln -sfn "$src" "$A/src"
	# the objects live beside the arm's own obj/ (A/obj links there): kbuild
	# names the source by absolute path and ccache makes it relative to
	# the object folder, so only a folder as deep below the arm's worktree
	# shares the arm's cache entries (every file the set's options leave
	# alone is a preprocessed-mode hit; from valid/ARCH-SET/arms/ARM/obj,
	# none was)
	obj=$ARMS_DIR/$arm/obj-valid-$ARCH_NAME-$set_${vcc:+-$vcc}
	[ -L "$A/obj" ] || rm -rf "$A/obj"
	mkdir -p "$obj"
	ln -sfn "$obj" "$A/obj"
	cp "$ARMS_DIR/$arm/series.id" "$A/series.id"
	# the set is one text for every base: what this tree lacks is a result
	# (the report lists it), the arm's own fragments must still take
	# the arm's fragments, then the set (each with the base's renames)
	all=$(lab_fragments "$armfrag" "$frag")
	frags=$(printf '%s\n' "$all" | sed '$d') vfrag=$(printf '%s\n' "$all" | tail -n1)
	# shellcheck disable=SC2086
	config_id=$(cat $frags "$vfrag" "$A/series.id" | sha256sum | cut -c1-16)
	# A first build starts from a copy of the arm's own objects (its G0
	# build, same worktree) when they are for this architecture and
	# compiler: kbuild then rebuilds only what the set's options reach
	# (fixdep's per-option dependencies), the same kernel a clean build
	# gives in a fraction of the time. Otherwise, or with no arm build,
	# from scratch.
	seed=$ARMS_DIR/$arm/obj
	[ ! -f "$A/obj/vmlinux" ] && [ -f "$seed/vmlinux" ] && [ -f "$seed/.config" ] &&
		same_make "$ARMS_DIR/$arm/build.json" || seed=
	if [ -n "$seed" ] || [ "$(cat "$A/config.id" 2>/dev/null)" != "$config_id" ] ||
	   [ ! -f "$A/obj/.config" ]; then
		step CONFIG "valid $set_ $arm${seed:+ (on the objects of $arm)}"
		if [ -n "$seed" ]; then
			rm -rf "$obj" && cp -a "$seed" "$obj" ||
				die "valid $set_: cannot copy $arm's objects to $obj"
			# the host tools' (objtool's) command and dependency
			# files name their output folder by absolute path: moved
			# along, or objtool is rebuilt and with it every object
			grep -rlF --include='*.cmd' --include='*.d' "$seed/" "$obj" |
				while IFS= read -r f; do
					sed -i "s|$seed/|$obj/|g" "$f" || exit 1
				done || die "valid $set_: cannot move the tools' records to $obj"
		fi
		valid_config "$frags" "$vfrag" ||
			die "config of valid $set_ $arm failed (log: $A/logs/config.log)"
		if [ -n "$seed" ] && ! same_target "$seed/.config" "$A/obj/.config"; then
			seed=
			rm -rf "$obj" && mkdir -p "$obj" && valid_config "$frags" "$vfrag" ||
				die "config of valid $set_ $arm failed (log: $A/logs/config.log)"
		fi
		# shellcheck disable=SC2086
		"$TOP/lab/config-check.sh" "$A/obj/.config" $frags ||
			die "config of valid $set_ $arm: the arm's own options did not take (see above)"
		"$TOP/lab/config-check.sh" "$A/obj/.config" "$vfrag" 2>&1 |
			sed -n "s/^modvlab: config: wanted '\(CONFIG_[A-Za-z0-9_]*\)=.*/\1/p" > "$V/not-taken.$arm"
		echo "$config_id" > "$A/config.id"
		done_step
	fi
	fresh=; [ -f "$A/obj/vmlinux" ] || fresh=1
	# what the build starts from (valid.json: a clean build's CPU seconds
	# are a cost, an incremental one's are not)
	if [ -n "$fresh" ]; then echo clean > "$A/build.from"
	elif [ -n "$seed" ]; then echo "$arm" > "$A/build.from"; rm -f "$A/build-clean.json"
	fi
	step BUILD "valid $set_ $arm${fresh:+ (clean)}${seed:+ (incremental on the objects of $arm)}"
	if ! "$TOP/lab/cputime.py" "$A/build.json" -- \
		nice make -C "$src" O="$A/obj" $KARGS -j"$JOBS" CC="$KCC" "$IMAGE" modules \
		>"$A/logs/build.log" 2>&1; then
		die "valid $set_: build of $arm failed: $(grep -m1 -e 'error:' -e 'Error ' "$A/logs/build.log") (log: $A/logs/build.log)"
	fi
	# a clean build's CPU seconds are the cost the report gives
	[ -z "$fresh" ] || cp "$A/build.json" "$A/build-clean.json"
	done_step
	# modules from elsewhere, into obj/extra/: the -dkms packages of the
	# base's suite (VALID_DKMS, default history/dkms.tsv), MODULES=DIR
	# shellcheck disable=SC2086
	py valid.extra "$V" "$arm" ${MODULES:+--modules "$MODULES"} -- $KARGS "CC=$KCC" ||
		die "valid $set_: the out-of-tree modules of $arm could not be fetched (see above)"
done
# the boots: one guest per arm, crash-resumed
py valid.boot "$V" "$@"
