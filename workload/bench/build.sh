#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Generate and build the load-cost benchmark modules against one arm's G0
# kernel: for each N, a provider exporting N functions and a consumer
# importing all N (workload/bench/gen.py), both in one M= run into
# build/arms/ARM/mods/bench/N/, and where the consumer has __versions a
# copy with them unsorted in N/unsorted/ (gen.py unsort). Run it after
# workload/build.sh (which empties mods/) and only while obj/ is at G0
# (checked).
# usage: build.sh ARM        env: BENCH_NS="16 256 1024 4096"
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/lab/common.sh"

arm=${1:?usage: workload/bench/build.sh ARM}
A=$ARMS_DIR/$arm obj=$ARMS_DIR/$arm/obj
ns=${BENCH_NS:-16 256 1024 4096}
[ -f "$obj/Module.symvers" ] || die "arm $arm is not built (no $obj/Module.symvers)"
[ -f "$A/kernels/G0/Module.symvers" ] || die "arm $arm has no G0 kernel (make $arm)"
# G0, not a generation that lab/gens.sh is building in place right now
cmp -s "$obj/Module.symvers" "$A/kernels/G0/Module.symvers" &&
	{ [ ! -f "$A/config.G0" ] || cmp -s "$obj/.config" "$A/config.G0"; } &&
	[ -z "$(git -C "$A/src" status --porcelain --untracked-files=no 2>/dev/null)" ] ||
	die "$arm: obj/ is not at G0 (a generation build running?); try again after it"
out=$A/mods/bench log=$A/logs/bench-modules.log
mkdir -p "$out" "$A/logs"
: > "$log"
step BENCH "$arm: modules, N = $ns"
for n in $ns; do
	d=$out/$n
	python3 "$TOP/workload/bench/gen.py" "$n" "$d"
	echo "== bench $n: make M=$d" >>"$log"
	make -C "$obj" M="$d" $KARGS -j"$JOBS" CC="$KCC" modules >>"$log" 2>&1 ||
		die "bench modules N=$n of $arm failed to build: $(grep -m1 -e error -e ERROR "$log") (log: $log)"
	for m in provider consumer; do
		[ -f "$d/bench_${m}_$n.ko" ] || die "bench N=$n of $arm: no bench_${m}_$n.ko (log: $log)"
	done
	# the same consumer with its __versions unsorted (same file name, so the
	# loader unloads it by name): keep's loader then scans linearly
	rm -rf "$d/unsorted"
	if readelf -SW "$d/bench_consumer_$n.ko" | grep -q ' __versions '; then
		python3 "$TOP/workload/bench/gen.py" unsort "$d/bench_consumer_$n.ko" \
			"$d/unsorted/bench_consumer_$n.ko"
	fi
done
done_step
