#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Configure one kernel build: tinyconfig, then the fragments merged in order
# (scripts/kconfig/merge_config.sh), then olddefconfig; fail if an option
# did not take. Skipped while DIR/config.id matches the fragments and the
# tree (DIR/series.id). Used by an arm (lab/arm.sh) and by its variants
# (the sanitizer builds of lab/robust.sh, detect/build.sh's debug build).
# usage: configure.sh NAME SRC OBJ DIR FRAGMENT...     (logs: DIR/logs/config.log)
set -eu
. "$(dirname "$0")/common.sh"

[ $# -ge 5 ] || die "usage: configure.sh NAME SRC OBJ DIR FRAGMENT..."
name=$1 src=$2 obj=$3 dir=$4
shift 4
config_id=$(cat "$@" "$dir/series.id" | sha256sum | cut -c1-16)
[ "$(cat "$dir/config.id" 2>/dev/null)" = "$config_id" ] && [ -f "$obj/.config" ] && exit 0
step CONFIG "$name"
mkdir -p "$dir/logs" "$obj"
{
	make -C "$src" O="$obj" $KARGS tinyconfig &&
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$@" &&
	make -C "$src" O="$obj" $KARGS olddefconfig
} >"$dir/logs/config.log" 2>&1 || die "config of $name failed (log: $dir/logs/config.log)"
"$TOP/lab/config-check.sh" "$obj/.config" "$@" ||
	die "config of $name: requested options did not take (see above)"
echo "$config_id" > "$dir/config.id"
done_step
