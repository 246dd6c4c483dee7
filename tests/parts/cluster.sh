# tests/parts/cluster.sh — a2atune built, installed and used as on a cluster's login node
# (sourced by tests/run.sh: run, check, holds, pass, fail, sql, $WORK; `tests/run.sh
# cluster`, about 4 minutes on 2 cores). First the Spack recipe against the Makefile
# (tests/spack_check.py, and a broken copy it must reject). Then, as a user made here without
# root (useradd; skipped when not root), from a copy of the source tree, twice:
#   mpich:   an MPI wrapper named `cc` in a prefix of the user's (a script that logs its calls
#            and runs Debian's mpicc.mpich): make -j2 MPICC=~/mpich/bin/cc PAPI=no FFTW=no
#            PREFIX=~/mpich/a2a install;
#   openmpi: the same with Open MPI's wrapper as ~/openmpi/bin/mpicc-site, and HWLOC=no too.
# Each checks: the wrapper compiled every object and linked the programs; no -Werror and no
# warning in a user's build; one line per optional library left out; no sudo or apt-get tried;
# `module use PREFIX/share/modulefiles; module load a2atune` (Lmod or Environment Modules)
# puts a2atune and a2a on PATH; from another folder a small sweep runs (mpirun -n 2), a2a
# queries it, draws the heatmap and writes the tuning files, of the library's family whatever
# the wrapper's name; a program built with `pkg-config --cflags --libs a2a` gets MPI_Alltoall's
# bytes from A2A_Alltoall_tra through the installed liba2a.so; `a2atune counters` says in one
# line that PAPI is not built in (exit 0), `a2atune app fft` that FFTW is not (one line, exit
# 2); make uninstall leaves the prefix as it was. The MPICH case also installs with DESTDIR,
# installs the Python tools with pip into a virtual environment (pyproject.toml), and checks
# that `scripts/install-deps.sh --if-possible` without root or sudo lists what is missing and
# installs nothing.
CL_T0=$SECONDS
CL="$WORK/cluster"
mkdir -p "$CL"

# ---- the Spack recipe follows the Makefile; a recipe out of step is reported ----------------
run cluster/spack-recipe-in-step 120 /usr/bin/python3 tests/spack_check.py
mkdir -p "$CL/stale/spack/packages/a2atune"
cp Makefile "$CL/stale/"
echo 9.9.9 > "$CL/stale/VERSION"
grep -v 'variant("hwloc"' spack/packages/a2atune/package.py > "$CL/stale/spack/packages/a2atune/package.py"
/usr/bin/python3 tests/spack_check.py "$CL/stale" > "$CL/stale.txt" 2>&1; cl_rc=$?
check cluster/spack-check-can-fail holds '[ $cl_rc -eq 1 ] && grep -q "lack VERSION.s 9.9.9" "$CL/stale.txt" \
    && grep -q "^variants \[.fftw., .papi.\], but the Makefile.s optional libraries are" "$CL/stale.txt" \
    || { sed "s/^/    /" "$CL/stale.txt" | head -n 5; false; }'

if [ "$(id -u)" -ne 0 ]; then
    printf 'SKIP %-44s %s\n' "cluster/unprivileged-user" "(not root: useradd needs root)"
else
CL_USER=a2atune-cluster
CL_HOME=$(mktemp -d /tmp/a2atune-cluster.XXXXXX)   # outside $WORK, which only root may enter
userdel "$CL_USER" > /dev/null 2>&1
useradd -M -d "$CL_HOME" -s /bin/bash "$CL_USER"
chmod 755 "$CL_HOME"
# the source tree as a user would have it: the tracked and new files, no build
mkdir "$CL_HOME/src"
if git rev-parse --git-dir > /dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard |
        tar --null -T - --ignore-failed-read -cf - 2> /dev/null | tar -C "$CL_HOME/src" -xf -
else
    tar --exclude=./build --exclude=./results --exclude=./.git -cf - . | tar -C "$CL_HOME/src" -xf -
