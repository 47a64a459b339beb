#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A CPU hog for `make test-loaded`: what a busy CI machine does beside the
# tests. A nice'd kernel build of the pristine tree in its own O= folder, no
# ccache (so it really compiles), cleaned and started again until killed; a
# busy loop per core if there is no tree yet. Its log: $B/hog/build.log.
# usage: setsid hog.sh     (runs until its process group is killed, as
#                           make test-loaded does)
set -eu
. "$(dirname "$0")/common.sh"

obj=$B/hog
mkdir -p "$obj"
if [ -f "$TREE/Makefile" ]; then
	while :; do
		nice -n 10 make -C "$TREE" O="$obj" $KARGS defconfig >"$obj/build.log" 2>&1
		nice -n 10 make -C "$TREE" O="$obj" $KARGS -j"$JOBS" CC="${KCC#ccache }" vmlinux >>"$obj/build.log" 2>&1 || :
		make -C "$TREE" O="$obj" $KARGS clean >/dev/null 2>&1 || :
	done
else
	for _ in $(seq "$JOBS"); do nice -n 10 sh -c 'while :; do :; done' & done
	wait
fi
