# tests/parts/online.sh — online tuning through the preload library (A2A_TUNING=online,
# kernels/tuned/online.c). Sourced by tests/run.sh (run, check, holds, pass, fail, $WORK,
# mpirun_openmpi, mpirun_mpich). tests/preload/plain_alltoall --repeat N makes a loop of
# calls at three block sizes (alltoall as bytes and as ints, alltoallv with zero blocks; on
# MPI_COMM_WORLD and, at P = 4, on two halves) and checks every byte it receives itself.
#   - every rank of a communicator switches at the same call to the same kernel (the
#     decision lines of A2A_VERBOSE=2, tests/preload/expect.py online);
#   - an exploring shape makes one MPI_Allreduce for round 0 (and one at its first call),
#     not one per candidate, and one per candidate in the later rounds: plain_alltoall
#     --count counts them (its own MPI_Allreduce, calling PMPI_Allreduce), as many as the
#     decision lines say;
#   - deferred alltoallv agreement (kernels/tuned/speculate.c): with --cycle the sizes
#     alternate call by call (the ranks' own largest blocks in different powers of two),
#     then a new size breaks the pattern; every rank stops agreeing per call at the same
#     call, takes it up again at the same call when the new size is seen, and defers again
#     once the new shape is decided (expect.py agreement), all bytes right; an exploring
#     call runs on the S predicted from the last one agreed (checked in the reduction that
#     ends its round): in the loop every alltoallv shape explores so, and in
#     the cycle the first wrong prediction takes its call out and agrees per call again;
#   - with the calls' S going round 3 buckets (--period, P = 1..5 in one launch) every
#     exploring call after the first few runs on the shape of the call 3 before (the period
#     of the buckets), decided alike on every rank; a call that breaks the period once is
#     found by the reduction of the shape it was predicted as, and counted for its own; a
#     true period longer than 8 calls (9 or 10) gives the periods up, and its odd shape
#     explores too;
#   - the file written at MPI_Finalize (A2A_TUNING_OUT) is valid and read back: a second
#     run with it exploits it call by call (expect.py a2a) and explores nothing;
#   - a run that ends with shapes still exploring (10 calls a shape) keeps them in the
#     file ("online_partial"), every call but the warm-up's untimed ones exploring (the
#     MPI library's first round is timed in the warm-up); the next run resumes each (expect.py resume: decided, or
#     explored further), its ranks still deciding alike; A2A_TUNING=file reads that file
#     (its rules; the partial records ignored);
#   - A2A_TUNING_CHECK=1 drops a kernel made to give wrong bytes (A2A_TUNING_TEST_CORRUPT),
#     and the bytes stay right; without the check the same hook makes the program fail;
#     wrong predictions of S on two communicators met in turn, one of them at a call the
#     check drops, after a resumed partial record, and at the run's (a communicator's)
#     end, leave every call counted for its own shape (alltoallv_calls_each);
#   - the calls of the deferred agreement's last window are checked at MPI_Finalize: the
#     summary logged there (A2A_VERBOSE) counts every alltoallv call;
#   - a rank without memory for the tuner's state (A2A_TUNING_TEST_NOMEM) leaves every rank
#     on the MPI library at the same calls, the choices agreed (expect.py online); with two
#     live communicators met in turn (--dup: W D D W ...), the last rank, whose states are
#     made later and in the other order, still checks their last windows at MPI_Finalize
#     in the order the others do (else the run hangs there: 1 s each when right);
#   - a communicator freed before MPI_Finalize has its last window checked at MPI_Comm_free
#     (the preload library's; A2A_Comm_free), so its summary counts every call; so has one
#     freed by the delete callback of another communicator's attribute (--free-in-callback),
#     and that callback's MPI_Alltoall on the communicator being freed goes to the MPI
#     library (routed, it left the tuner a state of the freed communicator, on which
#     MPI_Finalize's check crashed Open MPI and aborted MPICH);
#   - a rank that cannot attach the tuner's state to a communicator (MPI_Comm_set_attr
#     failing: A2A_TUNING_TEST_NOMEM=attr) keeps none, and every rank runs the MPI library
#     on it; rank 0 without memory for the end-of-run gather (=gather) skips it on every
#     rank: no crash, no hang, one line, no file;
#   - a partial record in a round without calls is not resumed (no write past the samples),
#     nor one whose next candidate is out of the race;
#   - a winner whose monitoring windows are slower by less than the drift floor (5 %), with
#     no noise (A2A_TUNING_TEST_WINDOW_SCALE=1.03), is kept; 1.5 times slower, explored again
#     once; 2.5 or 4.5 times slower, the fastest candidate that timed faster tried in its
#     place, kept when its window is faster, else the winner back; a run that ends during that trial writes the
#     trial's verdict on the calls it ran, or the winner that drifted when it ran none past
#     its first;
#   - bad values of the variables: one line on stderr and the MPI library, exit 0.
# Open MPI at P = 4, MPICH at P = 2 (it busy-polls: P = 4 takes 11 s). About 20 s.
OD="$WORK/online"
mkdir -p "$OD"
EXPECT="/usr/bin/python3 tests/preload/expect.py"
ONLINE_SIZES="16 1024 16384"
T0=$SECONDS
# alltoallv_calls_each LOG ENTRIES N [LO=N...]: the summaries rank 0 of each communicator
# logs at the end or at MPI_Comm_free (A2A_VERBOSE) list ENTRIES alltoallv shapes in all,
# each counted N calls (LO=N: N for the shapes whose S starts at LO)
alltoallv_calls_each() {
    /usr/bin/python3 -c 'import re, sys
ends = re.findall(r"online at (?:the end|MPI_Comm_free) \[comm \w+, world rank \d+\]: (.*)",
                  open(sys.argv[1]).read())
want = {int(k): int(v) for k, v in (a.split("=") for a in sys.argv[4:])}
counts = [(int(m.group(1)), int(next(n for n in m.groups()[1:] if n))) for text in ends
          for e in text.split("; ") if e.startswith("alltoallv ")
          for m in [re.search(r"S=(\d+)\.\.\d+: (?:.*after (\d+) calls|.*from call \d+ of (\d+) |.*, (\d+) calls \()", e)]]
sys.exit(not (len(counts) == int(sys.argv[2]) and
              all(n == want.get(lo, int(sys.argv[3])) for lo, n in counts)))' "$@"
}
# edit_partial STATEMENT IN OUT: OUT is the tuning file IN with the Python STATEMENT run on
# each record r of its "online_partial" list
edit_partial() {
    /usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[2]))
