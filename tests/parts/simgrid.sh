# tests/parts/simgrid.sh — the SimGrid (SMPI) backend: `make MPI=simgrid`, `a2a simulate`
# (sourced by tests/run.sh: run, check, holds, sql, pass, fail, $WORK). The correctness
# matrix of every family SMPI runs (all but hint: the sparse exchanges and empty in-place
# blocks on kernels/common/mpi_compat.h's substitutes) at P = 1, 2, 3, 5, 8, 16 with real
# payloads compared byte for byte; kernels on MPI_COMM_WORLD (SMPI shares one
# MPI_COMM_WORLD object among ranks); tra at P = 256 above the validation limit (rows:
# backend, platform, validated = 0); every dense kernel alone at P = 96 and 160, the SDDE
# kernels and two in-place ones at P = 96; a crashing configuration recorded as error while
# its launch goes on; the copy-cost
# model; bad platform files; a schema-2 database gaining the schema-3 columns.
SG="$WORK/simgrid"
mkdir -p "$SG"
SIM="scripts/a2a simulate"
FT=platforms/fattree_ib.xml
run simgrid/build 900 make -j2 --no-print-directory MPI=simgrid build/simgrid/a2atune build/simgrid/tests/test_world_comm
sgsql() { sql "$SG/$1" "$2"; }

# ---- the correctness matrix, one smpirun per P ------------------------------------------
run simgrid/matrix 600 $SIM tests/sweeps/simgrid_matrix.ini --platform $FT --db "$SG/matrix.db" --copy-model none
check simgrid/matrix/none-wrong [ "$(sgsql matrix.db "SELECT count(*) FROM results WHERE status NOT IN ('ok', 'skipped')")" = 0 ]
check simgrid/matrix/every-P-and-family [ "$(sgsql matrix.db "SELECT group_concat(x) FROM (SELECT DISTINCT family || P AS x FROM results WHERE status = 'ok' ORDER BY family, P)")" = "inplace1,inplace2,inplace3,inplace5,inplace8,inplace16,nonuniform1,nonuniform2,nonuniform3,nonuniform5,nonuniform8,nonuniform16,sdde1,sdde2,sdde3,sdde5,sdde8,sdde16,sddev1,sddev2,sddev3,sddev5,sddev8,sddev16,uniform1,uniform2,uniform3,uniform5,uniform8,uniform16" ]
check simgrid/matrix/every-kernel [ "$(sgsql matrix.db "SELECT count(DISTINCT family || kernel) FROM results WHERE status = 'ok' AND P = 16")" = 38 ]
# empty in-place pairs (SMPI's MPI_Sendrecv_replace asserts count > 0) were exchanged
check simgrid/matrix/inplace-empty-pairs [ "$(sgsql matrix.db "SELECT count(*) FROM results WHERE status = 'ok' AND section = 'inplace_zero_blocks' AND P = 16")" = 6 ]
check simgrid/matrix/validated holds '[ "$(sgsql matrix.db "SELECT count(*) FROM results WHERE status = '"'ok'"' AND validated = 1")" -gt 600 ] &&
    [ "$(sgsql matrix.db "SELECT count(*) FROM results WHERE status = '"'ok'"' AND validated IS NOT 1")" = 0 ]'
check simgrid/matrix/provenance [ "$(sgsql matrix.db "SELECT group_concat(DISTINCT backend || ',' || mpi_library || ',' || oversubscribed || ',' || platform) FROM runs")" = "simgrid,SimGrid SMPI,0,fattree_ib.xml" ]

# the same matrix with payloads shared from P = 2 on: no payload is compared, and each
# kernel's own count of the bytes it sent is checked against what every rank owes (every
# correct kernel passes; tests/unit_harness.c checks that a short count is refused)
run simgrid/matrix-unvalidated 600 $SIM tests/sweeps/simgrid_matrix.ini --platform $FT --db "$SG/matrix-unvalidated.db" --copy-model none --validate-up-to 1
check simgrid/matrix-unvalidated/every-kernel-passes-the-byte-check [ "$(sgsql matrix-unvalidated.db "SELECT count(*) || ',' || sum(status = 'ok' AND validated = 0 AND message LIKE '%bytes sent checked%') || ',' || count(DISTINCT family || kernel) FROM results WHERE P > 1 AND status <> 'skipped'")" = "$(sgsql matrix.db "SELECT count(*) || ',' || count(*) || ',' || count(DISTINCT family || kernel) FROM results WHERE P > 1 AND status <> 'skipped'")" ]

