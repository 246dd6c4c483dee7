# a2atune — build, run and test.
#   make            build liba2a and a2atune against Open MPI (build/openmpi/)
#   make MPI=mpich  the same against MPICH (build/mpich/)
#   make MPICC=WRAPPER [MPIRUN=LAUNCHER] [BUILD=DIR]
#                   the same with any MPI's compiler wrapper (build/WRAPPER/ by default)
#   make install PREFIX=DIR   bin, lib, include, share (sweeps, platforms, docs, the Python
#                   tools), pkg-config and module files under DIR; make uninstall removes them
#   make run        install what is missing (Debian), build, run sweeps/quick.ini on 4 ranks,
#                   then write its summary, heatmaps and curves into results/figures/
#                   (LAUNCHES=N: in N launches, whose spread the tools take as the noise)
#   make test       install what is missing (Debian), build both MPI flavours, run every test
#   make setup      only install the Debian packages that are missing
#   make simulate SWEEP=... PLATFORM=platforms/dragonfly.xml DB=results/sim.db
#                   the sweep on a simulated cluster (SimGrid SMPI, build/simgrid/)
# Required: MPI, a C11 compiler, SQLite, jansson. Optional, found by pkg-config (or given as
# PAPI_CFLAGS/PAPI_LIBS, FFTW_CFLAGS/FFTW_LIBS, HWLOC_CFLAGS/HWLOC_LIBS), left out with
# PAPI=no, FFTW=no, HWLOC=no even where installed: PAPI (hardware counters), FFTW 3 (`a2atune
# app fft`), hwloc (cache sizes; sysconf's without it). docs/install.md.

NP       ?= 4
SWEEP    ?= sweeps/quick.ini
DB       ?= results/a2a.db
FIGURES  ?= results/figures
LAUNCHES ?= 1
PREFIX   ?= /usr/local
# the version, declared once (VERSION; spack/packages/a2atune/package.py follows it)
VERSION  := $(shell cat VERSION)
# the revision, with -dirty when a file the programs are built from differs from it (an
# uncommitted edit of docs/, tests/ or data made while the data is simulated does not)
GIT_SOURCES := Makefile VERSION include kernels harness workloads apps preload model bench
GIT_REV  := $(shell r=$$(git describe --always 2>/dev/null) && { git diff --quiet HEAD -- $(GIT_SOURCES) 2>/dev/null || r=$$r-dirty; echo $$r; } || echo unknown)
SANITIZE ?=

# goals that compile nothing ask neither the MPI wrapper nor pkg-config anything
PROBE    := $(if $(MAKECMDGOALS),$(filter-out help clean setup uninstall,$(MAKECMDGOALS)),all)

# The MPI: MPICC=WRAPPER (or CC=WRAPPER) on the command line, else MPI=openmpi|mpich|simgrid
# (Debian's mpicc.openmpi, mpicc.mpich, smpicc), else an MPICC from the environment (an MPI
# module's), else Open MPI. A wrapper of one's own builds into build/WRAPPER/.
ifeq ($(origin MPICC),command line)
MPICC_GIVEN := 1
else ifeq ($(origin CC),command line)
MPICC    := $(CC)
MPICC_GIVEN := 1
else ifeq ($(origin MPICC)-$(origin MPI),environment-undefined)
MPICC_GIVEN := 1
endif
ifdef MPICC_GIVEN
MPIRUN   ?= mpirun
BUILD    := build/$(notdir $(firstword $(MPICC)))
else
MPI      ?= openmpi
MPICC    := $(if $(filter simgrid,$(MPI)),smpicc,mpicc.$(MPI))
MPIRUN   ?= $(if $(filter simgrid,$(MPI)),smpirun,mpirun.$(MPI))
BUILD    := build/$(MPI)
endif
CC       := $(MPICC)
# the MPI library's family from its own <mpi.h> (not the wrapper's name): openmpi, mpich
# (MPICH and what derives from it), simgrid (SMPI) or other; and the compiler behind it
MPI_MACROS  := $(if $(PROBE),$(shell printf '\043include <mpi.h>\n' | $(MPICC) -E -dM -x c - 2>/dev/null | \
                 sed -n 's/^.define \(OPEN_MPI\|MPICH_VERSION\|SMPI_H\|__clang__\|__GNUC__\) .*/\1/p'))