for r in d["online_partial"]:
    exec(sys.argv[1])
json.dump(d, open(sys.argv[3], "w"))' "$@"
}

for lib in openmpi mpich; do
    B=build/$lib
    launch=mpirun_$lib
    np=$([ $lib = openmpi ] && echo 4 || echo 2)
    pre="LD_PRELOAD=$PWD/$B/liba2a_preload.so"
    prog="$B/tests/preload/plain_alltoall"
    # every shape decided at the end and none exploring again, whatever the timings: bounds
    # by count, not by time. A shape explores at most A2A_TUNING_EXPLORE = E calls (5 to 7
    # candidates, E / n calls each, no warm-up at these E); an alltoallv shape after the
    # first starts exploring after at most 64 calls (the deferred agreement's window that
    # finds the size changed), so all decide by call 64 + E + 1 of R. A winner explores
    # again only after two monitoring windows slower than its median (a timed window of
    # E / n calls every 16 E / n calls): at least 34 E / n calls after its decision, which
    # timing under load can trigger; the world's alltoall shapes get 2 R calls (bytes and
    # ints). E = 48, R = 124: decided by call 113 of 124; exploring again at call 272 at
    # the earliest (6 candidates, 8 calls each), after the run's 248. (E = 30, R = 100 let
    # alltoall P=4 S=1024 (6 candidates, 5 calls) explore again from call ~22 + 170 of 200
    # and end the run exploring.)
    run online/$lib/loop 60 $launch $np env $pre A2A_TUNING=online A2A_VERBOSE=2 \
        A2A_TUNING_EXPLORE=48 A2A_TUNING_OUT="$OD/$lib.json" $prog --repeat 124 - $ONLINE_SIZES
    log="$WORK/online_${lib}_loop.log"
    shapes=$([ $lib = openmpi ] && echo 18 || echo 6)
    if out=$($EXPECT online "$log") && [ "$(echo "$out" | sed -n 's/^online: \([0-9]*\) calls.*/\1/p')" = $shapes ]; then
        pass online/$lib/same-call-same-kernel "($shapes communicator shapes)"
    else
        fail online/$lib/same-call-same-kernel "$(echo "$out" | tail -3)"
    fi
    # an exploring alltoallv call runs on the S predicted (the last agreed one's shape),
    # checked in the reduction at the end of its round's pass: every alltoallv shape
    # of this loop (one S a shape) explores all but its first call without agreeing per call
    check online/$lib/exploring-on-predicted-S holds \
        "[ \"\$(grep -c 'MPI_Alltoallv P=[0-9]* S=[0-9.]* -> .* calls exploring, [1-9][0-9]* of them on a predicted S' '$log')\" = \
           \"\$(grep -c 'MPI_Alltoallv P=[0-9]* S=[0-9.]* -> ' '$log')\" ] &&
         grep -q 'MPI_Alltoallv P=[0-9]* S=[0-9.]* -> ' '$log'"
    # and, decided on predictions checked right, its winner runs on a prediction from the
    # decision on: the world's first alltoallv shape defers the agreement from the very call
    # it decided at (before, ~8 calls later: the settled calls speculate.c waits for)
    first=$(grep -m1 'MPI_Alltoallv P=[0-9]* S=16\.\.31 -> .*\[comm MPI_COMM_WORLD, world rank 0\]' "$log" |
        sed -n 's/.* from call \([0-9]*\) .*/\1/p')
    check online/$lib/deferred-from-the-decision holds \
        "[ -n '$first' ] && grep -q 'agreement on S deferred from call $first (.*\[comm MPI_COMM_WORLD, world rank 0\]' '$log'"

    # round 0 with one reduction, not one per candidate: the program counts the
    # MPI_Allreduce calls on MPI_COMM_WORLD (its own MPI_Allreduce, calling PMPI_Allreduce)
    # over 40 alltoall calls at each of 2 sizes, both shapes decided, no monitoring window
    # yet (due 16 x 5 calls after a decision): the communicator's state (1) and, per shape,
    # its first call (1), round 0 (1) and, in round 2 (at A2A_TUNING_EXPLORE=30 round 1
    # has no calls), one per candidate left after round 0 (the candidates line: those not
    # "out after its first sample"; none when only one is left: it wins at once); alltoall:
    # no make-up pass. What the decision line says ("N reductions"), paired with its
    # candidates line among the tuner's lines only (MPICH's launcher may put the program's
    # own lines between them). One per candidate in round 0 made the candidates - 1 more
    run online/$lib/reductions 60 $launch $np env $pre A2A_TUNING=online A2A_VERBOSE=1 \
        A2A_TUNING_EXPLORE=30 $prog --repeat 40 --count - 16 1024
    check online/$lib/one-reduction-for-round-0 /usr/bin/python3 -c 'import re, sys
