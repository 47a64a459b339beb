#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot one arm's kernel with one initramfs in QEMU and keep the console log.
# The machine is the architecture's line of lab/arches.tsv (ARCH=): QEMU
# binary, machine, CPU, console.
# The pessimistic status is written first, so a run that dies never looks
# finished; the host timeout is hard (SIGTERM, then SIGKILL).
# usage: boot.sh ARM BOOT      env: ACCEL=tcg|kvm  TIMEOUT=seconds  MEM=256M
#   QEMU_EXTRA="-qmp ... -incoming defer"  more QEMU options (words, no quoting)
#   SERIAL_IN=FIFO   the console's input (default none): fuzz/snapshot.py
set -eu
. "$(dirname "$0")/../lab/common.sh"

arm=${1:?usage: boot.sh ARM BOOT} boot=${2:?usage: boot.sh ARM BOOT}
A=$ARMS_DIR/$arm d=$ARMS_DIR/$arm/boot
accel=${ACCEL:-tcg} timeout=${TIMEOUT:-$(table timeout boot)} mem=${MEM:-256M}
kernel=${KERNEL:-$A/obj/$ARCH_IMAGE}
initrd=$d/$boot.cpio.gz
log=$d/$boot.log st=$d/$boot.json
[ -f "$kernel" ] || die "no kernel for $arm ($kernel)"
[ -f "$initrd" ] || die "no initramfs for $arm $boot ($initrd)"
bootable=$(table arches boot)
case " $bootable " in *" $ARCH_NAME "*) ;; *)
	die "ARCH=$ARCH_NAME cannot boot here: lab/arches.tsv has no QEMU machine for it (bootable: $bootable)" ;;
esac
qemu=${ARCH_QEMU%%:*}
command -v "$qemu" >/dev/null || die "$qemu missing (make deps: ${ARCH_QEMU#*:})"
append=${APPEND:-}
arch_append=$ARCH_APPEND
[ "$arch_append" != - ] || arch_append=
case $accel in
tcg)	cpu=$ARCH_CPU
	# x86: the guest's TSC is the host's under TCG, but its calibration
	# against the emulated PIT fails on a busy host and leaves it on
	# jiffies (4 ms steps): the table tells it the host's TSC rate
	extra=$ARCH_TCG_APPEND
	[ "$extra" != - ] || extra=
	case $extra in *"{tsc_khz}"*)
		case $append in *"${extra%%=*}="*) extra= ;; *)
			khz=$(sh "$TOP/qemu/tsc-khz.sh") || die "cannot measure the TSC rate"
			extra=$(printf '%s' "$extra" | sed "s/{tsc_khz}/$khz/") ;;
		esac ;;
	esac
	append="$append${extra:+ $extra}"
	;;
kvm) [ -w /dev/kvm ] || die "ACCEL=kvm but /dev/kvm is not usable"; cpu=host ;;
*) die "ACCEL must be tcg or kvm, not '$accel'" ;;
esac

# as many CPUs as the kernel can run: a uniprocessor kernel on a board
# that starts every CPU at the kernel's entry (QEMU's Malta) hangs
smp=2
[ ! -f "$A/obj/.config" ] || grep -q '^CONFIG_SMP=y' "$A/obj/.config" || smp=1
set -- "$qemu" -nodefaults -display none -no-reboot \
	-machine "$ARCH_MACHINE,accel=$accel" -cpu "$cpu" -smp "$smp" -m "$mem" \
	-serial stdio -kernel "$kernel" -initrd "$initrd" \
	-append "console=$ARCH_CONSOLE panic=-1 oops=panic loglevel=7${arch_append:+ $arch_append} $append"
# shellcheck disable=SC2086
[ -z "${QEMU_EXTRA:-}" ] || set -- "$@" $QEMU_EXTRA
serial_in=${SERIAL_IN:-/dev/null}
printf '{"status": "unfinished", "accel": "%s", "cmd": "%s"}\n' "$accel" "$*" > "$st"
echo "Running: \$ $*" > "$d/$boot.cmd"
t0=$(date +%s.%N)
rc=0
# timeout(1) puts QEMU in a process group of its own, out of reach of the
# terminal's Ctrl-C: on INT/TERM/HUP, stop that group here and say so, so no
# QEMU outlives the run. The trap is set before QEMU starts (a signal in
# between would kill this shell and leave QEMU running), and the group gets
# SIGKILL after a short grace: a TCG QEMU on a loaded host can take long to
# act on SIGTERM, and timeout -k only arms its SIGKILL on its own timeout.
tpid= cmd="$*"
interrupted() {
	trap - INT TERM HUP
	if [ -n "$tpid" ]; then
		kill -TERM "-$tpid" 2>/dev/null || :
		kill -TERM "$tpid" 2>/dev/null || :
		# the killer must not hold our stdout/stderr open
		( sleep "${KILL_GRACE:-2}"; kill -KILL "-$tpid" 2>/dev/null ) \
			</dev/null >/dev/null 2>&1 &
		kpid=$!
		wait "$tpid" 2>/dev/null || :
		kill "$kpid" 2>/dev/null || :
	fi
	printf '{"status": "interrupted", "accel": "%s", "timeout_s": %d, "cmd": "%s"}\n' \
		"$accel" "$timeout" "$cmd" > "$st"
	echo "modvlab: $arm $boot: interrupted (log: $log)" >&2
	exit 130
}
trap interrupted INT TERM HUP
timeout -k 5 "$timeout" "$@" <"$serial_in" >"$log" 2>&1 &
tpid=$!
# A guest that ran its whole plan ("# modvlab: end") and then cannot reset
# (a board without a reset driver: "Reboot failed -- System halted") says
# nothing more: after HALT_SILENCE seconds of silence it is stopped and the
# boot counts as finished ("halted"), not as a timeout.
rm -f "$d/$boot.halted"
(
	last=-1 still=0
	while sleep 1; do
		kill -0 "$tpid" 2>/dev/null || exit 0
		grep -aq '^# modvlab: end' "$log" 2>/dev/null || continue
		n=$(wc -c < "$log")
		if [ "$n" = "$last" ]; then still=$((still + 1)); else still=0 last=$n; fi
		[ "$still" -ge "${HALT_SILENCE:-10}" ] || continue
		: > "$d/$boot.halted"
		kill -TERM "$tpid" 2>/dev/null
		exit 0
	done
) </dev/null >/dev/null 2>&1 &
wpid=$!
wait "$tpid" || rc=$?
kill "$wpid" 2>/dev/null || :
trap - INT TERM HUP
wall=$(echo "$(date +%s.%N) - $t0" | bc)
case $rc in
0) status=exited ;;
124|137) status=timeout ;;
*) status=qemu-error ;;
esac
[ ! -f "$d/$boot.halted" ] || status=halted
printf '{"status": "%s", "rc": %d, "wall_s": %.2f, "accel": "%s", "timeout_s": %d, "cmd": "%s"}\n' \
	"$status" "$rc" "$wall" "$accel" "$timeout" "$*" > "$st"
case $status in exited|halted) ;; *)
	echo "modvlab: $arm $boot: $status (rc $rc, log: $log)" >&2; exit 1 ;;
esac
