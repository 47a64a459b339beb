#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make cross: does a series build on other architectures? keep: with
# CONFIG_MODVERSIONS, where a .S export without a prototype is now an error;
# remove: treewide, and its loader checks compile for every word size and
# relocation format. For each line of lab/arches.tsv with a cross_config:
# tinyconfig + MODULES + MODVERSIONS (where the tree still has the option) +
# those options (one small =m module), cross-compiled with Debian's cross
# gcc (installed through deps.sh), ccache, one O= folder per arch under
# build/cross/, log kept there. Appends to build/cross/cross.tsv: arch,
# tree, result, CPU seconds, missing-CRC messages in the log.
# usage: cross.sh [ARCH...]    (default: every line of lab/arches.tsv with a cross_config)
#   CROSS_ARM=ARM  build pristine + that arm's series (default keep)
#   CROSS_SRC=DIR CROSS_LABEL=NAME  build that tree instead (e.g. a
#   development worktree, or build/linux as "pristine")
set -eu
. "$(dirname "$0")/common.sh"

D=$B/cross
mkdir -p "$D"
out=$D/cross.tsv
[ -f "$out" ] || printf 'arch\ttree\tresult\tcpu_s\tmissing_crc\n' > "$out"

# one line per architecture: name, ARCH, CROSS_COMPILE, compiler package, options
all=$(table arches cross_config)
[ $# -gt 0 ] || set -- $all
lines=$(for a in "$@"; do
	case " $all " in *" $a "*) ;; *) die "no architecture '$a' with a cross_config in lab/arches.tsv (those: $all)" ;; esac
	(ARCH=$a; export ARCH; eval "$(table shell)" &&
	 printf '%s\t%s\t%s\t%s\t%s\n' "$ARCH_NAME" "$ARCH_KARCH" "$ARCH_CROSS" "$ARCH_CC_PKG" "$ARCH_CROSS_CONFIG") ||
		die "lab/arches.tsv: cannot read $a"
done)
# shellcheck disable=SC2046
sh "$TOP/lab/deps.sh" $(printf '%s\n' "$lines" | cut -f4 | sort -u)

rm -f "$D/.failed"
arm=${CROSS_ARM:-keep}
label=${CROSS_LABEL:-$arm}
if [ -n "${CROSS_SRC:-}" ]; then
	src=$CROSS_SRC
	[ -f "$src/Makefile" ] || die "CROSS_SRC=$src is not a kernel tree"
else
	src=$D/src-$arm
	sh "$TOP/lab/series-tree.sh" "$arm" "$src"
fi
# a tree the series removed the option from builds without it
modv=
grep -qx 'config MODVERSIONS' "$src/kernel/module/Kconfig" "$src/init/Kconfig" 2>/dev/null &&
	modv='CONFIG_MODVERSIONS=y'

printf '%s\n' "$lines" | while IFS="$(printf '\t')" read -r name arch cross pkg opts; do
	obj=$D/$name-$label log=$D/$name-$label.log frag=$D/$name-$label.config
	[ "$cross" != - ] || cross=	# the host's gcc (x86_32: ARCH=i386 -m32)
	step CROSS "$name ($label)"
	command -v "${cross}gcc" >/dev/null || die "${cross}gcc not found after installing $pkg"
	printf 'CONFIG_MODULES=y\n%s\n' "$modv" | grep . > "$frag"
	printf '%s\n' "$opts" | tr ',' '\n' >> "$frag"
	rm -rf "$obj" "$obj.json"; mkdir -p "$obj"   # from scratch: ccache keeps it quick
	km() { make -C "$src" O="$obj" ARCH="$arch" CROSS_COMPILE="$cross" "$@"; }
	result=fail
	if { km tinyconfig &&
	     "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$frag" &&
	     km olddefconfig; } >"$log" 2>&1; then
		if ! sh "$TOP/lab/config-check.sh" "$obj/.config" "$frag" 2>>"$log"; then
			result=config
		elif "$TOP/lab/cputime.py" "$obj.json" -- nice make -C "$src" O="$obj" \
			ARCH="$arch" CROSS_COMPILE="$cross" CC="ccache ${cross}gcc" \
			-j"$JOBS" >>"$log" 2>&1; then
			# the line's =m module must be there, not just vmlinux
			[ -n "$(find "$obj" -name '*.ko' | head -n1)" ] && result=pass || result=no-module
		fi
	fi
	cpu=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['cpu_s'])" "$obj.json" 2>/dev/null || echo -)
	# modpost's words for an export or import without a CRC, before and after keep 0004
	miss=$(grep -c -e 'has no CRC' -e 'version generation failed' "$log" || true)
	grep -v -P "^$name\t$label\t" "$out" > "$out.new" || true
	printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$label" "$result" "$cpu" "$miss" >> "$out.new"
	mv "$out.new" "$out"
	printf '  %-7s%s (%s): %s, %s CPU s, %s missing CRCs (log: %s)\n' CROSS "$name" "$label" "$result" "$cpu" "$miss" "$log"
	[ "$result" = pass ] || echo "$name" >> "$D/.failed"
done
if [ -f "$D/.failed" ]; then
	rm -f "$D/.failed"
	die "cross build failed (see $out)"
fi