log = open(sys.argv[1]).read()
total = [int(n) for n in re.findall(r"plain_alltoall: (\d+) MPI_Allreduce on MPI_COMM_WORLD in 80 calls", log)]
tuner = "\n".join(l for l in log.splitlines() if l.startswith("a2a: "))
shapes = re.findall(r"MPI_Alltoall P=\d+ S=\S+ -> .*?; (\d+) candidates, .* (\d+) reductions\) \[comm MPI_COMM_WORLD, world rank 0\]\na2a: online   candidates: (.*)", tuner)
left = [sum("out after its first sample" not in c for c in line.split(";")) for _, _, line in shapes]
sys.exit(not (len(total) == 1 and len(shapes) == 2 and all(int(c) >= 5 for c, _, _ in shapes)
              and all(int(n) == 2 + (k if k > 1 else 0) for (_, n, _), k in zip(shapes, left))
              and total[0] == 1 + sum(int(n) for _, n, _ in shapes)))' "$WORK/online_${lib}_reductions.log"

    # the sizes in turn, then a new one: deferred, per call again, deferred, alike on every
    # rank. The new size first comes at call 2R + 3 of 5R; the break shows at the end of a
    # check window (up to 64 calls), then the new shape's exploration and re-entry take
    # 80-100 calls (timing decides the candidates' cuts): at R = 80 deferral came back at
    # calls 259-274 of 400, where R = 40 left 0-50 calls of slack (it missed once in CI)
    R=80
    run online/$lib/cycle 60 $launch $np env $pre A2A_TUNING=online A2A_VERBOSE=2 \
        A2A_TUNING_EXPLORE=30 $prog --repeat $R --cycle - 16 1024
    glog="$WORK/online_${lib}_cycle.log"
    if out=$(MIN=3 $EXPECT agreement "$glog") &&
        grep -q "per call again from call [0-9]* (call $((2 * R + 3)) was not as predicted)" "$glog" &&
        grep -q "S predicted wrong in the last [0-9]* calls" "$glog" &&
        [ "$(grep -c 'MPI_COMM_WORLD, world rank 0' "$glog")" -ge 2 ]; then
        pass online/$lib/deferred-agreement-same-call "$(echo "$out" | tail -1)"
    else
        fail online/$lib/deferred-agreement-same-call "$(echo "$out" | tail -3)"
    fi
    # the period of the shapes (kernels/tuned/speculate.c, a2a_speculation_bucket): the
    # alltoallv calls' S go round 3 buckets (--period: on the first p ranks, p = 1..5, in
    # one launch), 40 rounds, and in round 8 one call of 32768 B breaks the period. The
    # calls from call 2 run on the last agreed shape's prediction (16 B) until the 16 B
    # shape's first round ends (12 calls, 8 of them of other sizes: one line a rank);
    # from then on the corrected buckets repeat every 3 calls and each call runs on the
    # shape of the call 3 before: every shape explores on predictions, decided alike on
    # every rank; the break (predicted 1024 B, exploring) is found by 1024 B's round
    # reduction and counted for its own shape (1 call; the others 40), and the calls after
    # it, on the period shifted by one call until then, by each shape's next reduction (at
    # most 5 lines a rank and communicator). A call predicted of a decided shape runs its
    # winner, checked in a window: every rank defers the agreement at the same call ("the
    # S buckets repeat every 3 calls"), and of each communicator's 121 calls at most 20
    # agree per call (1 with one reduction a round, 15 with one a candidate and round:
    # calls 1 and 3-8, 27-34; a drift under load may explore a shape again). Before, the
    # first wrong prediction ended the predictions: no shape explored on one (0 of them),
    # 119 agreed; with a decided shape's calls agreeing per call until the choices repeat,
    # 28 to 42.
    run online/$lib/period 60 $launch 5 env $pre A2A_TUNING=online A2A_VERBOSE=2 \
        A2A_TUNING_EXPLORE=30 $prog --repeat 40 --period 8 - 16 1024 16384
    plog="$WORK/online_${lib}_period.log"
    if out=$(MIN=12 $EXPECT online "$plog") && echo "$out" | grep -q '^online: 12 calls' &&
        [ "$(grep -c 'MPI_Alltoallv P=[2-5] S=[0-9.]* -> .* calls exploring, [1-9][0-9]* of them on a predicted S' "$plog")" = 42 ] &&
        [ "$(grep -c 'S=1024\.\.2047: S predicted wrong in the last' "$plog")" = 14 ] &&
        [ "$(grep -c 'S=16\.\.31: S predicted wrong in the last 12 calls' "$plog")" = 14 ] &&
        [ "$(grep -c 'S predicted wrong in the last' "$plog")" -le 70 ] &&
        alltoallv_calls_each "$plog" 16 40 32768=1 &&
        MIN=4 $EXPECT agreement "$plog" > /dev/null &&
        [ "$(grep -c 'agreement on S deferred from call [0-9]* (the S buckets repeat every 3 calls)' "$plog")" -ge 14 ] &&
        /usr/bin/python3 -c 'import re, sys
