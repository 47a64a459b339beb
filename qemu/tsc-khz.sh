#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the host's TSC rate in kHz (workload/bench/tsc-khz.c, 200 ms), for a
# TCG guest's tsc_early_khz=: qemu/boot.sh for each boot, fuzz/guest.py once
# per run. The helper is built in $B/guest, aside then renamed: boots run
# in parallel (make fuzz).
set -eu
. "$(dirname "$0")/../lab/common.sh"

tk=$B/guest/tsc-khz src=$TOP/workload/bench/tsc-khz.c
if [ ! -x "$tk" ] || [ "$src" -nt "$tk" ]; then
	mkdir -p "$B/guest"
	gcc -O2 -Wall -Wextra -Werror -o "$tk.$$" "$src" || die "cannot build $src"
	mv -f "$tk.$$" "$tk"
fi
exec "$tk"
