#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Extract Debian's linux-source-6.1 once into build/linux as a git repo whose
# single commit (tag "pristine") is the untouched tree; arms are worktrees of it.
set -eu
. "$(dirname "$0")/common.sh"

TARBALL=${TARBALL:-/usr/src/linux-source-6.1.tar.xz}
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
	die "linux-source-6.1 is not installed (run: make deps)"
[ -r "$TARBALL" ] || die "$TARBALL is missing (reinstall linux-source-6.1)"

stamp=$B/linux.version
if [ -f "$stamp" ] && git -C "$TREE" rev-parse -q --verify pristine >/dev/null 2>&1; then
	have=$(cat "$stamp")
	[ "$have" = "$ver" ] && exit 0
	die "build/linux holds $have but linux-source-6.1 is $ver: run 'make clean-tree'"
fi

step TREE "extract linux-source-6.1 $ver"
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
	g commit -q -m "linux-source-6.1 $ver (Debian, pristine)"
	g tag pristine
} >"$B/logs/tree.log" 2>&1 || die "git import of the tree failed (log: $B/logs/tree.log)"
echo "$ver" > "$stamp"
done_step
