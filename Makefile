# SPDX-License-Identifier: GPL-2.0
# modvlab: keep or remove CONFIG_MODVERSIONS, measured on real builds and boots.
# Every recipe is a small script in lab/, qemu/, workload/ or compare/; this
# file only orders them. `make` alone prints help.

TOP    := $(CURDIR)
# the kernel base (lab/bases.tsv) and the architecture (lab/arches.tsv);
# empty: each table's first line. Each base builds in build/BASE/.
BASE   ?=
ARCH   ?=
# exported only when set: kbuild reads ARCH too (the lab passes the table's
# karch on every make of a tree), and an empty one would break it
ifneq ($(BASE),)
export BASE
endif
ifneq ($(ARCH),)
export ARCH
endif
# the tables, asked with this make's BASE and ARCH: GNU make 4.3's $(shell)
# does not see exported variables, so a command-line BASE=... would
# otherwise pick build/ of the default base
TABLES  = cd $(TOP) && BASE='$(BASE)' ARCH='$(ARCH)' python3 -m core.tables
ifeq ($(origin B),undefined)
B      := $(shell $(TABLES) build-dir)
endif
ifeq ($(B),)
$(error lab/bases.tsv or lab/arches.tsv: see above)
endif
ACCEL  ?= tcg
# seconds before a guest is killed; empty: qemu/boot.sh's default, from
# core/tables.py (the one place it is set)
TIMEOUT ?=
JOBS   ?= $(shell nproc)
# kernel generations to build and boot (workload/gens/gens.tsv); empty = all
GENS   ?=
# make test runs a reduced but real set (G0 always runs): the respin and a
# prototype change, the two every check reads (each generation costs every
# arm one to two incremental kernel builds: make compare runs the others)
TEST_GENS ?= G1 G2
# extra boots from plan/<name>.py: robust (the bad-module corpus),
# bench (load time vs imported symbols); make test runs both (bench quick)
PLANS  ?=
TEST_PLANS ?= bench robust
# make test's reduced corpus (workload/robust.tsv): one input per kind of
# check, the two forced boots, one pristine-kernel crash (fixed by both series)
TEST_ROBUST ?= versions-truncated versions-unterminated versions-crc-flip \
	vermagic-other-release vermagic-nonprint modinfo-unterminated \
	this-module-nobits-past-eof shoff-past-eof truncated-half empty-file \
	not-elf unprivileged-uid unprivileged-nocap forced-vermagic \
	layout-record-differs sections-share-bytes init-not-executable
# make fuzz: (seed, index) names each input; make test runs a short fixed-seed
# run (tests/e2e_fuzz.py: FUZZ_TEST_INPUTS per arm)
FUZZ_SEED ?= 1
FUZZ_INPUTS ?= 20000
# FUZZ_VALID=SET: seeds from make valid's SET modules, on its kernels (ARM-valid)
FUZZ_VALID ?=
# make valid: make test's module set (valid/SET.config)
TEST_VALID_SET ?= small
# make history: every Debian kernel line the archive serves and their uploads
# (history/lines.py: empty = all; "55 57" or newest:K: the base's line;
# LINE=newest:2, LINE=N,M, an ABI name: a line's uploads, one upload;
# LINE is a line's name, python3 -m history.lines list); MODULES=DIR adds
# your own out-of-tree module source. make test runs a reduced real history:
HISTORY ?=
MODULES ?=
TEST_HISTORY ?= newest:2
TEST_HISTORY_SAMPLE ?= sha3_generic gcm nls_cp850 dummy minix ext4
TEST_HISTORY_DKMS ?= vpoll-dkms
# and a user's package dropped in (MODULES=): one module needs the in-tree dm-mod
TEST_HISTORY_MODULES ?= $(TOP)/tests/data/oot-dm
export TOP B ACCEL TIMEOUT JOBS GENS PLANS ROBUST_INPUTS FUZZ_SEED FUZZ_INPUTS

ALL_ARMS := $(shell $(TABLES) arms)
# the arms whose string (release, ABI string) the distributor policies set
STRING_ARMS := $(shell $(TABLES) arms string)
# the arm whose tree the dwarf detector's debug-info build uses; the
# detectors make detect runs (comma-separated; empty: all of detect/)
DWARF_ARM ?= nomodv
DETECTORS ?=
# The arms that run on this base: a series arm once its series file exists,
# an arm that needs Kconfig options once the base's tree has them (make
# compare and make test extract the tree first, then decide). Evaluated once.
ifeq ($(origin ARMS),undefined)
ARMS := $(shell $(TABLES) arms ready)
endif
# the arm every other is measured against (arms.tsv's role)
REFERENCE_ARM := $(shell $(TABLES) arms reference)
# the arms whose series exists in this base (make bisect)
SERIES_ARMS := $(shell $(TABLES) arms series)