MPI_FLAVOUR := $(if $(filter SMPI_H,$(MPI_MACROS)),simgrid,$(if $(filter OPEN_MPI,$(MPI_MACROS)),openmpi,$(if $(filter MPICH_VERSION,$(MPI_MACROS)),mpich,other)))
CC_FAMILY   := $(if $(filter __clang__,$(MPI_MACROS)),clang,$(if $(filter __GNUC__,$(MPI_MACROS)),gcc,other))

# Warnings are errors in the project's own builds (make test, make tests, CI; WERROR=1),
# not in a user's make, whose compiler may warn of what ours does not
ifneq ($(filter test tests,$(MAKECMDGOALS)),)
WERROR   ?= 1
endif
WERROR   ?=
WARNINGS := -Wall -Wextra$(if $(filter 1 yes,$(WERROR)), -Werror)
# gcc 12 takes MPICH's MPI_STATUSES_IGNORE ((MPI_Status *)1) for a zero-size array
ifeq ($(MPI_FLAVOUR)-$(CC_FAMILY),mpich-gcc)
WARNINGS += -Wno-stringop-overflow
endif

# Libraries. required_dep VAR,PKG,LIB: VAR_CFLAGS and VAR_LIBS as given, else pkg-config's,
# else -lLIB. optional_dep VAR,PKG: HAVE_VAR is 1 with VAR_CFLAGS/VAR_LIBS as given or from
# pkg-config, 0 when VAR=no or PKG is not found (VAR=yes: then an error)
define required_dep
ifeq ($$(origin $(1)_LIBS),undefined)
$(1)_CFLAGS := $$(if $$(PROBE),$$(shell pkg-config --cflags $(2) 2>/dev/null))
$(1)_LIBS   := $$(or $$(if $$(PROBE),$$(shell pkg-config --libs $(2) 2>/dev/null)),-l$(3))
endif
endef
define optional_dep
ifeq ($$($(1)),no)
HAVE_$(1) := 0
else ifneq ($$(origin $(1)_LIBS),undefined)
HAVE_$(1) := 1
else ifneq ($$(and $$(PROBE),$$(shell pkg-config --exists $(2) 2>/dev/null && echo found)),)
HAVE_$(1)   := 1
$(1)_CFLAGS := $$(shell pkg-config --cflags $(2) 2>/dev/null)
$(1)_LIBS   := $$(shell pkg-config --libs $(2) 2>/dev/null)
else
HAVE_$(1) := 0
ifeq ($$($(1))$$(if $$(PROBE),probed),yesprobed)
$$(error $(1)=yes, but pkg-config finds no $(2): give $(1)_CFLAGS and $(1)_LIBS, or $(1)=no)
endif
endif
endef
$(eval $(call required_dep,SQLITE3,sqlite3,sqlite3))
$(eval $(call required_dep,JANSSON,jansson,jansson))
$(eval $(call optional_dep,PAPI,papi))
$(eval $(call optional_dep,FFTW,fftw3))
$(eval $(call optional_dep,HWLOC,hwloc))
OPTIONAL := PAPI FFTW HWLOC
# what a2atune's link says of each optional library it goes without (one line each)
NOTE_PAPI  := counters: PAPI $(if $(filter no,$(PAPI)),off (PAPI=no),not found), software counters only
NOTE_FFTW  := apps: FFTW 3 $(if $(filter no,$(FFTW)),off (FFTW=no),not found), no a2atune app fft
NOTE_HWLOC := provenance: hwloc $(if $(filter no,$(HWLOC)),off (HWLOC=no),not found), cache sizes from sysconf
DEP_CFLAGS := $(strip $(SQLITE3_CFLAGS) $(JANSSON_CFLAGS) $(foreach d,$(OPTIONAL),$(if $(filter 1,$(HAVE_$(d))),$($(d)_CFLAGS))))
# liba2a's own libraries (tuning files; hwloc for the L2 size), then the harness's
LIBA2A_LIBS := $(strip $(JANSSON_LIBS) $(if $(filter 1,$(HAVE_HWLOC)),$(HWLOC_LIBS)) -lm)
TOOL_LIBS   := $(strip $(SQLITE3_LIBS) $(if $(filter 1,$(HAVE_PAPI)),$(PAPI_LIBS)) $(if $(filter 1,$(HAVE_FFTW)),$(FFTW_LIBS)))

