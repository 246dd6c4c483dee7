# a2atune — build, run and test.
#   make            build liba2a and a2atune against Open MPI (build/openmpi/)
#   make MPI=mpich  the same against MPICH (build/mpich/)
#   make run        install what is missing, build, run sweeps/quick.ini on 4 ranks, then
#                   write its summary, heatmaps and curves into results/figures/
#                   (LAUNCHES=N: in N launches, whose spread the tools take as the noise)
#   make test       install what is missing, build both MPI flavours, run every test
#   make setup      only install the Debian packages that are missing
#   make simulate SWEEP=... PLATFORM=platforms/dragonfly.xml DB=results/sim.db
#                   the sweep on a simulated cluster (SimGrid SMPI, build/simgrid/)

MPI      ?= openmpi
NP       ?= 4
SWEEP    ?= sweeps/quick.ini
DB       ?= results/a2a.db
FIGURES  ?= results/figures
LAUNCHES ?= 1
BUILD    := build/$(MPI)
CC       := mpicc.$(MPI)
MPIRUN   := mpirun.$(MPI)
PKGS     := inih sqlite3 hwloc jansson papi fftw3
# the revision, with -dirty when a file the programs are built from differs from it (an
# uncommitted edit of docs/, tests/ or data made while the data is simulated does not)
GIT_SOURCES := Makefile include kernels harness workloads apps preload model sweeps/bench
GIT_REV  := $(shell r=$$(git describe --always 2>/dev/null) && { git diff --quiet HEAD -- $(GIT_SOURCES) 2>/dev/null || r=$$r-dirty; echo $$r; } || echo unknown)
SANITIZE ?=

OPT      ?= -O2 -g
# -fPIC: the kernels also go into a shared preload library
CFLAGS   += $(OPT) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -pthread -fPIC $(SANITIZE)
CPPFLAGS += -Iinclude -Ikernels/common -Ikernels/hint -Ikernels/tuned -Iworkloads -Iapps -DA2A_GIT_REVISION='"$(GIT_REV)"'
# the harness's folders (below; tests/layers.py reads the -I of every CPPFLAGS line)
CPPFLAGS += -Iharness/measure -Iharness/sweep -Iharness/db -Iharness/run -Iharness/tuner -Iharness/commands
# gcc 12 takes MPICH's MPI_STATUSES_IGNORE ((MPI_Status *)1) for a zero-size array
ifeq ($(MPI),mpich)
CFLAGS   += -Wno-stringop-overflow
endif
# MPI=simgrid: SimGrid's SMPI (smpicc; build/simgrid/a2atune is run by smpirun, through
# `scripts/a2a simulate`). A2A_SIMGRID selects the simulation paths (real clocks for the
# watchdog and wall times, shared payloads above the validation limit, copy-cost model).
ifeq ($(MPI),simgrid)
CC       := smpicc
CPPFLAGS += -DA2A_SIMGRID
endif
LDLIBS   += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm
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

.PHONY: all setup run test tests plots paper-figures paper-night clean simulate
all: $(BUILD)/a2atune $(if $(filter openmpi,$(MPI)),a2atune)

setup:
	@scripts/install-deps.sh

$(BUILD)/%.o: %.c $(wildcard include/*.h kernels/*/*.h workloads/*.h harness/*/*.h apps/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS) -c $< -o $@

# the revision (with -dirty when a source file was edited) in a file rewritten only when it
# changes, so that what prints it is rebuilt after an edit or a commit
REV_STAMP := $(BUILD)/git-revision
$(shell mkdir -p $(BUILD) && [ "$$(cat $(REV_STAMP) 2>/dev/null)" = "$(GIT_REV)" ] || echo "$(GIT_REV)" > $(REV_STAMP))
$(BUILD)/harness/db/provenance.o $(BUILD)/harness/commands/main.o: $(REV_STAMP)

# under SimGrid only the kernels' allocations may become SMPI shared memory
# (smpi/auto-shared-malloc-thresh); the driver's own arrays stay private to each rank
# and the kernels' copies cost simulated time (kernels/common/sim_copy.h)
ifeq ($(MPI),simgrid)
$(TOOL_OBJ): CPPFLAGS += -DSMPI_NO_OVERRIDE_MALLOC
$(LIB_OBJ): CPPFLAGS += -include kernels/common/sim_copy.h
endif

$(BUILD)/liba2a.a: $(LIB_OBJ)
	ar rcs $@ $^

$(BUILD)/a2atune: $(TOOL_OBJ) $(BUILD)/liba2a.a
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

run: setup
	@$(MAKE) --no-print-directory all
	@mkdir -p $(dir $(DB))
	@scripts/run-sweep.sh --launches $(LAUNCHES) $(NP) $(SWEEP) $(DB); rc=$$?; \
	if [ -f $(DB) ]; then scripts/a2a figures --db $(DB) --out $(FIGURES) || { [ $$rc -ne 0 ] || rc=2; }; \
	else echo "make run: no database $(DB): no figures"; fi; exit $$rc

test: setup
	@$(MAKE) --no-print-directory MPI=openmpi tests
	@$(MAKE) --no-print-directory MPI=mpich tests
	@$(MAKE) --no-print-directory MPI=openmpi BUILD=build/asan SANITIZE='-fsanitize=address,undefined -fno-omit-frame-pointer' OPT='-O1 -g' build/asan/a2atune
	@tests/run.sh

