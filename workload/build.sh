#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build the workload modules against one arm's kernel (M= builds):
#   main/   every module of modules/Kbuild, in one M= run
#   apart/  mod-consumer alone, against main's Module.symvers, as an
#           out-of-tree consumer built separately from its provider would be
# usage: build.sh ARM
set -eu
. "$(dirname "$0")/../lab/common.sh"

arm=${1:?usage: build.sh ARM}
A=$ARMS_DIR/$arm obj=$ARMS_DIR/$arm/obj
[ -f "$obj/Module.symvers" ] || die "arm $arm is not built (no $obj/Module.symvers)"
out=$A/mods
mkdir -p "$out/main" "$out/apart" "$A/logs"
mods=$TOP/workload/modules

kmake() { # DIR [make args]: one M= build, logged
	d=$1; shift
	make -C "$obj" M="$d" CC="ccache gcc" "$@" modules >>"$A/logs/modules.log" 2>&1 ||
		die "module build in $d failed: $(grep -m1 -e 'error' "$A/logs/modules.log") (log: $A/logs/modules.log)"
}

step MODS "$arm"
: > "$A/logs/modules.log"
cp -p "$mods"/* "$out/main/"
kmake "$out/main"
cp -p "$mods/mod-consumer.c" "$mods/modvlab.h" "$mods/mod-provider.h" "$out/apart/"
printf '# SPDX-License-Identifier: GPL-2.0\nobj-m += mod-consumer.o\n' > "$out/apart/Kbuild"
kmake "$out/apart" KBUILD_EXTRA_SYMBOLS="$out/main/Module.symvers"
done_step
