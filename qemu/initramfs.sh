#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build one boot's initramfs without root, with the tree's usr/gen_init_cpio:
# base layout, busybox, the loader, the modules, the plan. Pinned timestamps.
# usage: initramfs.sh ARM BOOT   (after python3 -m plan ARM)
#        env INIT=script replaces guest/init (the runner-fault tests)
set -eu
. "$(dirname "$0")/../lab/common.sh"

arm=${1:?usage: initramfs.sh ARM BOOT} boot=${2:?usage: initramfs.sh ARM BOOT}
A=$ARMS_DIR/$arm
d=$A/boot
cpio=$A/obj/usr/gen_init_cpio
# another architecture's guest has no busybox: the loader is its /init
# (guest/modvlab-load.c as pid 1), cross-built with the table's compiler
cc=gcc loader=$B/guest/modvlab-load busybox=${BUSYBOX:-/bin/busybox}
if [ "$ARCH_CROSS" != - ]; then
	cc=${ARCH_CROSS}gcc loader=$B/guest/modvlab-load.$ARCH_NAME busybox=${BUSYBOX:-}
	[ -z "${INIT:-}" ] || [ -n "$busybox" ] ||
		die "INIT=$INIT needs a shell: no busybox for $ARCH_NAME (BUSYBOX=FILE)"
fi
[ -z "$busybox" ] || [ -x "$busybox" ] || die "$busybox missing (install busybox-static)"
[ -f "$d/$boot.plan" ] || die "no plan for $arm $boot (run python3 -m plan ARM)"

# the loader: static, so the initramfs needs no libc
mkdir -p "$B/guest"
if [ ! -x "$loader" ] || [ "$TOP/guest/modvlab-load.c" -nt "$loader" ]; then
	# built aside and renamed: boots running at once never see half a file
	"$cc" -static -O2 -Wall -Wextra -Werror -o "$loader.$$" "$TOP/guest/modvlab-load.c" &&
		mv -f "$loader.$$" "$loader" ||
		die "cannot build the guest loader with $cc (need its static libc: libc6-dev, or libc6-dev-$ARCH_DEBIAN-cross)"
fi
[ -x "$cpio" ] || make -C "$A/src" O="$A/obj" $KARGS usr/gen_init_cpio >/dev/null ||
	die "cannot build usr/gen_init_cpio for $arm"

list=$d/$boot.cpio-list
{
	# base layout
	for dir in /dev /proc /sys /bin /m; do echo "dir $dir 0755 0 0"; done
	echo "nod /dev/console 0600 0 0 c 5 1"
	# busybox and the init script, or the loader as /init
	if [ -n "$busybox" ]; then
		echo "file /bin/busybox $busybox 0755 0 0"
		echo "slink /bin/sh busybox 0777 0 0"
		echo "file /init ${INIT:-$TOP/guest/init} 0755 0 0"
	else
		echo "slink /init /bin/modvlab-load 0777 0 0"
	fi
	# the loader and its plan
	echo "file /bin/modvlab-load $loader 0755 0 0"
	echo "file /plan $d/$boot.plan 0644 0 0"
	# the modules: /m/<built_by>/<set>/<name>.ko
	cut -f1 "$d/$boot.files" | xargs -r -n1 dirname | sort -u |
	while read -r g; do
		p=
		for part in $(echo "${g#/m/}" | tr / ' '); do
			p=$p/$part; echo "dir /m$p 0755 0 0"
		done
	done | awk '!seen[$0]++'
	while IFS='	' read -r g h; do echo "file $g $h 0644 0 0"; done < "$d/$boot.files"
} > "$list"
"$cpio" -t 0 "$list" | gzip -n -9 > "$d/$boot.cpio.gz.tmp" ||
	die "gen_init_cpio failed for $arm $boot"
mv "$d/$boot.cpio.gz.tmp" "$d/$boot.cpio.gz"