fi
# sudo and apt-get that only log their call: a build must try neither
mkdir -p "$CL_HOME/trap"
for cl_cmd in sudo apt-get apt; do
    printf '#!/bin/sh\necho "%s $*" >> "$HOME/trapped.log"\nexit 1\n' "$cl_cmd" > "$CL_HOME/trap/$cl_cmd"
done
chmod 755 "$CL_HOME/trap/"*
chown -R "$CL_USER": "$CL_HOME"
# the module system Debian's lmod or environment-modules installs (make setup: lmod)
CL_MODULES=""
for cl_init in /usr/share/lmod/lmod/init/bash /usr/share/modules/init/bash; do
    [ -f "$cl_init" ] && { CL_MODULES=$cl_init; break; }
done
check cluster/module-system-installed holds '[ -n "$CL_MODULES" ] || { echo "    neither Lmod nor Environment Modules (make setup installs lmod)"; false; }'
# cluster_user SCRIPT: SCRIPT run by bash as the user, in a clean environment (no
# OMPI_ALLOW_RUN_AS_ROOT, no test settings), with the logging sudo and apt-get first on PATH
cat > "$WORK/bin/cluster_user" <<EOF
#!/bin/sh
exec runuser -u $CL_USER -- env -i HOME=$CL_HOME USER=$CL_USER LOGNAME=$CL_USER LANG=C.UTF-8 \
    PATH=$CL_HOME/trap:/usr/local/bin:/usr/bin:/bin bash -c "cd $CL_HOME && \$1"
EOF
chmod +x "$WORK/bin/cluster_user"
cl_file() { cat "$CL_HOME/$1" 2>/dev/null; }

