#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench: what each arm costs, measured side by side; writes
# build/report/bench.json (and bench.svg, the load-time plot). Phases:
#
#  lab    wall time of a warm `make compare` (run here, after the Makefile's
#         own compare), and the steps it spent it on (build/steps.tsv)
#  load   the generated provider/consumer modules (workload/bench/), then
#         one "bench" boot per arm (plan/bench.py: median finit_module
#         time per N, measured in the guest), ROUNDS rounds interleaved
#         over the arms (nomodv base keep remove nomodv ...); under TCG, qemu/boot.sh
#         boots every guest with tsc_early_khz=<host TSC kHz> (workload/bench/
#         tsc-khz.c): on a busy host the guest's own TSC calibration fails
#         and it would time in jiffies (4 ms steps at HZ=250)
#  build  RUNS clean `vmlinux modules` builds per arm, ccache off
#         (CCACHE_DISABLE=1, CC=gcc), the arm's G0 .config, interleaved over
#         the arms, each in a scratch O= (build/arms/ARM/bench-obj, removed
#         after; never obj/); CPU s = user+sys of all of make's children
#         (lab/cputime.py). In the same runs, the symversions steps alone:
#         genksyms and the preprocessor runs that feed it (-D__GENKSYMS__,
#         and the .S export pre-pass) run under workload/bench/acct.c, which
#         logs each one's rusage; the per-object "nm | grep -q __ksymtab"
#         check is timed by rerunning it on the same objects after the build;
#         gendwarfksyms (where the tree has it) is accounted the same way
#  tools  (with build) each arm whose config has no debug info is also
#         built with qemu/config/debuginfo.config (DWARF 5) in the same
#         rounds, as ARM+dwarf5: what genksyms and gendwarfksyms cost
#         against none, without and with the debug info distributions build
#
# --quick (make test's sanity run, documented in README/Makefile help):
#  no lab phase; load: 1 round of 3 repeats; build: the arm's full runs are
#  reused when their arm identity (series + config ids) still matches,
#  otherwise one run per arm WITH ccache (warm after the lab's own build, so
#  ~1 min, not ~3): its build CPU s is then marked "ccache-on" and is not a
#  cost, but genksyms/cpp/nm are still real (ccache does not cache -E).
#
# usage: bench.sh [--quick] [--only=lab,load,build,tools] [ARM...]
#        (default arms: those of nomodv base keep remove that are built)
# env:   BENCH_RUNS (3), BENCH_ROUNDS (3), BENCH_NS, BENCH_REPEAT,
#        BENCH_WAIT (s to wait for another kernel build to end, 1800)
set -eu
. "$(dirname "$0")/common.sh"

quick="" phases=lab,load,build,tools
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--only=*) phases=${1#--only=} ;;
	-*) die "usage: bench.sh [--quick] [--only=lab,load,build,tools] [ARM...]" ;;
	*) break ;;
	esac
	shift
done
has() { case ",$phases," in *",$1,"*) return 0 ;; esac; return 1; }
arms=${*:-}
if [ -z "$arms" ]; then
	for a in $(table arms); do
		[ -f "$ARMS_DIR/$a/kernels/G0/$IMAGE" ] && arms="$arms $a"
	done
fi
arms=$(echo $arms)
[ -n "$arms" ] || die "no arm is built (make compare first)"
for a in $arms; do
	[ -f "$ARMS_DIR/$a/kernels/G0/$IMAGE" ] || die "arm $a is not built (make $a)"
done
runs=${BENCH_RUNS:-3} rounds=${BENCH_ROUNDS:-3}
[ -n "$quick" ] && { rounds=1; export BENCH_QUICK=1; phases=$(echo "$phases" | sed 's/lab,\{0,1\}//; s/,\{0,1\}tools//'); }
BB=$B/bench
mkdir -p "$BB" "$B/report"
echo "${quick:+quick }arms: $arms" > "$BB/mode"

# wait_builds: one kernel build at a time on this machine
wait_builds() {
	_w=0
	while pgrep -f 'make.* O=' >/dev/null 2>&1; do
		[ "$_w" = 0 ] && printf '  %-7s%s\n' WAIT "another kernel build is running: $(pgrep -fa 'make.* O=' | head -n1 | cut -c1-80)"
		[ "$_w" -ge "${BENCH_WAIT:-1800}" ] && { echo "  WAIT   gave up after ${_w}s; measuring anyway (recorded)"; break; }
		sleep 10; _w=$((_w + 10))
	done
	waited=$_w
}

