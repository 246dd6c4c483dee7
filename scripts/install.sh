#!/bin/sh
# scripts/install.sh — the work of `make install` and `make uninstall`; the Makefile gives
# PREFIX (absolute), DESTDIR, BUILD, VERSION, PYTHON, LIBA2A_LIBS and MPICC in the environment.
#   install    under DESTDIR/PREFIX: bin/a2atune and bin/a2a (a launcher of the Python tools),
#              lib/liba2a.a, liba2a.so, liba2a_preload.so, include/a2a*.h, lib/pkgconfig/a2a.pc,
#              share/a2atune/ (README.md, docs/, sweeps/, platforms/, workloads/data/, and the
#              Python tools as scripts/a2a and scripts/a2a_tools/, laid out as in the source
#              tree so that they find the sweeps and platforms beside them), and the module file
#              share/modulefiles/a2atune/VERSION (Tcl: Lmod and Environment Modules). Every file
#              written and every folder made is listed in share/a2atune/installed.
#   uninstall  removes every file listed there, then every folder it lists that is left empty
#              (with the caches Python wrote into the tools' folders).
set -eu
cd "$(dirname "$0")/.."
case "${PREFIX:-}" in
    /*) ;;
    *) echo "install: PREFIX must be an absolute path (PREFIX=$PREFIX)" >&2; exit 2 ;;
esac
PREFIX=${PREFIX%/}
ROOT="${DESTDIR:-}$PREFIX"
MANIFEST=share/a2atune/installed

# ---- uninstall ---------------------------------------------------------------------------
if [ "${1:-}" = uninstall ]; then
    if [ ! -f "$ROOT/$MANIFEST" ]; then
        echo "uninstall: no $ROOT/$MANIFEST: make install has put nothing there" >&2
        exit 1
    fi
    entries=$(cat "$ROOT/$MANIFEST")
    files=0 folders=0
    for f in $(echo "$entries" | sed -n 's/^file //p'); do
        rm -f "$ROOT/$f" && files=$((files + 1))
    done
    # the deepest folders first
    for d in $(echo "$entries" | sed -n 's/^folder //p' | awk '{ print length($0), $0 }' |
               sort -rn | cut -d' ' -f2-); do
        target=$ROOT/$d
        [ "$d" = . ] && target=$ROOT
        rm -rf "$target/__pycache__"
        rmdir "$target" 2>/dev/null && folders=$((folders + 1))
    done
    echo "uninstall: removed $files files and $folders folders from $ROOT"
    exit 0
fi
[ "${1:-}" = install ] || { echo "usage: scripts/install.sh install|uninstall" >&2; exit 2; }

# ---- install -----------------------------------------------------------------------------
list=$(mktemp "${TMPDIR:-/tmp}/a2a-install.XXXXXX")
made=$(mktemp -d "${TMPDIR:-/tmp}/a2a-install.XXXXXX")
trap 'rm -rf "$list" "$made"' EXIT
# what an earlier install into this prefix wrote and still exists stays listed
if [ -f "$ROOT/$MANIFEST" ]; then
    while read -r kind path; do
        [ -e "$ROOT/$path" ] && echo "$kind $path" >> "$list"
    done < "$ROOT/$MANIFEST"
fi

# folder REL: makes ROOT/REL and each missing folder above it (up to ROOT), listing them
folder() {
    [ -d "$ROOT/$1" ] && return 0
    if [ "$1" = . ]; then
        mkdir -p "$ROOT"
    else
        folder "$(dirname "$1")"
        mkdir "$ROOT/$1"
    fi
    echo "folder $1" >> "$list"
}
# put MODE SOURCE REL: SOURCE copied to ROOT/REL with MODE, listed
put() {
    folder "$(dirname "$3")"
    rm -f "$ROOT/$3"
    cp "$2" "$ROOT/$3"
    chmod "$1" "$ROOT/$3"
    echo "file $3" >> "$list"
}
# put_tree MODE FIND-ARGUMENTS...: every file find selects, at its path under share/a2atune
put_tree() {
    mode=$1
    shift
    for f in $(find "$@" -type f ! -path '*/__pycache__/*' | sort); do
        put "$mode" "$f" "share/a2atune/$f"
    done
}

# the programs and the library
put 755 "$BUILD/a2atune" bin/a2atune
put 644 "$BUILD/liba2a.a" lib/liba2a.a
put 755 "$BUILD/liba2a.so" lib/liba2a.so
put 755 "$BUILD/liba2a_preload.so" lib/liba2a_preload.so
for h in include/a2a*.h; do
    put 644 "$h" "include/$(basename "$h")"
done

# the data and the guides, as in the source tree
put 644 README.md share/a2atune/README.md
put_tree 644 docs
put_tree 644 sweeps -name '*.ini'
put_tree 644 platforms
put_tree 644 workloads/data

# the Python tools: the package whatever its subpackages, and the launcher bin/a2a, which
# runs them with the python3 that has numpy and matplotlib and this prefix's a2atune
put 755 scripts/a2a share/a2atune/scripts/a2a
put_tree 644 scripts/a2a_tools
python=${PYTHON:-}
if [ -z "$python" ]; then
    for p in python3 /usr/bin/python3; do
        c=$(command -v "$p" 2>/dev/null) || continue
        if "$c" -c 'import numpy, matplotlib' 2>/dev/null; then
            python=$c
            break
        fi
    done
fi
if [ -z "$python" ]; then
    python=python3
    echo "install: no python3 here imports numpy and matplotlib, which a2a needs: install" \
         "them (pip install --user . in the source tree: pyproject.toml) or give PYTHON=..."
fi
cat > "$made/a2a" <<EOF
#!/bin/sh
# a2a — the a2atune tools over a results database (a2a --help), installed by make install:
# the Python tools of ../share/a2atune with this prefix's a2atune (A2ATUNE; A2A_PYTHON: the
# python3 that runs them, by default the one make install found with numpy and matplotlib)
prefix=\$(dirname "\$(dirname "\$(readlink -f "\$0")")")
A2ATUNE=\${A2ATUNE:-\$prefix/bin/a2atune}
export A2ATUNE
exec "\${A2A_PYTHON:-$python}" "\$prefix/share/a2atune/scripts/a2a" "\$@"
EOF
put 755 "$made/a2a" bin/a2a

# pkg-config: mpicc app.c $(pkg-config --cflags --libs a2a)
cat > "$made/a2a.pc" <<EOF
prefix=$PREFIX
libdir=\${prefix}/lib
includedir=\${prefix}/include
mpicc=$MPICC

Name: a2a
Description: liba2a, a2atune's all-to-all algorithms with MPI's signatures (built with the MPI of \${mpicc})
Version: $VERSION
Cflags: -I\${includedir}
Libs: -L\${libdir} -la2a
Libs.private: $LIBA2A_LIBS
EOF
put 644 "$made/a2a.pc" lib/pkgconfig/a2a.pc

# the module file (Tcl, which Lmod reads too): module use PREFIX/share/modulefiles
cat > "$made/module" <<EOF
#%Module1.0
## a2atune $VERSION, installed by make install; built with $MPICC (load the same MPI first)
proc ModulesHelp { } {
    puts stderr "a2atune $VERSION: autotuning benchmark harness for MPI all-to-all collectives."
    puts stderr "  a2atune   sweeps of all-to-all algorithms into SQLite (mpirun -n N a2atune run SWEEP)"
    puts stderr "  a2a       the tools over its databases: query, heatmap, tune, submit, ..."
    puts stderr "  liba2a    mpicc app.c \\\$(pkg-config --cflags --libs a2a)"
    puts stderr "Built with $MPICC. Sweeps, platforms and guides: $PREFIX/share/a2atune"
}
module-whatis "a2atune $VERSION: autotuning benchmark harness for MPI all-to-all collectives"
conflict a2atune
set prefix $PREFIX
setenv A2ATUNE_ROOT \$prefix
prepend-path PATH \$prefix/bin
prepend-path LD_LIBRARY_PATH \$prefix/lib
prepend-path PKG_CONFIG_PATH \$prefix/lib/pkgconfig
EOF
put 644 "$made/module" "share/modulefiles/a2atune/$VERSION"

echo "file $MANIFEST" >> "$list"
sort -u "$list" > "$ROOT/$MANIFEST"
echo "install: $(grep -c '^file ' "$ROOT/$MANIFEST") files under $ROOT (listed in $MANIFEST);" \
     "module use $PREFIX/share/modulefiles; module load a2atune"