# cluster_case NAME WRAPPER REAL-WRAPPER LAUNCHER LIBRARY MAKE-VARIABLES: the build, install,
# use and uninstall of one MPI as the user (see the top of this file)
cluster_case() {
    local mpi=$1 wrapper=$2 real=$3 launcher=$4 library=$5 vars=$6
    local dir="$CL_HOME/$mpi" build="build/$wrapper"
    mkdir -p "$dir/bin" "$dir/a2a/bin" "$dir/work"
    printf '#!/bin/sh\necho "$*" >> "$HOME/%s/wrapper.log"\nexec %s "$@"\n' "$mpi" "$real" > "$dir/bin/$wrapper"
    chmod 755 "$dir/bin/$wrapper"
    echo "a tool of the site's" > "$dir/a2a/bin/site-tool"     # the prefix holds others' files
    chown -R "$CL_USER": "$dir"
    local before
    before=$(cd "$dir/a2a" && find . | sort | xargs -d '\n' ls -ld | awk '{ print $1, $5, $NF }')
    local make_vars="MPICC=\$HOME/$mpi/bin/$wrapper PREFIX=\$HOME/$mpi/a2a $vars"

    run "cluster/$mpi/build-install" 900 cluster_user "cd src && make -j2 $make_vars install > ../$mpi/build.log 2>&1"
    local objects missing
    objects=$(cd "$CL_HOME/src" && find "$build" -name '*.o' | sort)
    missing=$(for o in $objects; do grep -qF -- "-o $o" "$dir/wrapper.log" || echo "$o"; done)
    check "cluster/$mpi/wrapper-compiled-every-object" holds '[ "$(echo "$objects" | wc -w)" -gt 50 ] && [ -z "$missing" ] \
        && grep -q -- "-o $build/a2atune\$" "$dir/wrapper.log" && grep -q -- "-o $build/liba2a.so\$" "$dir/wrapper.log" \
        || { echo "    objects: $(echo "$objects" | wc -w); not by the wrapper: $(echo $missing | head -c 200)"; false; }'
    check "cluster/$mpi/user-build-no-werror-no-warning" holds '! grep -q -- "-Werror" "$dir/wrapper.log" \
        && ! grep -q "warning:" "$dir/build.log" || { grep -m 3 "warning:" "$dir/build.log" | sed "s/^/    /"; false; }'
    check "cluster/$mpi/one-line-per-library-left-out" holds '[ "$(grep -c "^counters: PAPI off (PAPI=no), software counters only$" "$dir/build.log")" = 1 ] \
        && [ "$(grep -c "^apps: FFTW 3 off (FFTW=no), no a2atune app fft$" "$dir/build.log")" = 1 ] \
        && [ "$(grep -c "^provenance: hwloc off" "$dir/build.log")" = "$(case "$vars" in *HWLOC=no*) echo 1;; *) echo 0;; esac)" ]'
    check "cluster/$mpi/no-sudo-no-apt" holds '[ ! -e "$CL_HOME/trapped.log" ] || { sed "s/^/    /" "$CL_HOME/trapped.log"; false; }'

    # the user's session: the module, then everything from another folder
    cat > "$dir/session.sh" <<EOF
cd "\$HOME/$mpi"
. "${CL_MODULES:-/dev/null}" 2> /dev/null
module use "\$HOME/$mpi/a2a/share/modulefiles" > module.out 2>&1
module load a2atune >> module.out 2>&1
{ command -v a2atune; command -v a2a; } > which.txt
cd work
cat > small.ini <<'INI'
; TRA's radices, Bruck, and the library's own algorithms at P = 2
iterations = 5
warmup = 1
timeout = 60
P = 2
S = 16, 4K
[tra]
family = uniform
kernels = tra, bruck
radix = 2..P
[vendor]
family = uniform
kernels = vendor
vendor_algorithm = 0..4
INI
$launcher a2atune run small.ini --db small.db --quiet > run.out 2>&1; echo \$? > run.rc
a2a query --db small.db --sql "SELECT count(*) FROM results WHERE status = 'ok'" > query.out 2>&1; echo \$? > query.rc
a2a heatmap --db small.db --kernel tra --out figures > heatmap.out 2>&1; echo \$? > heatmap.rc
a2a tune --db small.db --out tuning > tune.out 2>&1; echo \$? > tune.rc
a2atune counters > counters.out 2>&1; echo \$? > counters.rc
$launcher a2atune app fft --n 8x8 > fft.out 2>&1; echo \$? > fft.rc
cat > tra.c <<'C'
/* A2A_Alltoall_tra next to MPI_Alltoall: the same bytes on every rank */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <a2a.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    const int n = 1000;
    unsigned char *s = malloc((size_t)n * P), *r = malloc((size_t)n * P), *ref = malloc((size_t)n * P);
    for (int i = 0; i < n * P; i++)
        s[i] = (unsigned char)(rank * 31 + i * 7);
    MPI_Alltoall(s, n, MPI_BYTE, ref, n, MPI_BYTE, MPI_COMM_WORLD);
    memset(r, 0xee, (size_t)n * P);
    int rc = A2A_Alltoall_tra(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD, 2, NULL);
    int same = rc == MPI_SUCCESS && memcmp(r, ref, (size_t)n * P) == 0, all = 0;
    MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("A2A_Alltoall_tra on %d ranks: %s\n", P, all ? "the bytes of MPI_Alltoall" : "wrong");
    free(s), free(r), free(ref);
    MPI_Finalize();
    return all ? 0 : 1;
}
C
"\$HOME/$mpi/bin/$wrapper" tra.c \$(pkg-config --cflags --libs a2a) -o tra > tra-build.out 2>&1; echo \$? > tra-build.rc
ldd ./tra > tra.ldd 2>&1
$launcher ./tra > tra.out 2>&1; echo \$? > tra.rc
EOF
    chown "$CL_USER": "$dir/session.sh"
    run "cluster/$mpi/session" 600 cluster_user "bash $mpi/session.sh"
    local w="$mpi/work"
    check "cluster/$mpi/module-puts-a2atune-and-a2a-on-path" holds '[ "$(cl_file "$mpi/which.txt")" = "$(printf "%s\n%s" "$dir/a2a/bin/a2atune" "$dir/a2a/bin/a2a")" ] \
        || { cat "$dir/which.txt" "$dir/module.out" 2>&1 | head -n 5 | sed "s/^/    /"; false; }'
    check "cluster/$mpi/sweep-runs" holds '[ "$(cl_file "$w/run.rc")" = 0 ] && grep -q "^a2atune: finished in .*: 14 ok, 0 wrong, 0 error, 0 skipped" "$dir/work/run.out" \
        || { tail -n 5 "$dir/work/run.out" | sed "s/^/    /"; false; }'
    check "cluster/$mpi/a2a-query" holds '[ "$(cl_file "$w/query.rc")" = 0 ] && [ "$(tail -n 1 "$dir/work/query.out" | tr -d " ")" = 14 ] \
        || { tail -n 5 "$dir/work/query.out" | sed "s/^/    /"; false; }'
    check "cluster/$mpi/a2a-heatmap" holds '[ "$(cl_file "$w/heatmap.rc")" = 0 ] && [ -s "$dir/work/figures/heatmap_tra_vs_vendor_run1_constant.png" ] \
        || { tail -n 5 "$dir/work/heatmap.out" | sed "s/^/    /"; false; }'
    check "cluster/$mpi/a2a-tune-files-of-the-library" holds '[ "$(cl_file "$w/tune.rc")" = 0 ] \
        && grep -q "\"mpi_library\": \"$library\"" "$dir/work/tuning/a2a-tuning.json" \
        && [ -s "$dir/work/tuning/$(case "$library" in MPICH) echo mpich-tuning.json;; *) echo openmpi-rules.conf;; esac)" ] \
        || { tail -n 5 "$dir/work/tune.out" | sed "s/^/    /"; false; }'
    check "cluster/$mpi/counters-say-papi-not-built-in" holds '[ "$(cl_file "$w/counters.rc")" = 0 ] \
        && [ "$(grep -c "PAPI" "$dir/work/counters.out")" = 1 ] && grep -q "^PAPI: not built in" "$dir/work/counters.out" \
        && grep -q "^  task-clock " "$dir/work/counters.out" || { head -n 5 "$dir/work/counters.out" | sed "s/^/    /"; false; }'
    check "cluster/$mpi/fft-says-fftw-not-built-in" holds '[ "$(cl_file "$w/fft.rc")" = 2 ] \
        && [ "$(grep -c "^a2atune:" "$dir/work/fft.out")" = 1 ] && grep -q "^a2atune: app: fft: FFTW 3 is not built in" "$dir/work/fft.out" \
        || { head -n 5 "$dir/work/fft.out" | sed "s/^/    /"; false; }'
    check "cluster/$mpi/pkg-config-program-gets-mpi-bytes" holds '[ "$(cl_file "$w/tra-build.rc")" = 0 ] && [ "$(cl_file "$w/tra.rc")" = 0 ] \
        && grep -q "^A2A_Alltoall_tra on 2 ranks: the bytes of MPI_Alltoall$" "$dir/work/tra.out" \
        && grep -q "liba2a.so => $dir/a2a/lib/liba2a.so" "$dir/work/tra.ldd" \
        || { cat "$dir/work/tra-build.out" "$dir/work/tra.out" | head -n 5 | sed "s/^/    /"; false; }'
    check "cluster/$mpi/session-no-sudo-no-apt" holds '[ ! -e "$CL_HOME/trapped.log" ]'

    run "cluster/$mpi/uninstall" 120 cluster_user "cd src && make $make_vars uninstall > ../$mpi/uninstall.log 2>&1"
    local after
    after=$(cd "$dir/a2a" && find . | sort | xargs -d '\n' ls -ld | awk '{ print $1, $5, $NF }')
    check "cluster/$mpi/uninstall-leaves-the-prefix-as-before" holds '[ "$after" = "$before" ] \
        || { diff <(echo "$before") <(echo "$after") | head -n 5 | sed "s/^/    /"; false; }'
}

