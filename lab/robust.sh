#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The robustness pass of `make robust`: for each arm, the corpus
# (workload/robust.tsv) on the arm's own kernel, then once more on a
# sanitizer build of the same tree (qemu/config/$VARIANT.config: KASAN, UBSAN)
# in an arm of its own, ARM-$VARIANT (build/arms/ARM-kasan/: its own worktree
# at the arm's commit, its own O=, its own modules and corpus). Then the
# verdict: a kernel bug report (Oops, BUG, WARNING, KASAN, UBSAN) other than
# the crashes workload/robust.tsv declares (the pristine loaders' bugs, shown as
# findings), a failed health check or an outcome other than declared fails
# the run, one line each.
# usage: robust.sh ARM...      env: VARIANT=kasan (empty: no sanitizer pass),
#                                   VARIANT_ARMS="keep remove" (only these),
#                                   ROBUST_INPUTS, ACCEL, TIMEOUT, JOBS
set -eu
. "$(dirname "$0")/common.sh"

[ $# -gt 0 ] || die "usage: robust.sh ARM..."
variant=${VARIANT-kasan}
# a sanitizer guest is slower and needs the shadow memory
san_timeout=${SAN_TIMEOUT:-$(table timeout long)} san_mem=${SAN_MEM:-1G}

# variant_build ARM: ARM-$variant's kernel and workload modules, incremental
variant_build() {
	arm=$1 name=$1-$variant
	A=$ARMS_DIR/$name src=$ARMS_DIR/$name/src obj=$ARMS_DIR/$name/obj logs=$ARMS_DIR/$name/logs
	asrc=$ARMS_DIR/$arm/src
	frag=$TOP/qemu/config/$variant.config
	[ -f "$frag" ] || die "no qemu/config/$variant.config for VARIANT=$variant"
	{ [ -f "$ARMS_DIR/$arm/series.id" ] && [ -d "$asrc" ]; } || die "arm $arm is not built (make $arm)"
	mkdir -p "$obj" "$logs"
	# the arm's G0 commit (its series + the probe); gens.sh only ever
	# changes the work tree, never HEAD
	commit=$(git -C "$asrc" rev-parse HEAD)
	if [ ! -e "$src/.git" ]; then
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$src" "$commit" >"$logs/worktree.log" 2>&1 ||
			die "cannot create worktree $src (log: $logs/worktree.log)"
	elif [ "$(git -C "$src" rev-parse HEAD)" != "$commit" ]; then
		git -C "$src" checkout -q --detach "$commit" && git -C "$src" clean -fdqx
	fi
	cp "$ARMS_DIR/$arm/series.id" "$A/series.id"
	armfrag=$TOP/qemu/config/$arm.config
	# shellcheck disable=SC2046
	sh "$TOP/lab/configure.sh" "$name" "$src" "$obj" "$A" $(lab_fragments "$armfrag" "$frag")
	step BUILD "$name"
	"$TOP/lab/cputime.py" "$A/build.json" -- nice make -C "$src" O="$obj" $KARGS -j"$JOBS" \
		CC="$KCC" "$IMAGE" modules >"$logs/build.log" 2>&1 ||
		die "build of $name failed: $(grep -m1 -e 'error:' -e 'Error ' "$logs/build.log") (log: $logs/build.log)"
	mkdir -p "$A/kernels/G0"
	cp "$obj/$ARCH_IMAGE" "$obj/Module.symvers" "$A/kernels/G0/"
	done_step
	sh "$TOP/workload/build.sh" "$name"
}

rc=0 arms=
for arm in "$@"; do
	arms="$arms --arm $arm"
	# a boot that did not finish is judged by python3 -m compare robust below: a
	# declared crash is a finding, anything else an unexpected outcome
	PLANS=robust sh "$TOP/lab/run.sh" "$arm" ||
		echo "modvlab: robust: $arm: some boots did not finish (judged below)" >&2
	[ -n "$variant" ] || continue
	# VARIANT_ARMS: the arms that get the sanitizer pass (default: all)
	case " ${VARIANT_ARMS:-$*} " in *" $arm "*) ;; *) continue ;; esac
	# one kernel build at a time on a shared machine: wait for the others
	said=
	while [ -z "${ROBUST_NO_WAIT:-}" ] && pgrep -f 'make.* O=' >/dev/null 2>&1; do
		[ -n "$said" ] || echo "modvlab: robust: waiting for other kernel builds to finish" >&2
		said=1
		sleep 20
	done
	variant_build "$arm"
	arms="$arms --arm $arm-$variant"
	PLANS=robust TIMEOUT=$san_timeout MEM=$san_mem GENS='' sh "$TOP/lab/run.sh" "$arm-$variant" ||
		echo "modvlab: robust: $arm-$variant: some boots did not finish (judged below)" >&2
done
# shellcheck disable=SC2086
py compare robust --build "$B" --json "$B/robust.json" $arms >"$B/robust.md" || rc=1
echo "modvlab: robust: wrote $B/robust.md" >&2
[ $rc = 0 ] || echo "modvlab: error: robust: kernel bug reports, failed health checks or undeclared outcomes (see above)" >&2
exit $rc