n = [(int(a), int(b)) for a, b in re.findall(r"S of alltoallv agreed per call in (\d+) of (\d+) calls", open(sys.argv[1]).read())]
sys.exit(not (len(n) == 4 and all(a <= 20 and b == 121 for a, b in n)))' "$plog"; then
        pass online/$lib/period-predicted-same-call "$(echo "$out" | tail -1)"
    else
        fail online/$lib/period-predicted-same-call "$(echo "$out" | tail -3)"
    fi
    # buckets whose true period (9 calls: 8 of 16 B, one of 1 KiB) is longer than the
    # longest one found (8): the last 8 calls always repeat with period 1, so the 1 KiB call
    # is predicted 16 B every time, in every round of the 16 B shape's candidates (up to 14
    # calls at the default A2A_TUNING_EXPLORE). The wrong call is counted for its own
    # shape and the 16 B calls of the round are kept, so the 16 B shape decides on every
    # communicator (~call 70 of its 320). Before, each such round was dropped whole and made
    # again: the 16 B shape explored to the run's end (318 of 320 calls exploring). After 8
    # such misses close together the buckets' period is given up (speculate.c,
    # note_bucket_miss) and S is agreed per call, so the 1 KiB shape explores too (31-32 of
    # its 40 calls, or decides; before, predicted 16 B every time, none). Rank 0's lines only
    # (A2A_VERBOSE=1): every rank's, this loop's many deferral lines came merged by Open
    # MPI's output forwarding (one run in four)
    run online/$lib/long-period 60 $launch $np env $pre A2A_TUNING=online A2A_VERBOSE=1 \
        $prog --repeat 40 --period 0 - 16 16 16 16 16 16 16 16 1024
    llog="$WORK/online_${lib}_long-period.log"
    check online/$lib/long-period-decided holds \
        "[ \"\$(grep -c 'at MPI_Comm_free \[comm first[2-9], world rank 0\]: .*alltoallv P=[2-9] S=16\.\.31: [^;]* from call [0-9]* of 320 ' '$llog')\" = $((np - 1)) ] &&
         grep -q 'S=16\.\.31: S predicted wrong in the last' '$llog' &&
         [ \"\$(grep -Ec 'at MPI_Comm_free \[comm first[2-9], world rank 0\]: .*alltoallv P=[2-9] S=1024\.\.2047: ([^;]* from call [0-9]* of 40 |still exploring after 40 calls \([1-9])' '$llog')\" = $((np - 1)) ]"
    # a true period of 10 calls (9 of 16 B, one of 1 KiB): the 9 equal choices between the
    # odd calls are a period of the choices too (8 settled calls in a row), so that
    # deferral, not the buckets', ran every 1 KiB call as the 16 B winner; once the
    # buckets' period is given up the choices' is too (speculate.c, find_period), and the
    # 1 KiB shape explores (before: 0 of its 40 calls exploring on every communicator)
    run online/$lib/longer-period 60 $launch $np env $pre A2A_TUNING=online A2A_VERBOSE=1 \
        $prog --repeat 40 --period 0 - 16 16 16 16 16 16 16 16 16 1024
    check online/$lib/longer-period-odd-shape-explores holds \
        "[ \"\$(grep -Ec 'at MPI_Comm_free \[comm first[2-9], world rank 0\]: .*alltoallv P=[2-9] S=1024\.\.2047: ([^;]* from call [0-9]* of 40 |still exploring after 40 calls \([1-9])' '$WORK/online_${lib}_longer-period.log')\" = $((np - 1)) ]"
    # several shapes with calls run on a wrong prediction still under way when the
    # communicator is freed: the sizes in turn (16, 1024), 10 rounds, the last broken by a
    # call of 2048 B; at 30 calls a shape every call is in round 0 (2 calls a candidate),
    # and the free finds a wrong call pending in both shapes (16 B first, then 1024 B):
    # close_predictions checks every such shape, so each communicator counts 10, 10 and 1
    # calls (checking only the first left 1024 B at 11, 16 B at 9)
    run online/$lib/pending-in-two-shapes 60 $launch $np env $pre A2A_TUNING=online \
        A2A_VERBOSE=1 A2A_TUNING_EXPLORE=30 $prog --repeat 10 --period 9 - 16 1024
    check online/$lib/pending-in-two-shapes-counted holds \
        "alltoallv_calls_each '$WORK/online_${lib}_pending-in-two-shapes.log' $((3 * (np - 1))) 10 2048=1"
    # one rule per shape: the halves' shapes once (the first communicator's decision)
    check online/$lib/file-written holds \
        "[ \"\$(grep -c '\"kernel\": ' '$OD/$lib.json')\" = $((np == 4 ? 12 : 6)) ]"
    # read back: every call of a known shape runs the file's rule; nothing is explored
    run online/$lib/read-back 60 $launch $np env $pre A2A_TUNING=online A2A_VERBOSE=1 \
        A2A_TUNING_FILE="$OD/$lib.json" $prog --repeat 3 - $ONLINE_SIZES
    rlog="$WORK/online_${lib}_read-back.log"
    if out=$($EXPECT a2a "$OD/$lib.json" "$rlog") && ! grep "a2a: online" "$rlog" | grep -v -e "agreement on S" -e " at the end" -e " at MPI_Comm_free" -e "communicator was freed" | grep -q .; then
        pass online/$lib/file-obeyed "$(echo "$out" | tail -1)"
    else
        fail online/$lib/file-obeyed "$(echo "$out" | tail -3)"
    fi
    # partial exploration kept in the file and resumed by the next run (10 calls: fewer
    # than the first round of the alltoallv shape's 6 candidates, 12 calls now that the
    # warm-up holds the MPI library's, so that shape ends exploring whatever the timings)
    run online/$lib/partial 60 $launch $np env $pre A2A_TUNING=online A2A_TUNING_EXPLORE=30 \
        A2A_TUNING_OUT="$OD/$lib-p1.json" $prog --repeat 10 - 16
    # the MPI library's first round is the last two calls of the shape's warm-up: of a
    # shape's calls, only max(probe - 4, 0) are not exploring (before, max(probe - 2, 1))
    check online/$lib/library-round-from-warmup /usr/bin/python3 -c 'import json, sys
recs = json.load(open(sys.argv[1]))["online_partial"]
sys.exit(not recs or any(r["calls"] - r["explore_calls"] != max(r["probe"] - 4, 0) for r in recs))' "$OD/$lib-p1.json"
    run online/$lib/resume 60 $launch $np env $pre A2A_TUNING=online A2A_VERBOSE=2 \
        A2A_TUNING_EXPLORE=30 A2A_TUNING_FILE="$OD/$lib-p1.json" A2A_TUNING_OUT="$OD/$lib-p2.json" \
        $prog --repeat 12 - 16
    rlog="$WORK/online_${lib}_resume.log"
    if out=$(MIN=1 $EXPECT resume "$OD/$lib-p1.json" "$OD/$lib-p2.json") &&
        grep -q 'exploring resumed from the tuning file' "$rlog" && MIN=0 $EXPECT online "$rlog" > /dev/null; then
        pass online/$lib/partial-resumed "$(echo "$out" | tail -1)"
    else
        fail online/$lib/partial-resumed "$(echo "$out" | tail -3)"
    fi
    # the resumed shape (16 B) is followed by other sizes, 3 calls each: a call of the next
    # size runs on a prediction whether the resumed shape or the new one explores then (the
    # new one's first round alone is 12 calls); each shape counted its own 3 calls on every
    # communicator (world, the halves), the bytes right
    run online/$lib/resumed-wrong-prediction 60 $launch $np env $pre A2A_TUNING=online \
        A2A_VERBOSE=1 A2A_TUNING_EXPLORE=30 A2A_TUNING_FILE="$OD/$lib-p1.json" \
        $prog --repeat 3 - $ONLINE_SIZES
    rwlog="$WORK/online_${lib}_resumed-wrong-prediction.log"
    check online/$lib/resumed-wrong-prediction-counted holds \
        "grep -q 'S=16\.\.31: exploring resumed from the tuning file' '$rwlog' &&
         [ \"\$(grep -c 'S predicted wrong in the last' '$rwlog')\" = $((np == 4 ? 3 : 1)) ] &&
         alltoallv_calls_each '$rwlog' $((np == 4 ? 9 : 3)) 3"
    run online/$lib/partial-file-mode 60 $launch $np env $pre A2A_VERBOSE=1 \
        A2A_TUNING_FILE="$OD/$lib-p1.json" $prog - 16
    plog="$WORK/online_${lib}_partial-file-mode.log"
    if out=$(MIN=3 $EXPECT a2a "$OD/$lib-p1.json" "$plog") && grep -q online_partial "$OD/$lib-p1.json" &&
        ! grep -q 'not used' "$plog"; then
        pass online/$lib/partial-file-read "$(echo "$out" | tail -1)"
    else
        fail online/$lib/partial-file-read "$(echo "$out" | tail -3)"
    fi
    # a partial record in a round without calls (round 1 where the probe is the first
    # round's 2 calls; end_round never stops there) is not resumed: before, each call of
    # the candidate wrote one more sample past its row until the rank crashed
    edit_partial 'if r["probe"] == 2: r["round"], r["next"] = 1, 0' "$OD/$lib-p1.json" \
        "$OD/$lib-empty-round.json"
    run online/$lib/partial-empty-round 60 $launch $np env $pre A2A_TUNING=online \
        A2A_VERBOSE=1 A2A_TUNING_EXPLORE=30 A2A_TUNING_FILE="$OD/$lib-empty-round.json" \
        $prog --repeat 200 - 16
    check online/$lib/partial-empty-round-refused holds \
        "grep -q '\"round\": 1' '$OD/$lib-empty-round.json' &&
         ! grep -q 'exploring resumed' '$WORK/online_${lib}_partial-empty-round.log'"
    # a partial record whose next candidate is out of the race (its state cut) is not
    # resumed: before, the run resumed it and gave the out candidate's calls; the summary
    # of the shape left exploring (8 calls: fewer than its first round's) states its bound
    # (each candidate's calls at most)
    edit_partial 'r["candidates"][r["next"]]["state"] = "cut"' "$OD/$lib-p1.json" \
        "$OD/$lib-next-out.json"
    run online/$lib/partial-next-out 60 $launch $np env $pre A2A_TUNING=online \
        A2A_VERBOSE=1 A2A_TUNING_EXPLORE=30 A2A_TUNING_FILE="$OD/$lib-next-out.json" \
        $prog --repeat 8 - 16
    check online/$lib/partial-next-out-refused holds \
        "grep -q '\"state\": \"cut\"' '$OD/$lib-next-out.json' &&
         ! grep -q 'exploring resumed' '$WORK/online_${lib}_partial-next-out.log' &&
         grep -q 'still exploring after 8 calls ([0-9]* calls exploring; an exploration gives each of [0-9]* candidates at most [0-9]* calls)' '$WORK/online_${lib}_partial-next-out.log'"
    # every call accounted: the deferred agreement's window still open at MPI_Finalize is
    # checked there (deferral from call ~23 here: windows end at calls ~30 and ~46 of 60), so
    # the summary A2A_VERBOSE logs at the end counts all 60 alltoallv calls of the world
    run online/$lib/last-window 60 $launch $np env $pre A2A_TUNING=online A2A_VERBOSE=1 \
        A2A_TUNING_EXPLORE=30 $prog --repeat 60 - 16
    wlog="$WORK/online_${lib}_last-window.log"
    if grep -q "at the end \[comm MPI_COMM_WORLD, world rank 0\]: .*alltoallv P=$np S=16\.\.31: [^;]* of 60 (" "$wlog" &&
        ! grep -q 'not checked yet' "$wlog"; then
        pass online/$lib/last-window-accounted "($(grep -o "the last window's [0-9]* calls" "$wlog" | head -1) checked at the end)"
    else
        fail online/$lib/last-window-accounted "$(grep 'at the end' "$wlog" | head -2)"
    fi
    # a communicator freed before MPI_Finalize (the halves, at P = 4) has its window checked
    # at MPI_Comm_free: its summary logged there counts all 60 alltoallv calls (before, the
    # state was retired with the window's calls unaccounted and no line said so)
    if [ $np = 4 ]; then
        check online/$lib/freed-comm-window-accounted holds \
            "grep -q 'at MPI_Comm_free \[comm half0, world rank 0\]: .*alltoallv P=2 S=16\.\.31: [^;]* of 60 (' '$wlog' &&
             grep -q 'at MPI_Comm_free \[comm half1, world rank 1\]: .*alltoallv P=2 S=16\.\.31: [^;]* of 60 (' '$wlog'"
    fi
    # the halves freed by the delete callback of another communicator's attribute (MPI
    # runs it inside the program's MPI_Comm_free of that one; --free-in-callback; below 4
    # ranks one half, the world): that nested MPI_Comm_free goes through A2A_Comm_free
    # too, so each half's window is checked there and its summary counts all 60 alltoallv
    # calls (before, the preload library passed it straight to PMPI_Comm_free: the window's
    # calls never accounted, no summary), no hang, bytes right, the halves freed (exit 0);
    # the callback's own MPI_Alltoall on "owner", the communicator being freed, goes to the
    # MPI library, its bytes right (routed, the tuner kept a state of owner after its free:
    # Open MPI crashed, MPICH aborted, in MPI_Finalize's check of it)
    run online/$lib/free-in-callback 60 $launch $np env $pre A2A_TUNING=online A2A_VERBOSE=1 \
        A2A_TUNING_EXPLORE=30 $prog --repeat 60 --free-in-callback - 16
    clog="$WORK/online_${lib}_free-in-callback.log"
    check online/$lib/freed-in-callback-window-accounted holds \
        "grep -q 'at MPI_Comm_free \[comm half0, world rank 0\]: .*alltoallv P=2 S=16\.\.31: [^;]* of 60 (' '$clog' &&
         { [ $np != 4 ] || grep -q 'at MPI_Comm_free \[comm half1, world rank 1\]: .*alltoallv P=2 S=16\.\.31: [^;]* of 60 (' '$clog'; }"
    # the last rank cannot attach the tuner's state to the duplicate (MPI_Comm_set_attr
    # fails: A2A_TUNING_TEST_NOMEM=attr): no rank keeps a state of it (it would outlive the
    # communicator), every call on it runs the MPI library, the world is tuned alike
    run online/$lib/no-attr 60 $launch $np env $pre A2A_TUNING=online A2A_VERBOSE=2 \
        A2A_TUNING_EXPLORE=30 A2A_TUNING_TEST_NOMEM=attr $prog --repeat 40 --dup - 16
    alog="$WORK/online_${lib}_no-attr.log"
    if out=$(MIN=2 $EXPECT online "$alog") && ! grep -q -- '-> .*\[comm dup' "$alog" &&
        grep -q -- '-> .*\[comm MPI_COMM_WORLD, world rank 0\]' "$alog"; then
        pass online/$lib/no-attr-no-state "(the duplicate on the MPI library on every rank)"
    else
        fail online/$lib/no-attr-no-state "$(echo "$out" | tail -3; grep -- '-> ' "$alog" | head -2)"
    fi
    # rank 0 cannot allocate the end-of-run gather's arrays (A2A_TUNING_TEST_NOMEM=gather):
    # every rank skips the gather (rank 0 says so), no crash, no hang, no file
    rm -f "$OD/$lib-gather.json"
    run online/$lib/no-gather-memory 60 $launch $np env $pre A2A_TUNING=online \
        A2A_TUNING_EXPLORE=30 A2A_TUNING_TEST_NOMEM=gather A2A_TUNING_OUT="$OD/$lib-gather.json" \
        $prog --repeat 20 - 16
    check online/$lib/no-gather-memory-skipped holds \
        "grep -q 'A2A_TUNING_OUT=$OD/$lib-gather.json: not written (out of memory)' '$WORK/online_${lib}_no-gather-memory.log' && [ ! -e '$OD/$lib-gather.json' ]"
    # the last rank of each communicator has no memory for the tuner's state of a shape
    # (every one) or of the communicator (its first 2 tries): every rank runs the MPI
    # library at the same calls and the choices stay agreed, bytes right (exit 0); without
    # the agreement the other ranks explored alone (a hang or wrong bytes)
    shapes16=$([ $lib = openmpi ] && echo 6 || echo 2)
    for what in shape state; do
        run online/$lib/no-memory-$what 60 $launch $np env $pre A2A_TUNING=online A2A_VERBOSE=2 \
            A2A_TUNING_EXPLORE=30 A2A_TUNING_TEST_NOMEM=$what $prog --repeat 40 - 16
    done
    mlog="$WORK/online_${lib}_no-memory-shape.log"
    if out=$(MIN=$shapes16 $EXPECT online "$mlog") && echo "$out" | grep -q "^online: $shapes16 calls" &&
        [ "$(grep -c -- '-> MPI library from call 1 (a rank had no memory' "$mlog")" = "$(grep -c -- ' -> .* from call ' "$mlog")" ]; then
        pass online/$lib/no-memory-shape-agreed "($shapes16 shapes on the MPI library on every rank)"
    else
        fail online/$lib/no-memory-shape-agreed "$(echo "$out" | tail -3)"
    fi
    mlog="$WORK/online_${lib}_no-memory-state.log"
    if out=$(MIN=$shapes16 $EXPECT online "$mlog") && echo "$out" | grep -q "^online: $shapes16 calls" &&
        grep -q "at the end \[comm MPI_COMM_WORLD, world rank 0\]: alltoall P=$np S=16\.\.31: [^;]* of 78 (" "$mlog"; then
        pass online/$lib/no-memory-state-agreed "(the world's first 2 calls on the MPI library, then $shapes16 shapes decided alike)"
    else
        fail online/$lib/no-memory-state-agreed "$(echo "$out" | tail -3; grep 'at the end' "$mlog" | head -1)"
    fi
    run online/$lib/no-memory-two-comms 30 $launch $np env $pre A2A_TUNING=online \
        A2A_VERBOSE=1 A2A_TUNING_EXPLORE=30 A2A_TUNING_TEST_NOMEM=state $prog --repeat 100 --dup - 16
    dlog="$WORK/online_${lib}_no-memory-two-comms.log"
    check online/$lib/no-memory-two-comms-closed holds \
        "grep -q 'at the end \[comm dup, ' '$dlog' && grep -q 'at the end \[comm MPI_COMM_WORLD, ' '$dlog'"
    # check mode: spread_out (a candidate of every shape) made to give wrong bytes
    run online/$lib/check-drops 60 $launch $np env $pre A2A_TUNING=online A2A_VERBOSE=1 \
        A2A_TUNING_EXPLORE=30 A2A_TUNING_CHECK=1 A2A_TUNING_TEST_CORRUPT=spread_out \
        $prog --repeat 20 - $ONLINE_SIZES
    clog="$WORK/online_${lib}_check-drops.log"
    check online/$lib/check-dropped-every-time holds \
        "[ \"\$(grep -c 'A2A_TUNING_CHECK: spread_out gave other bytes than the MPI library' '$clog')\" = $shapes ] &&
         ! grep -q -- '-> spread_out from call' '$clog'"
    # wrong predictions of S on two communicators met in turn (--dup), in check mode: each
    # size twice, so the alltoallv shape of 16 B explores its first 2 calls (the MPI
    # library's round), then the first 1024 B call runs on the 16 B prediction as
    # spread_out's first call, which the check drops (corrupted); the next two run pairwise
    # on the prediction, the second at 16384 B ends its calls and the reduction finds the
    # wrong S. All bytes right, every rank agreeing per call from there on, and every call
    # counted for its own shape: 2 calls each (before, the drop kept its 1024 B call
    # counted for 16 B: 3, 1, 2)
    run online/$lib/wrong-prediction-two-comms 60 $launch $np env $pre A2A_TUNING=online \
        A2A_VERBOSE=2 A2A_TUNING_EXPLORE=30 A2A_TUNING_CHECK=1 A2A_TUNING_TEST_CORRUPT=spread_out \
        $prog --repeat 2 --dup - $ONLINE_SIZES
    wlog="$WORK/online_${lib}_wrong-prediction-two-comms.log"
    check online/$lib/wrong-prediction-each-call-its-shape holds \
        "[ \"\$(grep -c 'S=16\.\.31: S predicted wrong in the last [0-9]* calls .*\[comm MPI_COMM_WORLD, ' '$wlog')\" = $np ] &&
         [ \"\$(grep -c 'S=16\.\.31: S predicted wrong in the last [0-9]* calls .*\[comm dup, ' '$wlog')\" = $np ] &&
         alltoallv_calls_each '$wlog' 6 2"
    # the run (and each half, at MPI_Comm_free) ends on a call run on a prediction in the
    # round under way (16, 16, 1024: the two 16 B calls are the MPI library's of round 0,
    # the 1024 B one begins spread_out's): the round's 3 calls are reduced there, and the
    # 1024 B call is counted for 1024 B (before, for 16 B: 3 calls and no 1024 B shape)
    run online/$lib/prediction-pending-at-end 60 $launch $np env $pre A2A_TUNING=online \
        A2A_VERBOSE=1 A2A_TUNING_EXPLORE=30 $prog - 16 16 1024
    elog="$WORK/online_${lib}_prediction-pending-at-end.log"
    check online/$lib/prediction-pending-at-end-counted holds \
        "[ \"\$(grep -c 'S=16\.\.31: S predicted wrong in the last 3 calls (another S among them); 2 of them kept' '$elog')\" = $((np == 4 ? 3 : 1)) ] &&
         alltoallv_calls_each '$elog' $((np == 4 ? 6 : 2)) 2 1024=1"
    # drift: A2A_TUNING_TEST_WINDOW_SCALE=F[,G] makes every call's time a constant of its
    # candidate, (candidate + 1) ms (no noise; the MPI library, the winner, is fastest), and
    # the monitoring windows F times that for the MPI library, G (default F) for another
    # candidate. 3 % slower is below the drift floor (5 %): no shape explores again (before
    # the floor, with no noise, both shapes did, from call ~180); 200 calls a shape. The
    # others 600 calls a shape, every line counted per shape (2):
    #   1.5: drifted, no candidate timed faster than 1.5 ms: explored again, the same winner
    #        chosen, judged from then on against 1.5 ms (before: explored again 3 times);
    #   4.5,1: drifted to 4.5 ms; of the three candidates that timed faster exploring
    #        (spread_out 2 ms, pairwise 3, bruck / linear 4) the fastest, spread_out, tried
    #        in its place, its window 2 ms: kept, the shape's decision from then on;
    #   2.5: spread_out's window 5 ms: the MPI library runs again, judged against 2.5 ms,
    #        its decision standing (the summary: from its first call, the trial aside),
    #        nothing explored again.
    for scale in 1.03 1.5 4.5,1 2.5; do
        run online/$lib/drift-$scale 30 $launch 2 env $pre A2A_TUNING=online A2A_VERBOSE=1 \
            A2A_TUNING_EXPLORE=30 A2A_TUNING_TEST_WINDOW_SCALE=$scale $prog \
            --repeat $([ $scale = 1.03 ] && echo 200 || echo 600) - 16
    done
    dlog="$WORK/online_${lib}_drift-1.03.log"
    check online/$lib/drift-below-floor-kept holds \
        "! grep -q 'drifted from' '$dlog' &&
         grep -q 'alltoall P=2 S=16..31: MPI library from call 11 of 400 .*alltoallv P=2 S=16..31: MPI library from call 13 of 200' '$dlog'"
    drift_lines() { grep -c -- "$1" "$WORK/online_${lib}_drift-$2.log"; }
    check online/$lib/drift-explores-once-then-judged-exploited holds \
        "[ \"\$(drift_lines 'drifted from 1e+03 us to 1.5e+03 us (beyond its noise and 5 %)' 1.5)\" = 2 ] &&
         [ \"\$(drift_lines 'MPI library has no challenger: exploring again' 1.5)\" = 2 ] &&
         [ \"\$(drift_lines 'MPI library chosen again after it drifted; its windows are judged against 1.5e+03 us' 1.5)\" = 2 ]"
    check online/$lib/drift-challenger-kept holds \
        "[ \"\$(drift_lines 'MPI library drifted from 1e+03 us to 4.5e+03 us' 4.5,1)\" = 2 ] &&
         [ \"\$(drift_lines 'spread_out (2e+03 us exploring) runs in its place' 4.5,1)\" = 2 ] &&
         [ \"\$(drift_lines 'spread_out kept: 2e+03 us exploited against 4.5e+03 us' 4.5,1)\" = 2 ] &&
         ! grep -q 'exploring again' '$WORK/online_${lib}_drift-4.5,1.log' &&
         grep -q 'alltoall P=2 S=16..31: spread_out from call 215 of 1200 .*alltoallv P=2 S=16..31: spread_out from call 183 of 600' '$WORK/online_${lib}_drift-4.5,1.log'"
    check online/$lib/drift-challenger-not-faster-reverted holds \
        "[ \"\$(drift_lines 'spread_out not faster exploited (5e+03 us against 2.5e+03 us): the winner that drifted runs again' 2.5)\" = 2 ] &&
         ! grep -q 'exploring again\|chosen again' '$WORK/online_${lib}_drift-2.5.log' &&
         [ \"\$(drift_lines 'drifted from' 2.5)\" = 2 ] &&
         grep -q 'alltoall P=2 S=16..31: MPI library from call 11 of 1200 .*alltoallv P=2 S=16..31: MPI library from call 13 of 600' '$WORK/online_${lib}_drift-2.5.log'"
    # a run ending during a trial: the alltoall shape drifts at its call 214 and spread_out
    # runs in its place from 215; the file written at the end keeps the trial's verdict on
    # the calls it ran (108 repeats: calls 215 and 216, the first a warm-up; 5 ms against
    # 2.5: the MPI library back), or, with no call past the first (107), the winner that
    # drifted (before: spread_out, on its exploring median alone, both times)
    for end in 108:2.5 107:2.5,1; do
        run online/$lib/trial-at-end-${end%%:*} 30 $launch 2 env $pre A2A_TUNING=online \
            A2A_VERBOSE=1 A2A_TUNING_EXPLORE=30 A2A_TUNING_TEST_WINDOW_SCALE=${end#*:} \
            A2A_TUNING_OUT="$OD/trial-${end%%:*}-$lib.json" $prog --repeat ${end%%:*} - 16
    done
    check online/$lib/trial-at-end-judged-on-its-calls holds \
        "grep -q 'spread_out not faster exploited (5e+03 us against 2.5e+03 us).* at call 216' '$WORK/online_${lib}_trial-at-end-108.log' &&
         grep -q 'spread_out (2e+03 us exploring) runs in its place' '$WORK/online_${lib}_trial-at-end-107.log' &&
         /usr/bin/python3 -c 'import json, sys
ks = [[r[\"kernel\"] for r in json.load(open(f))[\"alltoall\"]] for f in sys.argv[1:]]
sys.exit(ks != [[\"vendor\"], [\"vendor\"]])' '$OD/trial-108-$lib.json' '$OD/trial-107-$lib.json'"
    # without the check the corrupting hook makes the program fail, and it names the byte
    timeout -k 10 60 $launch $np env $pre A2A_TUNING=online A2A_TUNING_EXPLORE=30 \
        A2A_TUNING_TEST_CORRUPT=spread_out $prog --repeat 20 - $ONLINE_SIZES > "$OD/nocheck.log" 2>&1; rc=$?
    check online/$lib/corruption-bites holds \
        "[ $rc -ne 0 ] && grep -q '^plain_alltoall: rank [0-9]*: .* byte [0-9]* from rank [0-9]* is ' '$OD/nocheck.log'"
done

# bad values: one line naming the variable, every call on the MPI library, exit 0
bad_online() { # bad_online NAME VAR=VALUE...
    local name=$1; shift
    timeout -k 10 60 mpirun_openmpi 2 env LD_PRELOAD="$PWD/build/openmpi/liba2a_preload.so" \
        A2A_VERBOSE=1 "$@" build/openmpi/tests/preload/plain_alltoall - 16 1024 \
        > "$OD/bad.out" 2> "$OD/bad.err"
    local rc=$? var=${1%%=*}
    local other=$(grep -v -- '-> MPI library (' "$OD/bad.err" | wc -l)
    if [ $rc -eq 0 ] && [ "$other" = 1 ] && grep -v -- '-> MPI library (' "$OD/bad.err" | grep -q "$var" &&
        ! grep -q -- '-> [^M]' "$OD/bad.err" && grep -q -- '-> MPI library (' "$OD/bad.err"; then
        pass "online/bad-value/$name"
    else
        fail "online/bad-value/$name" "exit $rc, $other other lines: $(head -c 300 "$OD/bad.err")"
    fi
}
bad_online mode A2A_TUNING=onlin
bad_online explore-small A2A_TUNING=online A2A_TUNING_EXPLORE=5
bad_online explore-text A2A_TUNING=online A2A_TUNING_EXPLORE=12x
bad_online check A2A_TUNING=online A2A_TUNING_CHECK=yes
bad_online corrupt A2A_TUNING=online A2A_TUNING_TEST_CORRUPT=no_such_kernel
bad_online nomem A2A_TUNING=online A2A_TUNING_TEST_NOMEM=everything
bad_online window-scale A2A_TUNING=online A2A_TUNING_TEST_WINDOW_SCALE=0
timeout -k 10 60 mpirun_openmpi 2 env LD_PRELOAD="$PWD/build/openmpi/liba2a_preload.so" A2A_TUNING=online \
    A2A_TUNING_OUT=/nonexistent/dir/out.json build/openmpi/tests/preload/plain_alltoall --repeat 40 - 16 \
    > "$OD/out.out" 2> "$OD/out.err"; rc=$?
check online/bad-value/out-unwritable holds \
    "[ $rc -eq 0 ] && [ \"\$(wc -l < '$OD/out.err')\" = 1 ] && grep -q 'A2A_TUNING_OUT=/nonexistent/dir/out.json: cannot write' '$OD/out.err'"
echo "     (online part: $((SECONDS - T0)) s)"
