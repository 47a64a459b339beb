#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Extract the base's Debian kernel source (lab/bases.tsv: BASE=, package
# PACKAGE, /usr/src/PACKAGE.tar.xz) once into build/BASE/linux as a git repo
# whose single commit (tag "pristine") is the untouched tree; arms are
# worktrees of it.
set -eu
. "$(dirname "$0")/common.sh"

pkg=$BASE_PACKAGE
if [ "$BASE_APT" = host ]; then
	TARBALL=${TARBALL:-/usr/src/$pkg.tar.xz}
	ver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) ||
		die "$pkg is not installed (run: make deps BASE=$BASE_BASE)"
	[ -r "$TARBALL" ] || die "$TARBALL is missing (reinstall $pkg)"
else
	# a suite the host does not list: downloaded through the lab's private
	# apt configuration (lab/apt.sh) and unpacked under B, never installed
	debs=$B/debs
	mkdir -p "$debs"
	deb=$(ls -t "$debs/${pkg}_"*.deb 2>/dev/null | head -n 1)
	if [ -z "$deb" ]; then
		step APT "download $pkg from $BASE_SUITE"
		(cd "$debs" && sh "$TOP/lab/apt.sh" "$BASE_SUITE" download "$pkg") || exit 1
		done_step
		deb=$(ls -t "$debs/${pkg}_"*.deb | head -n 1)
	fi
	ver=$(dpkg-deb -f "$deb" Version) || die "$deb is not a Debian package"
	TARBALL=$B/pkg/usr/src/$pkg.tar.xz
	if [ ! -r "$TARBALL" ]; then
		rm -rf "$B/pkg"
		dpkg-deb -x "$deb" "$B/pkg" || die "cannot unpack $deb"
		[ -r "$TARBALL" ] || die "$deb has no usr/src/$pkg.tar.xz"
	fi
fi

stamp=$B/linux.version
if [ -f "$stamp" ] && git -C "$TREE" rev-parse -q --verify pristine >/dev/null 2>&1; then
	have=$(cat "$stamp")
	[ "$have" = "$ver" ] && exit 0
	die "$TREE holds $have but $pkg is $ver: run 'make clean-tree BASE=$BASE_BASE'"
fi

need_space 4 "extracting $pkg (the tree and its git import)"
step TREE "extract $pkg $ver"
rm -rf "$TREE" "$stamp"
mkdir -p "$TREE" "$B/logs"
tar -xf "$TARBALL" -C "$TREE" --strip-components=1 ||
	die "cannot extract $TARBALL"
[ -f "$TREE/Makefile" ] && [ -d "$TREE/kernel/module" ] ||
	die "$TARBALL does not look like a kernel tree"
g() { git -C "$TREE" -c user.name=modvlab -c user.email=modvlab@localhost \
	-c core.compression=1 "$@"; }
{
	g init -q -b debian
	g add -A -f   # Debian's top-level .gitignore ignores "/*"
	g commit -q -m "$pkg $ver (Debian, pristine)"
	g tag pristine
} >"$B/logs/tree.log" 2>&1 || die "git import of the tree failed (log: $B/logs/tree.log)"
echo "$ver" > "$stamp"
done_step