# --- lab: a warm make compare -------------------------------------------------
if has lab; then
	wait_builds
	step LAB "make compare (warm)"
	n0=$(wc -l < "$B/steps.tsv" 2>/dev/null || echo 0)
	t0=$(date +%s.%N)
	rc=0
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -C "$TOP" --no-print-directory compare ARMS="$arms" \
		>"$BB/compare-warm.log" 2>&1 || rc=$?
	wall=$(echo "$(date +%s.%N) - $t0" | bc)
	# the steps.tsv lines that run appended (before this step's own)
	tail -n +"$((n0 + 1))" "$B/steps.tsv" > "$BB/compare-warm.steps.tsv"
	printf '{"wall_s": %.2f, "rc": %d, "arms": "%s", "date": "%s"}\n' "$wall" "$rc" "$arms" \
		"$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$BB/compare-warm.json"
	done_step
fi

# --- load: bench modules, then ROUNDS interleaved bench boots -------------------
if has load; then
	for a in $arms; do
		sh "$TOP/workload/bench/build.sh" "$a"
		d=$BB/load/$a
		rm -rf "$d"; mkdir -p "$d"
		# the modules' sizes now: the next workload/build.sh empties mods/
		py lab.bench sizes "$a" > "$d/sizes.json"
	done
	r=1
	while [ "$r" -le "$rounds" ]; do
		for a in $arms; do
			step BOOT "$a bench, round $r/$rounds (${ACCEL:-tcg})"
			line=$(py plan.bench "$a") || die "planning bench of $a failed"
			set -- $line
			sh "$TOP/qemu/initramfs.sh" "$a" bench
			KERNEL=$2 TIMEOUT=$3 sh "$TOP/qemu/boot.sh" "$a" bench ||
				echo "modvlab: $a bench round $r did not finish (log: $ARMS_DIR/$a/boot/bench.log)" >&2
			for f in log json plan.json; do
				cp "$ARMS_DIR/$a/boot/bench.$f" "$BB/load/$a/r$r.$f"
			done
			done_step
		done
		r=$((r + 1))
	done
fi