cluster_case mpich cc mpicc.mpich "mpirun.mpich -n 2" MPICH "PAPI=no FFTW=no"

# ---- the MPICH build again: DESTDIR, pip, setup without rights --------------------------------
CL_MV="MPICC=\$HOME/mpich/bin/cc PAPI=no FFTW=no PREFIX=/opt/a2atune DESTDIR=\$HOME/stage"
run cluster/destdir-install 300 cluster_user "cd src && make -j2 $CL_MV install > ../destdir.log 2>&1"
check cluster/destdir-names-the-prefix holds '[ -x "$CL_HOME/stage/opt/a2atune/bin/a2atune" ] \
    && grep -qx "set prefix /opt/a2atune" "$CL_HOME/stage/opt/a2atune/share/modulefiles/a2atune/$(cat VERSION)" \
    && grep -qx "prefix=/opt/a2atune" "$CL_HOME/stage/opt/a2atune/lib/pkgconfig/a2a.pc"'
run cluster/destdir-uninstall 120 cluster_user "cd src && make $CL_MV uninstall > ../destdir-uninstall.log 2>&1"
check cluster/destdir-uninstall-removes-all holds '[ ! -e "$CL_HOME/stage/opt/a2atune" ] && [ -z "$(find "$CL_HOME/stage" -type f)" ]'