# ---- kernels called on MPI_COMM_WORLD itself ---------------------------------------------
for i in 1 2 3 4 5; do echo ib-0; done > "$SG/hosts5"
run simgrid/world-comm 120 smpirun -no-privatize -platform $FT -hostfile "$SG/hosts5" -np 5 \
    --log=root.thresh:warning build/simgrid/tests/test_world_comm

# ---- above the validation limit the counted first call is the first warm-up call: a launch
# with warmup = 1 ends at the simulated time of one with warmup = 0 (two exchanges each);
# below the limit the validated first call comes on top of the warm-up --------------------
for i in 1 2 3 4 5 6 7 8; do echo ib-0; done > "$SG/hosts8"
# sim_end LIMIT WARMUP: SMPI's clock at the end of a launch of tra radix 2, P = 8, 1 KiB
sim_end() {
    printf 'iterations = 1\nwarmup = %s\nP = 8\nS = 1K\n[u]\nfamily = uniform\nkernels = tra\nradix = 2\n' "$2" > "$SG/warm.ini"
    rm -f "$SG/warm.db"
    A2A_SIM_VALIDATE_UP_TO=$1 smpirun -no-privatize -platform $FT -hostfile "$SG/hosts8" -np 8 \
        --cfg=smpi/simulate-computation:no --cfg=smpi/display-timing:yes build/simgrid/a2atune \
        run "$SG/warm.ini" --db "$SG/warm.db" --quiet 2>&1 | sed -n 's/.*Simulated time: \([0-9.e+-]*\) seconds.*/\1/p'
}
above0=$(sim_end 1 0) above1=$(sim_end 1 1) below0=$(sim_end 64 0) below1=$(sim_end 64 1)
check simgrid/unvalidated-first-call-warms-up holds '[ -n "$above0" ] && [ "$above0" = "$above1" ] && awk -v w0="$below0" -v w1="$below1" "BEGIN { exit !(w0 > 0 && w1 > w0) }"'

# ---- P = 256 above the validation limit: shared payloads, validated = 0 -----------------
run simgrid/p256 300 $SIM tests/sweeps/simgrid_p256.ini --platform $FT --db "$SG/p256.db" --copy-model none
check simgrid/p256/rows [ "$(sgsql p256.db "SELECT group_concat(radix || ':' || status || ':' || validated || ':' || (median_s > 0), ',') FROM (SELECT * FROM results WHERE kernel = 'tra' ORDER BY radix)")" = "2:ok:0:1,16:ok:0:1" ]
check simgrid/p256/tuna-shared-pack [ "$(sgsql p256.db "SELECT group_concat(kernel || ':' || status || ':' || validated || ':' || (median_s > 0)) FROM (SELECT * FROM results WHERE family = 'nonuniform' ORDER BY kernel)")" = "tuna:ok:0:1,tuna_coalesced:ok:0:1,twophase_bruck:ok:0:1" ]
sha=$(sha256sum $FT | cut -d' ' -f1)
# a second simulate call into the same database, same model: one simulation in figures
run simgrid/p256-second-call 300 $SIM tests/sweeps/simgrid_p256_vendor.ini --platform $FT --db "$SG/p256.db" --copy-model none
run simgrid/p256-heatmap-joins-calls 120 scripts/a2a heatmap --db "$SG/p256.db" --kernel tra --baseline vendor --out "$SG/fig"
check simgrid/p256/run-provenance [ "$(sgsql p256.db "SELECT backend || ',' || platform || ',' || platform_sha256 || ',' || simgrid_version || ',' || world_size FROM runs GROUP BY 1")" = "simgrid,fattree_ib.xml,$sha,3.32.0,256" ]
check simgrid/p256/smpi-options holds '[ "$(sgsql p256.db "SELECT count(*) FROM runs WHERE smpi_options LIKE \"%smpi/alltoall:ring%\" AND smpi_options LIKE \"%auto-shared-malloc-thresh%\" AND smpi_options LIKE \"%copy-model=none%\"")" = 2 ]'

