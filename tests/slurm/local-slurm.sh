#!/bin/bash
# local-slurm.sh — a private one-node Slurm cluster on this machine, for tests.
#
#   tests/slurm/local-slurm.sh check        can one start here? exit 0, or print why not, exit 77
#   tests/slurm/local-slurm.sh start DIR    start munged, slurmctld and slurmd with state,
#                                           logs, spool, pid files and slurm.conf in DIR
#                                           (created if missing); returns once the node is idle
#   tests/slurm/local-slurm.sh stop DIR     stop the daemons of DIR, each by its recorded pid
#
# After `start`, `. DIR/env` points srun, sbatch, squeue, sinfo, scontrol and sacct at
# this cluster (SLURM_CONF). Everything runs as root on loopback ports that were free
# at start; nothing outside DIR is written, and a Slurm or munge already running on this
# machine is not touched (its own munge socket and key live in DIR). The node declares
# 8 CPUs whatever the hardware (SlurmdParameters=config_overrides), job completions go
# to DIR/jobcomp.txt (jobcomp/filetxt) so that `sacct -c` reports finished jobs.
set -u
SBIN=/usr/sbin
CPUS=${LOCAL_SLURM_CPUS:-8}

die() { echo "local-slurm: $*" >&2; exit 1; }

# check: exit 0 when this machine can run the cluster, else one line saying why and 77
check() {
    local why=""
    [ "$(id -u)" -eq 0 ] || why="not root (slurmd and munged must run as root)"
    for prog in $SBIN/munged $SBIN/slurmctld $SBIN/slurmd /usr/bin/sbatch /usr/bin/srun \
                /usr/bin/squeue /usr/bin/sacct /usr/bin/scontrol /usr/bin/sinfo; do
        [ -n "$why" ] || [ -x "$prog" ] || why="$prog missing (apt-get install slurm-wlm munge)"
    done
    [ -n "$why" ] || [ -e /usr/lib/x86_64-linux-gnu/slurm-wlm/jobcomp_filetxt.so ] \
        || [ -n "$(find /usr/lib -name jobcomp_filetxt.so 2>/dev/null | head -1)" ] \
        || why="Slurm's jobcomp/filetxt plugin is missing (slurm-wlm-basic-plugins)"
    if [ -n "$why" ]; then
        echo "local-slurm: cannot start a local Slurm: $why" >&2
        exit 77
    fi
}

# free_ports N: N distinct TCP ports on 127.0.0.1 that are free right now
free_ports() {
    /usr/bin/python3 - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

# wait_for SECONDS CMD...: runs CMD every 0.2 s until it succeeds; 1 after SECONDS
wait_for() {
    local limit=$1; shift
    local end=$((SECONDS + limit))
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -lt $end ] || return 1
        sleep 0.2
    done
}

# start DIR: a fresh cluster in DIR; on any failure the daemons already started are stopped
start() {
    local dir=$1
    check
    mkdir -p "$dir" || die "cannot create $dir"
    dir=$(cd "$dir" && pwd)
    [ ! -e "$dir/pids" ] || die "$dir already holds a cluster (stop it first)"
    mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
    chmod 700 "$dir" "$dir/munge"
    : > "$dir/pids"
    local host ports ctld_port node_port
    host=$(hostname -s)
    ports=$(free_ports 2) || die "cannot find free ports"
    ctld_port=${ports% *} node_port=${ports#* }

    # munge: a private key and socket, so a system munged (if any) is never involved
    (umask 077; dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none) \
        || die "cannot write the munge key"
    $SBIN/munged --foreground --force --socket="$dir/munge/munge.socket" \
        --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
        --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" \
        >"$dir/log/munged.out" 2>&1 &
    echo "munged $!" >> "$dir/pids"
    wait_for 10 test -S "$dir/munge/munge.socket" || fail_start "$dir" "munged did not start"

    : > "$dir/plugstack.conf"
    cat > "$dir/slurm.conf" <<EOF
# a private one-node cluster made by tests/slurm/local-slurm.sh
ClusterName=a2alocal
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$node_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
PlugStackConfig=$dir/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SlurmdParameters=config_overrides
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=300
MaxArraySize=1001
NodeName=$host NodeAddr=127.0.0.1 CPUs=$CPUS State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    echo "export SLURM_CONF='$dir/slurm.conf'" > "$dir/env"

    $SBIN/slurmctld -D -i -f "$dir/slurm.conf" >"$dir/log/slurmctld.out" 2>&1 &
    echo "slurmctld $!" >> "$dir/pids"
    $SBIN/slurmd -D -N "$host" -f "$dir/slurm.conf" >"$dir/log/slurmd.out" 2>&1 &
    echo "slurmd $!" >> "$dir/pids"
    # the node is up once sinfo reports it idle (or mixed/allocated if jobs came first)
    wait_for 30 node_up "$dir" || fail_start "$dir" "the node did not come up"
}

node_up() {
    local state
    state=$(SLURM_CONF="$1/slurm.conf" /usr/bin/sinfo -h -N -o '%T' 2>/dev/null)
    [[ "$state" == idle* || "$state" == mixed* || "$state" == allocated* ]]
}

fail_start() {
    echo "local-slurm: $2; last log lines:" >&2
    tail -n 5 "$1"/log/*.log "$1"/log/*.out 2>/dev/null | sed 's/^/    /' >&2
    stop "$1"
    exit 1
}

# ours PID DIR: PID is alive (not a zombie) and is a daemon of DIR (its command line
# names DIR), so a recycled pid is never signalled
ours() {
    local pid=$1 dir=$2 state
    [ -r "/proc/$pid/stat" ] || return 1
    state=$(sed 's/^.*) \(.\).*/\1/' "/proc/$pid/stat" 2>/dev/null)
    [ "$state" != Z ] || return 1
    tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$dir/"
}

# stop DIR: TERM to every recorded daemon still alive (slurmd, slurmctld, munged: the
# reverse order of start), KILL to any still alive after 10 s; slurmd ends the job steps
# it still runs. The list of pids is kept as DIR/pids.stopped.
stop() {
    local dir=$1 name pid pids=""
    [ -e "$dir/pids" ] || return 0
    dir=$(cd "$dir" && pwd)
    while read -r name pid; do pids="$pid $pids"; done < "$dir/pids"
    for pid in $pids; do ours "$pid" "$dir" && kill -TERM "$pid" 2>/dev/null; done
    local end=$((SECONDS + 10))
    for pid in $pids; do
        while ours "$pid" "$dir" && [ $SECONDS -lt $end ]; do sleep 0.1; done
        ours "$pid" "$dir" && kill -KILL "$pid" 2>/dev/null
    done
    mv -f "$dir/pids" "$dir/pids.stopped"
}

case "${1:-}" in
check) check ;;
start) [ $# -eq 2 ] || die "usage: $0 start DIR"; start "$2" ;;
stop) [ $# -eq 2 ] || die "usage: $0 stop DIR"; stop "$2" ;;
*) echo "usage: $0 check | start DIR | stop DIR" >&2; exit 2 ;;
esac