.DEFAULT_GOAL := help
.PHONY: help deps tree compare compare-run report bases test test-run unit bisect cross asm-audit bench robust \
	fuzz valid detect detect-dwarf history clean clean-tree test-loaded $(ALL_ARMS)

help:
	@echo 'modvlab: keep or remove CONFIG_MODVERSIONS, measured'
	@echo
	@echo 'Targets:'
	@echo '  compare      build every arm, boot each with the workload, write build/report/'
	@echo '  test         unit tests, then a real end-to-end run with assertions'
	@echo '  test-loaded  make test with a CPU hog beside it (lab/hog.sh)'
	@echo '  $(ALL_ARMS)'
	@echo '               build one arm (kernel + workload modules) and boot it'
	@echo '  report       re-render build/report/ from saved logs (no build, no boot)'
	@echo '  bases        the bases side by side from their reports: build/bases/ (no build, no boot)'
	@echo '  bisect       build after every patch of each series (build/bisect/*.tsv)'
	@echo '  cross        each series cross-built for lab/arches.tsv'"'"'s cross_config lines (build/cross/cross.tsv)'
	@echo '  bench        costs: clean builds (ccache off, interleaved), load time vs imports'
	@echo '               (QUICK=1: the sanity run); writes build/report/bench.json'
	@echo '  robust       the bad-module corpus on every arm and on a KASAN/UBSAN build'
	@echo '  detect       the ABI detectors on the built generations (build/detect/detectors.json)'
	@echo '  detect-dwarf the dwarf detector'"'"'s debug-info build of $(DWARF_ARM)-dwarf, then detect'
	@echo '  fuzz         the module fuzzer on every arm (and ARM-kasan where built):'
	@echo '               build/fuzz/fuzz.json, minimized findings in build/fuzz/findings/'
	@echo '  valid        every module of a large in-tree set (valid/$(VALID_SET).config) built'
	@echo '               and booted in the reference arm and each series arm: a series must'
	@echo '               load what pristine loads (build/valid/ARCH-SET/valid.json);'
	@echo '               VALID_CC=clang-19 builds it all with another compiler'
	@echo '  history      real updates: Debian uploads of the base, in-tree + DKMS modules, per policy'
	@echo '  unit         unit tests only (seconds; no kernel build)'
	@echo '  deps         check Debian packages; install the missing ones as root'
	@echo '  tree         extract the base'"'"'s Debian source into $(B)/linux (once)'
	@echo '  clean        remove the arms (objects, logs, report); keep the tree'
	@echo '  clean-tree   remove all of $(B) (this base'"'"'s build folder)'
	@echo
	@echo 'Variables:'
	@echo '  BASE=$(BASE)            kernel base (lab/bases.tsv; default: its first line)'
	@echo '  ARCH=$(ARCH)            architecture (lab/arches.tsv; default: its first line)'
	@echo '  ARMS=$(ARMS)   arms to run (default: pristine arms + arms with a series)'
	@echo '  ACCEL=$(ACCEL)         tcg (default) or kvm (opt-in; hangs on these hosts)'
	@echo '  TIMEOUT=$(TIMEOUT)            seconds before a guest is killed (default: core/tables.py)'
	@echo '  JOBS=$(JOBS)            parallel kbuild jobs'
	@echo '  GENS=$(GENS)             kernel generations to run (default: workload/gens/ but'
	@echo '                         those of cost full; all: every one)'
	@echo '  TEST_GENS=$(TEST_GENS)   the generations make test runs'
	@echo '  HISTORY=$(HISTORY)          lines/uploads for make history ("55 57", newest:2, LINE=newest:2, an ABI name; default every line)'
	@echo '  HIST_JOBS=N                  kernels make history boots at a time (default: the CPUs)'
	@echo '  MODULES=$(MODULES)          your own out-of-tree module source dir for make history and make valid'
	@echo '  TEST_HISTORY=$(TEST_HISTORY) the uploads make test runs'
	@echo '  PLANS=$(PLANS)            extra boots: robust, bench (make test: $(TEST_PLANS))'
	@echo '  FUZZ_SEED=$(FUZZ_SEED) FUZZ_INPUTS=$(FUZZ_INPUTS)'
	@echo '               make fuzz: the seed, and the inputs per arm'
	@echo '  B=$(B)'
	@echo '               build folder (build/BASE); ccache lives in ~/.cache/modvlab'