# ---- every dense kernel alone at P = 96 and 160, where SimGrid's solver crashed; the SDDE
# kernels (MPI_Iprobe and the substitute barrier) and two in-place ones at P = 96 ----------
run simgrid/scale-96-160 600 $SIM tests/sweeps/simgrid_scale.ini --platform $FT --db "$SG/scale.db" --copy-model none
check simgrid/scale/every-kernel-ok [ "$(sgsql scale.db "SELECT count(*) || ',' || sum(status = 'ok' AND validated = 0 AND message LIKE '%bytes sent checked%') || ',' || count(DISTINCT family || kernel) || ',' || group_concat(DISTINCT P) FROM (SELECT * FROM results ORDER BY P)")" = "36,36,23,96,160" ]
check simgrid/scale/solver-precision [ "$(sgsql scale.db "SELECT count(*) FROM runs WHERE smpi_options LIKE '%maxmin/precision:1e-2%'")" = 2 ]

# ---- a configuration that crashes the simulation costs only itself ----------------------
A2A_SIM_TEST_CRASH=bruck:17 $SIM tests/sweeps/simgrid_crash.ini --platform $FT --db "$SG/crash.db" --copy-model none > "$SG/crash.log" 2>&1; rc=$?
check simgrid/crash/exit-status-reports-it [ $rc -eq 1 ]
check simgrid/crash/recorded-with-the-signal [ "$(sgsql crash.db "SELECT group_concat(kernel || ':' || S || ':' || status, ',') FROM (SELECT * FROM results WHERE message LIKE '%died of SIGSEGV%' ORDER BY id)")" = "bruck:17:error" ]
check simgrid/crash/the-launch-goes-on [ "$(sgsql crash.db "SELECT group_concat(kernel || ':' || S || ':' || status, ',') FROM (SELECT * FROM results ORDER BY kernel, S)")" = "bruck:16:ok,bruck:17:error,bruck:32:ok,pairwise:16:ok,pairwise:17:ok,pairwise:32:ok" ]
check simgrid/crash/one-run-resumed holds '[ "$(sgsql crash.db "SELECT count(*) || '"','"' || count(DISTINCT run_id) FROM results")" = "6,1" ] && grep -q "resuming the launch after it" "$SG/crash.log"'

# ---- the copy-cost model: at P = 1 a 1 MiB block costs 1 MiB / (10 GB/s) = 104.86 us -----
run simgrid/copy-model 120 $SIM tests/sweeps/simgrid_copy.ini --platform $FT --db "$SG/copy.db" --copy-model 1048576:10
check simgrid/copy-model/charged [ "$(sgsql copy.db "SELECT group_concat(kernel, ',') FROM results WHERE kernel IN ('bruck', 'tra') AND abs(median_s - 104.8576e-6) < 0.1e-6")" = "bruck,tra" ]
run simgrid/copy-free 120 $SIM tests/sweeps/simgrid_copy.ini --platform $FT --db "$SG/copy-free.db" --copy-model none
check simgrid/copy-model/free-without [ "$(sgsql copy-free.db "SELECT count(*) FROM results WHERE kernel IN ('bruck', 'tra') AND median_s < 1e-6")" = 2 ]