# pip: the Python tools and their declared dependencies (here the system's numpy and
# matplotlib, seen from the virtual environment) from pyproject.toml, on a copy of the tree
if /usr/bin/python3 -c 'import venv, setuptools, wheel' 2> /dev/null && /usr/bin/python3 -m pip --version > /dev/null 2>&1; then
    run cluster/pip-install-in-venv 300 cluster_user "cp -r src pip-src && rm -rf pip-src/build && /usr/bin/python3 -m venv --system-site-packages venv \
        && venv/bin/pip install --no-index --no-deps --no-build-isolation ./pip-src > pip.log 2>&1"
    run cluster/pip-a2a-runs 120 cluster_user "cd mpich/work && PATH=\$HOME/src/build/cc:\$PATH A2ATUNE= \$HOME/venv/bin/a2a query --db small.db \
        --sql \"SELECT count(*) FROM results WHERE status = 'ok'\" > ../pip-query.out 2>&1 && [ \"\$(tail -n 1 ../pip-query.out | tr -d ' ')\" = 14 ] \
        && \$HOME/venv/bin/python -c 'import importlib.metadata as m; print(sorted(m.requires(\"a2atune\")))' > ../pip-requires.out \
        && grep -q matplotlib ../pip-requires.out && grep -q numpy ../pip-requires.out"
else
    printf 'SKIP %-44s %s\n' "cluster/pip-install-in-venv" "(no venv, pip, setuptools or wheel for /usr/bin/python3)"
fi

# make run and make test install packages only with root or sudo without a password: here a
# dpkg-query that finds nothing installed, a sudo that refuses
mkdir -p "$CL_HOME/nopkgs"
printf '#!/bin/sh\nexit 1\n' > "$CL_HOME/nopkgs/dpkg-query"
chmod 755 "$CL_HOME/nopkgs/dpkg-query"
chown -R "$CL_USER": "$CL_HOME/nopkgs"
cluster_user "cd src && PATH=\$HOME/nopkgs:\$PATH scripts/install-deps.sh --if-possible > ../setup.out 2>&1; echo \$? > ../setup.rc"
check cluster/setup-without-rights-lists-and-goes-on holds '[ "$(cl_file setup.rc)" = 0 ] \
    && grep -q "^setup: missing Debian packages: build-essential .* libsimgrid-dev lmod; not installing them" "$CL_HOME/setup.out" \
    && ! grep -q "apt" "$CL_HOME/trapped.log" 2> /dev/null || { cat "$CL_HOME/setup.out" "$CL_HOME/trapped.log" 2>&1 | head -n 5 | sed "s/^/    /"; false; }'
rm -f "$CL_HOME/trapped.log"

cluster_case openmpi mpicc-site mpicc.openmpi "mpirun.openmpi --oversubscribe -n 2" "Open MPI" "PAPI=no FFTW=no HWLOC=no"

userdel "$CL_USER" > /dev/null 2>&1
rm -rf "$CL_HOME" "$WORK/bin/cluster_user"
fi
echo "     (cluster part: $((SECONDS - CL_T0)) s)"