deps:
	@sh lab/deps.sh

tree: deps
	@sh lab/tree.sh

# build-ARM: kernel (O= per arm, incremental), workload modules, then the
# kernel generations and their probe users
build-%: tree
	@sh lab/arm.sh $*
	@sh workload/build.sh $*
	@sh lab/gens.sh $*
	@$(if $(filter bench,$(PLANS)),sh workload/bench/build.sh $*,:)

$(ALL_ARMS): %: build-%
	@python3 -m lab.sizes $*
	@sh lab/run.sh $*

# All arms are built before any boots, so cross-arm cases find their modules.
# A failed boot does not stop the others; the report is written, then the
# run fails with the reason. lab/timed.sh records the wall time
# (build/lab-times.tsv: the Costs section's "the lab itself").
compare: tree
	@sh lab/timed.sh compare $(MAKE) --no-print-directory compare-run

compare-run: $(addprefix build-,$(ARMS))
	@for a in $(ARMS); do python3 -m lab.sizes $$a || exit 1; done
	@sh lab/provenance.sh $(ARMS)
	@rc=0; for a in $(ARMS); do sh lab/run.sh $$a; r=$$?; [ $$r = 0 ] || [ $$r = 3 ] || rc=1; done; \
	python3 -m compare report --build "$(B)" --arms "$(shell echo $(ARMS) | tr ' ' ,)" || rc=1; \
	python3 -m compare robust --build "$(B)" --unfinished $(foreach a,$(ARMS),--arm $(a)) \
		>/dev/null || rc=1; \
	[ $$rc = 0 ] || echo 'modvlab: error: a run failed, or boots did not finish other than as declared (see above)' >&2; \
	exit $$rc

# The ABI detectors (detect/) on the generations built: the crc ones read
# base's Module.symvers, the dwarf ones the debug-info build of
# detect-dwarf when it exists. The string policies (policies.tsv) read the
# result, so it runs after base's generations and before the string arms
# build theirs.
detect: $(if $(filter $(REFERENCE_ARM),$(ARMS)),build-$(REFERENCE_ARM))
	@python3 -m detect.run $(if $(DETECTORS),--only $(DETECTORS))

$(addprefix build-,$(filter $(STRING_ARMS),$(ARMS))): detect

# Heavy (not in make test): a second, never-booted build of $(DWARF_ARM) with
# DWARF (~400-600 CPU s clean, seconds per generation), abidiff ~35 CPU s
# and 0.7 GB per generation and mode.
detect-dwarf: tree
	@sh lab/deps.sh abigail-tools
	@sh detect/build.sh $(DWARF_ARM)
	@$(MAKE) --no-print-directory detect

# The bases side by side, from each base's own report (make compare BASE=...):
# build/bases/bases.{json,md,html}; no build, no boot
bases:
	@python3 -m compare bases --top "$(TOP)"

# The arms of the report there is (make valid and make fuzz re-render it with
# their sections, whatever ARMS they ran with)
REPORT_ARMS = $(shell python3 -c 'import json, sys; print(" ".join(json.load(open(sys.argv[1]))["arms"]))' \
	"$(B)/report/report.json" 2>/dev/null)

report:
	@python3 -m compare report --build "$(B)" --arms "$(shell echo $(ARMS) | tr ' ' ,)"

# Every patch of every series builds on its own (minutes per patch).
bisect: tree
	@for a in $(SERIES_ARMS); do sh lab/bisect.sh $$a || exit 1; done

# Heavy (not in make test): each series (keep with MODVERSIONS) cross-built
# for the architectures of lab/arches.tsv with a cross_config
# (build/cross/cross.tsv); installs their cross compilers. CROSS_ARM=ARM
# one series; CROSS_SRC=DIR CROSS_LABEL=NAME builds another tree.
# Heavy (not in make test, which runs VALID_SET=small): the reference arm
# and each series arm built with valid/$(VALID_SET).config's modules, every
# module loaded (dependencies first) and unloaded in one guest per arm
# (lab/valid.sh, valid/boot.py); ARCH= picks the architecture, VALID_CC=
# another compiler for kernels and modules (clang-19, gcc-11: ARCH-SET-CC).
# Modules from elsewhere too: the -dkms packages of the base's suite
# (VALID_DKMS=FILE, default history/dkms.tsv) and MODULES=DIR, built with M=.
VALID_SET ?= full
valid: tree
	@rc=0; MODULES="$(MODULES)" sh lab/valid.sh $(VALID_SET) $(REFERENCE_ARM) $(SERIES_ARMS) || rc=$$?; \
	[ ! -f "$(B)/report/report.json" ] || $(MAKE) --no-print-directory report ARMS="$(REPORT_ARMS)" || rc=1; \
	exit $$rc

