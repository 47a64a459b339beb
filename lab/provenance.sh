#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Record what this run was made of: tree, configs, toolchain, QEMU, accel.
# usage: provenance.sh ARM...   (writes build/provenance.json)
set -eu
. "$(dirname "$0")/common.sh"

first() { "$@" 2>/dev/null | head -n1 | sed 's/"/\\"/g'; }
cfgs=
for arm in "$@"; do
	c=$ARMS_DIR/$arm/obj/.config
	[ -f "$c" ] || continue
	cfgs="$cfgs${cfgs:+, }\"$arm\": \"$(sha256sum < "$c" | cut -c1-64)\""
done
frags=$(lab_fragments)
# shellcheck disable=SC2086
frag=$(cat $frags | sha256sum | cut -c1-64)
cat > "$B/provenance.json" <<EOT
{
 "tree": "$(cat "$B/linux.version" 2>/dev/null)",
 "tree_source": "/usr/src/$BASE_PACKAGE.tar.xz",
 "base": "$BASE_BASE",
 "package": "$BASE_PACKAGE",
 "arch": "$ARCH_NAME",
 "config_sha256": "$frag",
 "config_fragment": "$(echo $frags | sed "s|$TOP/||g")",
 "arm_config_sha256": {$cfgs},
 "arms_skipped": $(table arms skipped --json),
 "accel": "${ACCEL:-tcg}",
 "gcc": "$(first gcc --version)",
 "binutils": "$(first ld --version)",
 "qemu": "$(first "${ARCH_QEMU%%:*}" --version)",
 "busybox": "$(first dpkg-query -W -f='${Version}' busybox-static)",
 "host_kernel": "$(uname -r)",
 "modvlab_commit": "$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo none)",
 "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
}
EOT
