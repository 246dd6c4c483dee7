#!/bin/bash
# make_fixture.sh DB — the fixture database of the scripts tests, from two real short
# sweeps under Open MPI (a few seconds):
#   run 1: tests/scripts/fixture.ini on 4 ranks (oversubscribed on 2 cores), every section
#   run 2: its [tra] section on 2 ranks: P = 2 ok, P = 3, 4 recorded as skipped
set -eu
db=$1
cd "$(dirname "$0")/../.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
[ -x ./a2atune ] || make >/dev/null
rm -f "$db" "$db-wal" "$db-shm"
timeout -k 5 90 mpirun.openmpi --oversubscribe -n 4 ./a2atune run tests/scripts/fixture.ini \
    --db "$db" --quiet
timeout -k 5 60 mpirun.openmpi --oversubscribe -n 2 ./a2atune run tests/scripts/fixture.ini \
    --section tra --db "$db" --quiet
