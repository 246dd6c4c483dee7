# tests/parts/layers.sh — the layer checker tests/layers.py (sourced by tests/run.sh:
# `tests/run.sh layers`, a second). First on a small tree made here with one breach of each
# kind (includes, then the symbols of its objects), which must all be reported (so the
# checker can fail), then on the real tree and its objects (build/openmpi), which must have
# none; last, a small Python package with one breach of each kind of the import check.
L="$WORK/layers"
mkdir -p "$L"/tree/{include,kernels/common,kernels/uniform,kernels/nonuniform,kernels/tuned,harness/db,harness/commands,apps,misc}
# mkfile PATH LINE...: PATH in the bad tree, one line per argument
mkfile() { local f="$L/tree/$1"; shift; printf '%s\n' "$@" > "$f"; }
mkfile Makefile 'CPPFLAGS += -Iinclude -Ikernels/common -Iharness/db -Iharness/commands -Iapps'
mkfile include/a2a.h '/* the public API */'
mkfile include/a2a_registry.h '#include "a2a.h"'
mkfile kernels/common/x.h '#include "y.h"'
mkfile kernels/common/y.h '#include "a2a.h"' '#include "x.h"'
mkfile kernels/uniform/u.h '#include "a2a.h"'
mkfile kernels/uniform/bad.c '#include "a2a.h"' '#include "db.h"' '#include "missing.h"' \
       '#include "a2a_registry.h"' '#include "u.h"'
mkfile kernels/nonuniform/family.c '#include "../uniform/u.h"'
mkfile kernels/registry.c '#include "a2a_registry.h"'
mkfile kernels/tuned/dispatch.c '#include "a2a_registry.h"' '#include "x.h"'
mkfile harness/db/db.h '#include "a2a.h"' '#include "cli.h"'
mkfile harness/commands/cli.h '/* the options of every command */'
mkfile harness/commands/main.c '#include "db.h"' '#include "app.h"'
mkfile harness/commands/run_command.c '#include "db.h"'   # the exception given below is stale here
mkfile apps/app.h '#include "a2a_registry.h"'
mkfile misc/stray.c '#include "a2a.h"'
tests/layers.py "$L/tree" --exception harness/commands/run_command.c apps/graph_counts.h > "$L/bad.txt" 2>&1; rc=$?
check layers/bad-tree-fails [ $rc -eq 1 ]
reported() { grep -qF -- "$1" "$L/bad.txt"; }
check layers/bad-upward holds 'reported "kernels/uniform/bad.c:2: breach: kernels/uniform/bad.c -> harness/db/db.h (harness/db is above kernels/uniform)"'
check layers/bad-unresolved holds 'reported "kernels/uniform/bad.c:3: breach: kernels/uniform/bad.c -> \"missing.h\" (unresolved include)"'
check layers/bad-registry holds 'reported "kernels/uniform/bad.c:4: breach: kernels/uniform/bad.c -> include/a2a_registry.h (kernels see the registry only"'
check layers/bad-family holds 'reported "kernels/nonuniform/family.c:1: breach: kernels/nonuniform/family.c -> kernels/uniform/u.h (kernels/nonuniform and kernels/uniform are one layer"'
check layers/bad-harness-apps holds 'reported "harness/commands/main.c:2: breach: harness/commands/main.c -> apps/app.h (the harness uses apps/ only through the app command"'
check layers/bad-cycle holds 'reported "kernels/common/y.h:2: breach: kernels/common/y.h -> kernels/common/x.h (include cycle: kernels/common/x.h -> kernels/common/y.h -> kernels/common/x.h)"'
check layers/bad-unknown-folder holds 'reported "misc/stray.c:1: breach: misc/stray.c -> include/a2a.h (folder misc not in the layer table)"'
check layers/bad-stale-exception holds 'reported "breach: harness/commands/run_command.c -> apps/graph_counts.h (stale exception"'
check layers/bad-harness-upward holds 'reported "harness/db/db.h:2: breach: harness/db/db.h -> harness/commands/cli.h (harness/commands is above harness/db)"'
check layers/bad-nothing-else holds '[ "$(tail -n 1 "$L/bad.txt")" = "9 breaches, 13 folder arrows" ]'
[ $rc -eq 1 ] || sed 's/^/    /' "$L/bad.txt"