OPT      ?= -O2 -g
# -fPIC: the kernels also go into shared libraries (liba2a.so, the preload library)
CFLAGS   += $(OPT) -std=c11 -D_GNU_SOURCE $(WARNINGS) -pthread -fPIC $(SANITIZE) $(DEP_CFLAGS)
CPPFLAGS += -Iinclude -Ikernels/common -Ikernels/hint -Ikernels/tuned -Iworkloads -Iapps -DA2A_GIT_REVISION='"$(GIT_REV)"'
# the harness's folders (below; tests/layers.py reads the -I of every CPPFLAGS line)
CPPFLAGS += -Iharness/measure -Iharness/sweep -Iharness/db -Iharness/run -Iharness/tuner -Iharness/commands
CPPFLAGS += -DA2A_VERSION='"$(VERSION)"' $(foreach d,$(OPTIONAL),-DA2A_HAVE_$(d)=$(HAVE_$(d)))
# SimGrid's SMPI (MPI=simgrid: smpicc; build/simgrid/a2atune is run by smpirun, through
# `scripts/a2a simulate`). A2A_SIMGRID selects the simulation paths (real clocks for the
# watchdog and wall times, shared payloads above the validation limit, copy-cost model).
ifeq ($(MPI_FLAVOUR),simgrid)
CPPFLAGS += -DA2A_SIMGRID
endif
LDLIBS   += $(TOOL_LIBS) $(LIBA2A_LIBS)
LDFLAGS  += -pthread $(SANITIZE)