# ---- the autotuner on the simulation backend: one launch over both P -------------------
run simgrid/tune 120 $SIM tests/sweeps/simgrid_tune.ini --platform $FT --db "$SG/tune.db" --copy-model none --tune 50% --out "$SG/tuning"
check simgrid/tune/rows [ "$(sgsql tune.db "SELECT (count(*) <= 18) || ',' || (count(*) = sum(chosen_by = 'tuner')) || ',' || (count(DISTINCT tuner_step) = count(*)) || ',' || group_concat(DISTINCT P) || ',' || sum(status = 'ok' AND validated = 1) FROM (SELECT * FROM results ORDER BY P)")" = "1,1,1,4,8,$(sgsql tune.db "SELECT count(*) FROM results")" ]
check simgrid/tune/one-launch [ "$(sgsql tune.db "SELECT count(*) || ',' || backend || ',' || world_size FROM runs")" = "1,simgrid,8" ]
# the search started from the platform's prior: the model tier's prices of the launch's
# candidates, kept beside the database and recorded with the run
check simgrid/tune/prior-recorded holds '[ -s "$SG/tune.prior.tsv" ] && [ "$(sgsql tune.db "SELECT tuner_prior FROM runs")" = "$SG/tune.prior.tsv platform=$(grep "^# platform: " "$SG/tune.prior.tsv" | cut -d" " -f3-) lines=$(grep -vc "^#" "$SG/tune.prior.tsv") used=$(grep -vc "^#" "$SG/tune.prior.tsv")" ]'
check simgrid/tune/tuning-file holds 'grep -q "\"mpi_library\": \"SimGrid SMPI\"" "$SG/tuning/a2a-tuning.json" && [ "$(grep -c "\"kernel\": " "$SG/tuning/a2a-tuning.json")" -ge 2 ]'
$SIM tests/sweeps/simgrid_tune.ini --platform $FT --db "$SG/tune-bad.db" --copy-model none --tune 50% --validate-up-to 4 > /dev/null 2> "$SG/tune-bad.err"; rc=$?
check simgrid/tune/mixed-validation-refused holds '[ $rc -eq 2 ] && [ "$(wc -l < "$SG/tune-bad.err")" -eq 1 ] && grep -q "on both sides of --validate-up-to 4" "$SG/tune-bad.err" && [ ! -e "$SG/tune-bad.db" ]'

# ---- bad platform files: one line, exit 2 ----------------------------------------------
bad_platform() { # bad_platform NAME PLATFORM EXPECTED-TEXT
    $SIM tests/sweeps/simgrid_p256.ini --platform "$2" --db "$SG/bad.db" > /dev/null 2> "$SG/bad.err"
    local rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "$3" "$SG/bad.err" && [ "$(wc -l < "$SG/bad.err")" -eq 1 ]; then
        pass "simgrid/bad-platform/$1"
    else
        fail "simgrid/bad-platform/$1" "exit $rc, wanted '$3', got: $(head -c 300 "$SG/bad.err")"
    fi
}
bad_platform missing "$SG/no-such.xml" "no-such.xml: cannot read the platform file"
printf '<?xml version="1.0"?>\n<platform version="4.1">\n  <cluster id="c" radical="0-1"\n</platform>\n' > "$SG/broken.xml"
bad_platform malformed "$SG/broken.xml" "broken.xml:4: not a well-formed platform file"
printf '<?xml version="1.0"?>\n<platform version="4.1">\n  <cluster id="c" prefix="n" suffix="" radical="0-1" speed="1Gf" core="2" bw="1GBps" lat="1us"/>\n</platform>\n' > "$SG/tiny.xml"
bad_platform too-small "$SG/tiny.xml" "P = 256 needs more cores than the platform"
check simgrid/bad-platform/nothing-recorded [ ! -e "$SG/bad.db" ]

# ---- a schema-2 database gains the schema-3 columns and keeps its rows -------------------
cp tests/data/schema2.db "$SG/old.db"   # written by a2atune before schema 3: 39 results, 2 runs
run simgrid/schema2-opens 120 $SIM tests/sweeps/simgrid_copy.ini --platform $FT --db "$SG/old.db" --copy-model none
check simgrid/schema2-migrated [ "$(sgsql old.db "SELECT (SELECT user_version FROM pragma_user_version) || ',' || sum(run_id <= 2) || ',' || sum(run_id <= 2 AND validated IS NULL) || ',' || sum(run_id > 2 AND validated IS NOT NULL) || ',' || count(DISTINCT run_id) FROM results")" = "5,39,39,3,3" ]