# symbols: an object of kernels/common using a function only harness/ defines is an arrow
# up (declarations hide it from the include check); MPI's own names interposed above
# (preload/) and uses of a lower layer's symbols are not
mkdir -p "$L/obj/kernels/common" "$L/obj/harness/commands"
mkfile kernels/common/low.c 'int upper_thing(void); int MPI_Barrier(int);' \
       'int low(void) { return upper_thing() + MPI_Barrier(0); }'
mkfile harness/commands/upper.c 'int low(void);' 'int upper_thing(void) { return low(); }' \
       'int MPI_Barrier(int c) { return c; }'
gcc -c "$L/tree/kernels/common/low.c" -o "$L/obj/kernels/common/low.o"
gcc -c "$L/tree/harness/commands/upper.c" -o "$L/obj/harness/commands/upper.o"
tests/layers.py "$L/tree" --objects "$L/obj" > "$L/sym.txt" 2>&1
check layers/bad-symbol holds 'grep -qxF "$L/obj/kernels/common/low.o: breach: kernels/common/low.c -> harness/commands/upper.c (symbol upper_thing: harness/commands is above kernels/common)" <(sed "s|^[^ ]*/obj/|$L/obj/|" "$L/sym.txt")'
check layers/bad-symbol-only-that holds '[ "$(grep -c "(symbol " "$L/sym.txt")" = 1 ]'

# the real tree: no breach, neither in its includes nor in the symbols of its objects
tests/layers.py --objects build/openmpi > "$L/real.txt" 2>&1; rc=$?
check layers/real-tree-clean holds '[ $rc -eq 0 ] && grep -qx "0 breaches, [0-9]* folder arrows" "$L/real.txt"'
[ $rc -eq 0 ] || sed 's/^/    /' "$L/real.txt"

# the Python tools: a small package with one breach of each kind (an import up from inside
# a function, one within a layer, a package outside the table, an unresolved import, a
# cycle across packages and one inside a package through a function's import), all of
# which must be reported
P="$L/pytree"
mkdir -p "$P"/scripts/a2a_tools/{core,figures,simulation,tuner,misc}
mkpy() { local f="$P/scripts/a2a_tools/$1"; shift; printf '%s\n' "$@" > "$f"; }
printf 'CPPFLAGS += -Iinclude\n' > "$P/Makefile"
mkpy __init__.py '"""the package"""'
for d in core figures simulation tuner misc; do mkpy $d/__init__.py '"""a subpackage"""'; done
mkpy core/low.py 'def f():' '    from ..figures import high' '    return high'
mkpy figures/high.py 'from ..core import low' 'from .missing import nothing'
mkpy simulation/sim.py 'from ..figures.high import low'
mkpy misc/stray.py 'from a2a_tools.core import low'
mkpy tuner/a.py 'from . import b'
mkpy tuner/b.py 'def g():' '    from . import a' '    return a'
tests/layers.py "$P" > "$L/py.txt" 2>&1; rc=$?
check layers/py-bad-tree-fails [ $rc -eq 1 ]
S=scripts/a2a_tools
py_reported() { grep -qxF -- "$1" "$L/py.txt"; }
check layers/py-upward-in-function holds 'py_reported "$S/core/low.py:2: breach: $S/core/low.py -> $S/figures/high.py ($S/figures is above $S/core)"'
check layers/py-one-layer holds 'py_reported "$S/simulation/sim.py:1: breach: $S/simulation/sim.py -> $S/figures/high.py ($S/simulation and $S/figures are one layer: they may not import each other)"'
check layers/py-unknown-package holds 'py_reported "$S/misc/stray.py:1: breach: $S/misc/stray.py -> $S/core/low.py (folder $S/misc not in the layer table)"'
check layers/py-unresolved holds 'py_reported "$S/figures/high.py:2: breach: $S/figures/high.py -> \".missing\" (unresolved import)"'
check layers/py-cycle holds 'py_reported "$S/figures/high.py:1: breach: $S/figures/high.py -> $S/core/low.py (import cycle: $S/core/low.py -> $S/figures/high.py -> $S/core/low.py)"'
check layers/py-cycle-in-function holds 'py_reported "$S/tuner/b.py:2: breach: $S/tuner/b.py -> $S/tuner/a.py (import cycle: $S/tuner/a.py -> $S/tuner/b.py -> $S/tuner/a.py)"'
check layers/py-nothing-else holds '[ "$(grep -c ": breach: " "$L/py.txt")" = 6 ]'
[ $rc -eq 1 ] || sed 's/^/    /' "$L/py.txt"