LIB_SRC  := $(sort $(wildcard kernels/*.c kernels/*/*.c))
# the harness's folders, as its data flows (docs/development.md): measure/ (statistics,
# counters, polite waiting) under sweep/ (sweep files into configurations) under db/ (the
# database) under run/ and tuner/ (running configurations, searching them) under commands/
HARNESS  := measure sweep db run tuner commands
TOOL_SRC := $(sort $(wildcard workloads/*.c $(HARNESS:%=harness/%/*.c) apps/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
TOOL_OBJ := $(TOOL_SRC:%.c=$(BUILD)/%.o)
TEST_MPI := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/test_*.c))
TEST_UNIT:= $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/unit_*.c))

.PHONY: all setup run test tests plots paper-figures paper-night paper-bands clean simulate install uninstall
all: $(BUILD)/a2atune $(if $(filter build/openmpi,$(BUILD)),a2atune)

# make setup installs the missing Debian packages (root or sudo); make run, test and simulate
# do so only where apt is there and usable without a password, else list what is missing
setup:
	@scripts/install-deps.sh
SETUP_IF_POSSIBLE := scripts/install-deps.sh --if-possible

$(BUILD)/%.o: %.c $(wildcard include/*.h kernels/*/*.h workloads/*.h harness/*/*.h apps/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS) -c $< -o $@

# the revision (with -dirty when a source file was edited) in a file rewritten only when it
# changes, so that what prints it is rebuilt after an edit or a commit
REV_STAMP := $(BUILD)/git-revision
$(shell mkdir -p $(BUILD) && [ "$$(cat $(REV_STAMP) 2>/dev/null)" = "$(GIT_REV)" ] || echo "$(GIT_REV)" > $(REV_STAMP))
$(BUILD)/harness/db/provenance.o $(BUILD)/harness/commands/main.o: $(REV_STAMP)
# the wrapper and the optional libraries in a file rewritten only when they change, so that
# PAPI=no (or another wrapper into the same BUILD) rebuilds every object
CONFIG_STAMP := $(BUILD)/config
CONFIG_TEXT  := $(MPICC) $(foreach d,$(OPTIONAL),$(d)=$(HAVE_$(d)))
ifneq ($(PROBE),)
$(shell [ "$$(cat $(CONFIG_STAMP) 2>/dev/null)" = "$(CONFIG_TEXT)" ] || echo "$(CONFIG_TEXT)" > $(CONFIG_STAMP))
endif

# under SimGrid only the kernels' allocations may become SMPI shared memory
# (smpi/auto-shared-malloc-thresh); the driver's own arrays stay private to each rank
# and the kernels' copies cost simulated time (kernels/common/sim_copy.h)
$(LIB_OBJ) $(TOOL_OBJ): $(CONFIG_STAMP)
ifeq ($(MPI_FLAVOUR),simgrid)
$(TOOL_OBJ): CPPFLAGS += -DSMPI_NO_OVERRIDE_MALLOC
$(LIB_OBJ): CPPFLAGS += -include kernels/common/sim_copy.h
endif

$(BUILD)/liba2a.a: $(LIB_OBJ)
	ar rcs $@ $^

# liba2a.so: the kernels for applications that link liba2a (make install, a2a.pc)
$(BUILD)/liba2a.so: $(LIB_OBJ)
	$(CC) -shared $(LDFLAGS) -Wl,--no-undefined $^ $(LIBA2A_LIBS) -o $@

# a2atune; its link says, one line each, which optional library it goes without
$(BUILD)/a2atune: $(TOOL_OBJ) $(BUILD)/liba2a.a
	@$(foreach d,$(OPTIONAL),$(if $(filter 0,$(HAVE_$(d))),echo '$(NOTE_$(d))';))
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# ./a2atune is the Open MPI build (the default MPI); MPICH's is build/mpich/a2atune
a2atune: $(BUILD)/a2atune
	ln -sf $< $@

# test programs link the harness (without main) and liba2a
TEST_LINK := $(filter-out $(BUILD)/harness/commands/main.o,$(TOOL_OBJ)) $(BUILD)/liba2a.a
$(BUILD)/tests/%: tests/%.c $(TEST_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# liba2a_preload.so: liba2a (built -fPIC) + preload/preload.c, for unmodified programs
# (LD_PRELOAD); tests/preload/: an unmodified MPI program (not linked with liba2a), the
# vendor_algorithm check (linked with it) and the probe that shows what the library ran
PRELOAD_SO := $(BUILD)/liba2a_preload.so
TEST_PRELOAD := $(BUILD)/tests/preload/plain_alltoall $(BUILD)/tests/preload/force_check \
                $(BUILD)/tests/preload/probe.so $(BUILD)/tests/preload/safety_program
$(PRELOAD_SO): $(BUILD)/preload/preload.o $(LIB_OBJ)
	$(CC) -shared $(LDFLAGS) -Wl,--no-undefined -Wl,--as-needed $^ $(LDLIBS) -o $@
$(BUILD)/tests/preload/plain_alltoall: tests/preload/plain_alltoall.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $< -o $@
$(BUILD)/tests/preload/safety_program: tests/preload/safety_program.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $< -o $@
$(BUILD)/tests/preload/force_check: tests/preload/force_check.c $(BUILD)/liba2a.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@
$(BUILD)/tests/preload/probe.so: tests/preload/probe.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared $< -ldl -o $@

tests: all $(TEST_MPI) $(TEST_UNIT) $(PRELOAD_SO) $(TEST_PRELOAD) build/model/a2atrace

# the default build runs under run-sweep.sh's bound mpirun.openmpi; any other under $(MPIRUN)
RUN_LAUNCH := $(if $(filter build/openmpi,$(BUILD)),,--launch '$(MPIRUN) -n {ranks} {cmd}')
run:
	@$(SETUP_IF_POSSIBLE)
	@$(MAKE) --no-print-directory all
	@mkdir -p $(dir $(DB))
	@A2ATUNE=$(BUILD)/a2atune scripts/run-sweep.sh --launches $(LAUNCHES) $(RUN_LAUNCH) $(NP) $(SWEEP) $(DB); rc=$$?; \
	if [ -f $(DB) ]; then scripts/a2a figures --db $(DB) --out $(FIGURES) || { [ $$rc -ne 0 ] || rc=2; }; \
	else echo "make run: no database $(DB): no figures"; fi; exit $$rc

test:
	@$(SETUP_IF_POSSIBLE)
	@$(MAKE) --no-print-directory MPI=openmpi tests
	@$(MAKE) --no-print-directory MPI=mpich tests
	@$(MAKE) --no-print-directory MPI=openmpi BUILD=build/asan SANITIZE='-fsanitize=address,undefined -fno-omit-frame-pointer' OPT='-O1 -g' WERROR=1 build/asan/a2atune
	@WERROR=1 tests/run.sh

# make install PREFIX=DIR [DESTDIR=STAGE]: bin/a2atune and bin/a2a (the Python tools, with
# PYTHON: by default the first python3 that has numpy and matplotlib), lib/liba2a.a and .so,
# lib/liba2a_preload.so, include/a2a*.h, lib/pkgconfig/a2a.pc, share/a2atune/ (sweeps,
# platforms, docs, the Python package), share/modulefiles/a2atune/VERSION; every file and
# folder it made is listed in share/a2atune/installed, which make uninstall removes exactly
PYTHON   ?=
INSTALL_ENV = PREFIX='$(PREFIX)' DESTDIR='$(DESTDIR)' BUILD='$(BUILD)' VERSION='$(VERSION)' \
              PYTHON='$(PYTHON)' LIBA2A_LIBS='$(LIBA2A_LIBS)' MPICC='$(MPICC)'
install: $(BUILD)/a2atune $(BUILD)/liba2a.a $(BUILD)/liba2a.so $(PRELOAD_SO)
	@$(INSTALL_ENV) scripts/install.sh install
uninstall:
	@$(INSTALL_ENV) scripts/install.sh uninstall

# the TuNA benchmark: sweeps/bench/tuna.ini on 16 ranks (P = 2..16 in one launch) into
# BENCH_DB, then the table of tuna against its floor (spread_out, twophase_bruck)
BENCH_DB ?= results/bench.db
.PHONY: bench bench-loop
bench: all
	@mkdir -p $(dir $(BENCH_DB))
	@scripts/run-sweep.sh 16 sweeps/bench/tuna.ini $(BENCH_DB)
	@/usr/bin/python3 bench/tuna_ratios.py --db $(BENCH_DB)

# the same ratios at P = 2 on two cores, each sample many back-to-back calls (small blocks
# last a few hundred ns: per-call samples are a few clock ticks)
$(BUILD)/bench/tuna_loop: bench/tuna_loop.c $(BUILD)/liba2a.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@
# the online tuner's benchmark loop: S bytes a block, CALLS calls of A2A_Alltoall (the tuned
# dispatcher linked in, so that it runs under SimGrid too); bench/online_bench.py
$(BUILD)/bench/online_loop: bench/online_loop.c $(BUILD)/liba2a.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@
bench-loop: $(BUILD)/bench/tuna_loop
	$(MPIRUN) -n 2 --bind-to core $<

# the model tier (scripts/a2a model-run): a2atrace runs liba2a's uniform kernels, compiled
# unchanged against MPICH's <mpi.h> (integer handles), linked with the tracing MPI layer
# (model/trace_mpi.c) instead of an MPI library; their copies go through the SimGrid
# build's copy-cost model (kernels/common/sim_copy.c), charged to the traced epoch
MODEL_DIR    := build/model
MODEL_CFLAGS := $(OPT) -std=c11 -D_GNU_SOURCE $(WARNINGS) -Wno-stringop-overflow \
                -Iinclude -Ikernels/common -Iworkloads -I$(shell pkg-config --variable=includedir mpich 2>/dev/null || echo /usr/include/x86_64-linux-gnu/mpich)
MODEL_KERNELS:= $(addprefix kernels/uniform/,tra.c tra2.c bruck.c spread_out.c pairwise.c scattered.c) \
                $(addprefix kernels/nonuniform/,tuna.c tuna_local.c tuna_staggered.c \
                  tuna_coalesced.c twophase_bruck.c mpich_selection_v.c \
                  ompi_tuned_selection_v.c linear_v.c pairwise_v.c)
MODEL_OBJ    := $(MODEL_KERNELS:%.c=$(MODEL_DIR)/%.o) $(patsubst %.c,$(MODEL_DIR)/%.o,$(wildcard kernels/common/*.c)) $(MODEL_DIR)/workloads/workload.o
$(MODEL_DIR)/kernels/%.o: kernels/%.c $(wildcard include/*.h kernels/common/*.h)
	@mkdir -p $(dir $@)
	gcc $(MODEL_CFLAGS) -include kernels/common/sim_copy.h -c $< -o $@
$(MODEL_DIR)/kernels/common/sim_copy.o: kernels/common/sim_copy.c kernels/common/sim_copy.h model/smpi_execute.h
	@mkdir -p $(dir $@)
	gcc $(MODEL_CFLAGS) -DA2A_SIMGRID -include model/smpi_execute.h -c $< -o $@
$(MODEL_DIR)/workloads/%.o: workloads/%.c $(wildcard workloads/*.h)
	@mkdir -p $(dir $@)
	gcc $(MODEL_CFLAGS) -c $< -o $@
$(MODEL_DIR)/liba2a_trace.a: $(MODEL_OBJ)
	ar rcs $@ $^
$(MODEL_DIR)/a2atrace: model/trace_main.c model/trace_mpi.c model/trace_mpi.h $(MODEL_DIR)/liba2a_trace.a workloads/workload.h
	gcc $(MODEL_CFLAGS) model/trace_main.c model/trace_mpi.c $(MODEL_DIR)/liba2a_trace.a -lm -pthread -o $@

# a sweep on a simulated cluster: one smpirun per P of the sweep (scripts/a2a simulate)
PLATFORM ?= platforms/dragonfly.xml
simulate:
	@$(SETUP_IF_POSSIBLE)
	@$(MAKE) --no-print-directory MPI=simgrid build/simgrid/a2atune
	@mkdir -p $(dir $(DB))
	scripts/a2a simulate $(SWEEP) --platform $(PLATFORM) --db $(DB)

# the tuner's evaluation suite (scripts/a2a_tools/tuner/tuner_suite.py): the search replayed on
# every checked-in exhaustive data set at 10, 25, 50 % under 20 noise seeds, against random,
# stratified random and the library default, then the ablation of its rules judged
# leave-one-data-set-out, at 10, 25, 50 % of the configurations and of each data set's
# exhaustive time (TUNER_TIME_BUDGETS= for none: about a fifth less CPU); markdown into
# $(TUNER_EVAL), and the page $(TUNER_PAGE), its tables filled into the text of
# docs/results/tuner-eval.template.md (a few minutes; nothing is measured)
TUNER_EVAL ?= results/tuner-eval.md
TUNER_PAGE ?= docs/results/tuner-eval.md
TUNER_TIME_BUDGETS ?= 10,25,50
.PHONY: tuner-eval
tuner-eval: all
	@mkdir -p $(dir $(TUNER_EVAL))
	scripts/a2a tuner-report --suite --ablation --time-budgets '$(TUNER_TIME_BUDGETS)' \
	    --page $(TUNER_PAGE) | tee $(TUNER_EVAL)

# summary, best-radix table, heatmaps and curves of the database of `make run` (DB=...),
# into $(FIGURES) (results/figures/ by default; index.html shows them all)
plots:
	scripts/a2a figures --db $(DB) --out $(FIGURES)

# every figure of docs/results/ (and the numbers beside each) from the data in tests/data/
paper-figures: all
	scripts/a2a paper-figures --out docs/results
	scripts/a2a paper-table --out docs/results/papers.md --tuna-tables docs/results/model-tuna.md

# every paper figure's data re-made from scratch by the model tier (about an hour and a
# quarter on 2 shared cores), then docs/results/papers.md (scripts/a2a paper-night)
paper-night: all build/model/a2atrace
	scripts/a2a paper-night

# papers.md's bands: the rows priced again with each assumed platform figure at x1/2 and x2
# and at the corners (scripts/a2a paper-bands; the cost is in tests/data/papers-bands.sql's
# header), then docs/results/papers.md
paper-bands: all build/model/a2atrace
	scripts/a2a paper-bands
	scripts/a2a paper-table --out docs/results/papers.md

clean:
	rm -rf build a2atune

# every target a user types (tests/parts/docs.sh checks that the guides name only these)
.PHONY: help
help:
	@echo 'make [MPI=openmpi|mpich|simgrid | MPICC=WRAPPER] TARGET [VARIABLE=VALUE ...]'
	@echo '  all          liba2a and a2atune (build/$$MPI/ or build/WRAPPER/; the default target)'
	@echo '  setup        install the missing Debian packages (scripts/install-deps.sh; root or sudo)'
	@echo '  run          setup (where apt needs no password), build, run SWEEP on NP ranks in'
	@echo '               LAUNCHES launches into DB, then its summary, heatmaps and curves into FIGURES'
	@echo '  test         setup (where apt needs no password), build every flavour, run every test'
	@echo '               (tests/run.sh)'
	@echo '  tests        the test programs and the preload library of one MPI'
	@echo '  install      a2atune, a2a, liba2a, its headers, pkg-config and module files, sweeps,'
	@echo '               platforms and docs under PREFIX (DESTDIR honoured)'
	@echo '  uninstall    remove exactly what install put under PREFIX'
	@echo '  plots        the figures of DB into FIGURES (scripts/a2a figures)'
	@echo '  paper-figures  docs/results/ from the checked-in data in tests/data/ (scripts/a2a paper-figures)'
	@echo '  paper-night  every paper figure data re-made by the model tier, then papers.md (scripts/a2a paper-night)'
	@echo '  paper-bands  papers.md rows re-priced with each assumed platform figure at x1/2 and x2 (scripts/a2a paper-bands)'
	@echo '  simulate     SWEEP on the simulated PLATFORM into DB (scripts/a2a simulate)'
	@echo '  tuner-eval   the tuner evaluation suite and rule ablation into TUNER_EVAL and the page'
	@echo '               TUNER_PAGE (budgets in time too unless TUNER_TIME_BUDGETS=)'
	@echo '  bench        the TuNA benchmark into BENCH_DB, then its ratios table'
	@echo '  bench-loop   the TuNA benchmark at P = 2, many calls per sample'
	@echo '  clean        remove build/ and ./a2atune'
	@echo '  help         this text'
	@echo 'variables: MPICC=$(MPICC) MPIRUN=$(MPIRUN) BUILD=$(BUILD) PREFIX=$(PREFIX)'
	@echo '           PAPI, FFTW, HWLOC (no: leave out; yes: required; unset: if pkg-config finds it)'
	@echo '           WERROR=1 (warnings are errors) PYTHON (the a2a of make install)'
	@echo '           NP=$(NP) SWEEP=$(SWEEP) DB=$(DB) FIGURES=$(FIGURES)'
	@echo '           LAUNCHES=$(LAUNCHES) PLATFORM=$(PLATFORM) BENCH_DB=$(BENCH_DB)'