cross: $(if $(CROSS_SRC),,tree)
	@$(if $(CROSS_SRC),sh lab/cross.sh $(CROSS_ARCHES),for a in $(or $(CROSS_ARM),$(SERIES_ARMS)); do CROSS_ARM=$$a sh lab/cross.sh $(CROSS_ARCHES) || exit 1; done)

# .S exports without a prototype genksyms sees, per architecture variant:
# the pristine tree (what the keep series must fix), then the tree with the keep
# series applied (keep 0004 makes each a build error there; exit 1 if any),
# or only AUDIT_TREE=dir
asm-audit: tree
ifeq ($(AUDIT_TREE),)
	@python3 -m lab.asm_audit "$(B)/linux" || true
	@sh lab/series-tree.sh keep "$(B)/audit/src"
	@python3 -m lab.asm_audit "$(B)/audit/src"
else
	@python3 -m lab.asm_audit "$(AUDIT_TREE)"
endif

unit:
	@python3 tests/run.py

# Unit tests plus a real end-to-end run. Old results are removed first, so a
# build that fails can never be judged by a previous run's report.
test:
	@sh lab/timed.sh test $(MAKE) --no-print-directory test-run

test-run: tree
	@rm -rf "$(B)/report" $(foreach a,$(ARMS),"$(B)/arms/$(a)/boot" "$(B)/arms/$(a)"-*/boot)
	@OUT="$(B)/history" HISTORY="$(TEST_HISTORY)" SAMPLE_ONLY="$(TEST_HISTORY_SAMPLE)" \
		DKMS_ONLY="$(TEST_HISTORY_DKMS)" MODULES="$(TEST_HISTORY_MODULES)" \
		sh history/run.sh || true
	@$(MAKE) --no-print-directory compare-run GENS="$(TEST_GENS)" PLANS="$(TEST_PLANS)" \
		ROBUST_INPUTS="$(TEST_ROBUST)" BENCH_QUICK=1 || true
	@rm -rf "$(B)/valid/"*-$(TEST_VALID_SET)/valid.json "$(B)/valid/"*-$(TEST_VALID_SET)/arms/*/boot
	@$(MAKE) --no-print-directory valid VALID_SET=$(TEST_VALID_SET) || true
	@# the trees of the other bases with a series (tests/e2e_bases.py)
	@for b in $$($(TABLES) series-bases); do \
		env -u B $(MAKE) --no-print-directory tree BASE=$$b || true; done
	@TEST_VALID_SET=$(TEST_VALID_SET) python3 tests/run.py --e2e

# make test on a busy machine: the same run with lab/hog.sh (a nice'd kernel
# build on every core, in its own process group) beside it, killed after.
test-loaded:
	@setsid sh lab/hog.sh & hog=$$!; \
	trap 'kill -- -$$hog 2>/dev/null' EXIT INT TERM; \
	$(MAKE) --no-print-directory test

# Real updates: Debian's own kernel uploads and -dkms modules (heavy: one
# boot per kernel and batch; downloads cached in build/history).
history:
	@OUT_BASE="$(B)/history" HISTORY="$(HISTORY)" MODULES="$(MODULES)" sh history/lines.sh

bench: compare
	@sh lab/bench.sh $(if $(QUICK),--quick)

robust: $(addprefix build-,$(ARMS))
	@VARIANT=kasan sh lab/robust.sh $(ARMS)

# The structured module fuzzer (fuzz/run.py): every arm's G0 kernel with its
# good modules as seeds, thousands of inputs per boot; re-renders the report
# when there is one (its Fuzzing section).
fuzz: $(addprefix build-,$(ARMS))
	@python3 -m fuzz.run --seed "$(FUZZ_SEED)" --inputs "$(FUZZ_INPUTS)" --arms "$(ARMS)" \
		$(if $(FUZZ_VALID),--valid "$(FUZZ_VALID)")
	@[ ! -f "$(B)/report/report.json" ] || $(MAKE) --no-print-directory report ARMS="$(REPORT_ARMS)"

clean:
	rm -rf "$(B)/arms" "$(B)/report" "$(B)/guest" "$(B)/steps.tsv"
	-git -C "$(B)/linux" worktree prune 2>/dev/null

clean-tree:
	rm -rf "$(B)"
