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
frag=$(cat "$TOP/qemu/config/lab.config" | sha256sum | cut -c1-64)
cat > "$B/provenance.json" <<EOT
{
 "tree": "$(cat "$B/linux.version" 2>/dev/null)",
 "tree_source": "/usr/src/linux-source-6.1.tar.xz",
 "config_sha256": "$frag",
 "config_fragment": "qemu/config/lab.config",
 "arm_config_sha256": {$cfgs},
 "accel": "${ACCEL:-tcg}",
 "gcc": "$(first gcc --version)",
 "binutils": "$(first ld --version)",
 "qemu": "$(first qemu-system-x86_64 --version)",
 "busybox": "$(first dpkg-query -W -f='${Version}' busybox-static)",
 "host_kernel": "$(uname -r)",
 "modvlab_commit": "$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo none)",
 "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
}
EOT