# the TuNA benchmark: sweeps/bench/tuna.ini on 16 ranks (P = 2..16 in one launch) into
# BENCH_DB, then the table of tuna against its floor (spread_out, twophase_bruck)
BENCH_DB ?= results/bench.db
.PHONY: bench bench-loop
bench: all
	@mkdir -p $(dir $(BENCH_DB))
	@scripts/run-sweep.sh 16 sweeps/bench/tuna.ini $(BENCH_DB)
	@/usr/bin/python3 sweeps/bench/tuna_ratios.py --db $(BENCH_DB)

# the same ratios at P = 2 on two cores, each sample many back-to-back calls (small blocks
# last a few hundred ns: per-call samples are a few clock ticks)
$(BUILD)/bench/tuna_loop: sweeps/bench/tuna_loop.c $(BUILD)/liba2a.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@
# the online tuner's benchmark loop: S bytes a block, CALLS calls of A2A_Alltoall (the tuned
# dispatcher linked in, so that it runs under SimGrid too); sweeps/bench/online_bench.py
$(BUILD)/bench/online_loop: sweeps/bench/online_loop.c $(BUILD)/liba2a.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@
bench-loop: $(BUILD)/bench/tuna_loop
	mpirun.openmpi -n 2 --bind-to core $<

# the model tier (scripts/a2a model-run): a2atrace runs liba2a's uniform kernels, compiled
# unchanged against MPICH's <mpi.h> (integer handles), linked with the tracing MPI layer
# (model/trace_mpi.c) instead of an MPI library; their copies go through the SimGrid
# build's copy-cost model (kernels/common/sim_copy.c), charged to the traced epoch
MODEL_DIR    := build/model
MODEL_CFLAGS := $(OPT) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-stringop-overflow \
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
simulate: setup
	@$(MAKE) --no-print-directory MPI=simgrid build/simgrid/a2atune
	@mkdir -p $(dir $(DB))
	scripts/a2a simulate $(SWEEP) --platform $(PLATFORM) --db $(DB)

# the tuner's evaluation suite (scripts/a2a_tools/tuner_suite.py): the search replayed on
# every checked-in exhaustive data set at 10, 25, 50 % under 20 noise seeds, against random,
# stratified random and the library default, then the ablation of its rules judged
# leave-one-data-set-out; markdown into $(TUNER_EVAL) (a few minutes; nothing is measured).
# TUNER_TIME_BUDGETS=10,25,50 adds the budgets in time (% of each data set's exhaustive time:
# the full report, about a fifth more CPU)
TUNER_EVAL ?= results/tuner-eval.md
TUNER_TIME_BUDGETS ?=
.PHONY: tuner-eval
tuner-eval: all
	@mkdir -p $(dir $(TUNER_EVAL))
	scripts/a2a tuner-report --suite --ablation --time-budgets '$(TUNER_TIME_BUDGETS)' | tee $(TUNER_EVAL)

# summary, best-radix table, heatmaps and curves of the database of `make run` (DB=...),
# into $(FIGURES) (results/figures/ by default; index.html shows them all)
plots:
	scripts/a2a figures --db $(DB) --out $(FIGURES)

# every figure of docs/results/ (and the numbers beside each) from the data in tests/data/
paper-figures: all
	scripts/a2a paper-figures --out docs/results
	scripts/a2a paper-table --out docs/results/papers.md

# every paper figure's data re-made from scratch by the model tier (about an hour and a
# quarter on 2 shared cores), then docs/results/papers.md (scripts/a2a paper-night)
paper-night: all build/model/a2atrace
	scripts/a2a paper-night

clean:
	rm -rf build a2atune

# every target a user types (tests/parts/docs.sh checks that the guides name only these)
.PHONY: help
help:
	@echo 'make [MPI=openmpi|mpich|simgrid] TARGET [VARIABLE=VALUE ...]'
	@echo '  all          liba2a and a2atune (build/$$MPI/; the default target)'
	@echo '  setup        install the missing Debian packages (scripts/install-deps.sh)'
	@echo '  run          setup, build, run SWEEP on NP ranks in LAUNCHES launches into DB,'
	@echo '               then its summary, heatmaps and curves into FIGURES'
	@echo '  test         setup, build every flavour, run every test (tests/run.sh)'
	@echo '  tests        the test programs and the preload library of one MPI'
	@echo '  plots        the figures of DB into FIGURES (scripts/a2a figures)'
	@echo '  paper-figures  docs/results/ from the checked-in data in tests/data/ (scripts/a2a paper-figures)'
	@echo '  paper-night  every paper figure data re-made by the model tier, then papers.md (scripts/a2a paper-night)'
	@echo '  simulate     SWEEP on the simulated PLATFORM into DB (scripts/a2a simulate)'
	@echo '  tuner-eval   the tuner evaluation suite and rule ablation into TUNER_EVAL (budgets in'
	@echo '               time too with TUNER_TIME_BUDGETS=10,25,50)'
	@echo '  bench        the TuNA benchmark into BENCH_DB, then its ratios table'
	@echo '  bench-loop   the TuNA benchmark at P = 2, many calls per sample'
	@echo '  clean        remove build/ and ./a2atune'
	@echo '  help         this text'
	@echo 'variables: MPI=$(MPI) NP=$(NP) SWEEP=$(SWEEP) DB=$(DB) FIGURES=$(FIGURES)'
	@echo '           LAUNCHES=$(LAUNCHES) PLATFORM=$(PLATFORM) BENCH_DB=$(BENCH_DB)'