# --- build: clean builds, interleaved ---------------------------------------------
acct=$BB/acct
if has build; then
	if [ ! -x "$acct" ] || [ "$TOP/workload/bench/acct.c" -nt "$acct" ]; then
		gcc -O2 -Wall -Wextra -Werror -o "$acct" "$TOP/workload/bench/acct.c" ||
			die "cannot build workload/bench/acct.c"
	fi
	# the arm's identity: what a run measured (reused by --quick while it matches)
	ident() { cat "$ARMS_DIR/$1/series.id" "$ARMS_DIR/$1/config.id" 2>/dev/null | tr '\n' - ; }
	# kbuild's own symversions tools, wrapped in acct: the tree's own
	# definition of make's genksyms / gendwarfksyms variable, prefixed
	# (empty when the tree has no such tool)
	wrapped() { # SRC NAME
		awk -v v="$2" '$1 == v && $2 == "=" {p=1} p{print} p&&!/\\$/{exit}' \
			"$1/scripts/Makefile.build" | tr '\\\t\n' '   ' | tr -s ' ' |
			sed "s|^ *$2 = \(.*[^ ]\) *\$|$acct $alog $2 \1|"
	}
	# one_run ARM N MODE: one clean build in a scratch O=, its JSON in runs/
	# one_run ARM N MODE [dwarf5]: dwarf5 = the arm's config plus
	# qemu/config/debuginfo.config (DWARF 5, as distributions build), its
	# runs under ARM+dwarf5
	one_run() {
		a=$1 n=$2 mode=$3 v=${4:-}
		A=$ARMS_DIR/$a src=$ARMS_DIR/$a/src s=$ARMS_DIR/$a/bench-obj
		name=$a${v:++$v}
		out=$BB/runs/$name/r$n.json log=$BB/runs/$name/r$n.log
		mkdir -p "$BB/runs/$name"
		cfg=$A/config.G0; [ -f "$cfg" ] || cfg=$A/obj/.config
		wait_builds
		[ -z "$(git -C "$src" status --porcelain)" ] || die "$a: $src is not clean (a generation build running?)"
		rm -rf "$s"; mkdir -p "$s"
		cp "$cfg" "$s/.config"
		if [ "$mode" = ccache ]; then cc=$KCC; unset CCACHE_DISABLE; else cc=${KCC#ccache }; export CCACHE_DISABLE=1; fi
		if [ -n "$v" ]; then
			dfrag=$(lab_fragments "$TOP/qemu/config/debuginfo.config" | tail -n 1)
			{ "$src/scripts/kconfig/merge_config.sh" -m -O "$s" "$s/.config" "$dfrag" &&
				make -C "$src" O="$s" $KARGS CC="$cc" olddefconfig; } >"$log" 2>&1 ||
				die "$name: config failed (log: $log)"
			"$TOP/lab/config-check.sh" "$s/.config" "$dfrag" >>"$log" 2>&1 ||
				die "$name: debug info options did not take (log: $log)"
		else
			make -C "$src" O="$s" $KARGS CC="$cc" olddefconfig >"$log" 2>&1 || die "$a: olddefconfig failed (log: $log)"
			cmp -s "$cfg" "$s/.config" || die "$a: the G0 .config does not survive olddefconfig (log: $log)"
		fi
		alog=$s/acct.log; : > "$alog"
		gk=$(wrapped "$src" genksyms) gdk=$(wrapped "$src" gendwarfksyms)
		touch "$s/.start"
		la0=$(cut -d' ' -f1 /proc/loadavg)
		step BUILD "$name bench run $n ($mode)"
		"$TOP/lab/cputime.py" "$s/cputime.json" -- nice make -C "$src" O="$s" $KARGS -j"$JOBS" \
			CC="$cc" CPP="$acct $alog cpp $cc -E" ${gk:+genksyms="$gk"} ${gdk:+gendwarfksyms="$gdk"} \
			vmlinux modules >>"$log" 2>&1 ||
			die "$a: bench build failed: $(grep -m1 -e 'error:' -e 'Error ' "$log") (log: $log)"
		la1=$(cut -d' ' -f1 /proc/loadavg)
		# the source must not have changed under the build
		changed=$(find "$src" -path "$src/.git" -prune -o -type f -newer "$s/.start" -print | head -n1)
		[ -z "$changed" ] || die "$a: $changed changed during the bench build; run discarded"
		# the per-object check of gen_symversions, rerun on the same objects
		: > "$s/nm-check.list"
		if grep -q '^CONFIG_MODVERSIONS=y' "$s/.config"; then
			asm=; grep -q '^CONFIG_ASM_MODVERSIONS=y' "$s/.config" && asm=S
			find "$s" -name '.*.o.cmd' ! -name '*.mod.o.cmd' -exec awk -v asm="$asm" '
				FNR == 1 { k = 0 }
				/^cmd_/ && /-D__KERNEL__/ { k = 1 }
				/^source_/ && k && ($NF ~ /[.]c$/ || (asm != "" && $NF ~ /[.]S$/)) {
					o = FILENAME; sub(/[.]cmd$/, "", o)
					i = match(o, /\/[.][^\/]*$/); print substr(o, 1, i) substr(o, i + 2)
				}' {} + > "$s/nm-check.list"
		fi
		"$TOP/lab/cputime.py" "$s/nm-check.json" -- sh -c \
			'while read -r o; do nm "$o" 2>/dev/null | grep -q __ksymtab || :; done < "$1"' sh "$s/nm-check.list"
		py lab.bench run "$name" "$n" "$mode" "$(ident "$a")" \
			"$s" "$waited" "$la0" "$la1" > "$out.tmp"
		mv "$out.tmp" "$out"
		rm -rf "$s"
		unset CCACHE_DISABLE
		done_step
	}
	if [ -n "$quick" ]; then
		for a in $arms; do
			if py lab.bench reusable "$a" "$(ident "$a")"; then
				echo "  BUILD  $a: reusing $(ls "$BB/runs/$a"/r*.json | wc -l) bench runs (same arm identity)"
			else
				rm -rf "$BB/runs/$a"
				one_run "$a" 1 ccache
			fi
		done
	else
		rm -rf "$BB/runs"
		# tools: each arm built without debug info also with DWARF 5, in
		# the same rounds (what a versioning tool costs where a
		# distribution builds debug info anyway)
		dwarf5=
		if has tools; then
			for a in $arms; do
				grep -q '^CONFIG_DEBUG_INFO=y' "$ARMS_DIR/$a/obj/.config" || dwarf5="$dwarf5 $a"
			done
		fi
		n=1
		while [ "$n" -le "$runs" ]; do
			for a in $arms; do one_run "$a" "$n" clean; done
			for a in $dwarf5; do one_run "$a" "$n" clean dwarf5; done
			n=$((n + 1))
		done
	fi
fi

# --- bench.json, bench.svg ----------------------------------------------------------
py lab.bench report ${quick:+--quick} $arms
