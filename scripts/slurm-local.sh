#!/usr/bin/env bash
# A real one-node Slurm cluster on this machine, for the cluster tests (test/slurm.test.ts) and CI (.ci/run): Debian's
# slurm-wlm (slurmctld + slurmd) with munge authentication, the controller and the node on localhost.
#
#   bash scripts/slurm-local.sh start [DIR]    # start munged, slurmctld and slurmd; wait until the node is idle
#   bash scripts/slurm-local.sh stop [DIR]     # stop the daemons started from DIR
#   bash scripts/slurm-local.sh status [DIR]   # 0 when the node answers and is up
#
# DIR (default $TMPDIR/gapbcfw-slurm, /tmp/gapbcfw-slurm) holds slurm.conf, the controller's state, the spool, the logs and the pid files;
# clients find the cluster through SLURM_CONF=DIR/slurm.conf (`start` prints the line to export). Needs root (the
# daemons run as root; jobs run as the user who submits them) and the packages:
#
#   apt-get update && apt-get install -y slurm-wlm munge
#
# Exit status: 0 done; 3 not possible here (not root, or the packages missing), with the reason on stderr; 1 failed
# (the tail of the logs on stderr).
set -euo pipefail

cmd=${1:-start}
DIR=${2:-${TMPDIR:-/tmp}/gapbcfw-slurm}
CONF="$DIR/slurm.conf"
export SLURM_CONF="$CONF"

say() { echo "slurm-local: $*" >&2; }
unable() {
  say "$*"
  exit 3
}

node_state() { sinfo -h -N -o '%T' 2>/dev/null | head -n1; }

stop() {
  for daemon in slurmd slurmctld; do
    local pidfile="$DIR/$daemon.pid" pid
    pid=$(cat "$pidfile" 2>/dev/null || true)
    if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
      kill "$pid"
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
    rm -f "$pidfile"
  done
}

case "$cmd" in
  stop)
    stop
    exit 0
    ;;
  status)
    state=$(node_state || true)
    [[ "$state" =~ ^(idle|mixed|allocated)$ ]] && { echo "$state"; exit 0; }
    say "no node up (sinfo says '${state:-nothing}')"
    exit 1
    ;;
  start) ;;
  *)
    say "usage: slurm-local.sh start|stop|status [DIR]"
    exit 2
    ;;
esac

[[ $(id -u) -eq 0 ]] || unable "needs root to start slurmctld, slurmd and munged"
for tool in slurmctld slurmd sinfo sbatch munged munge; do
  command -v "$tool" >/dev/null || unable "$tool is missing: apt-get update && apt-get install -y slurm-wlm munge"
done

# munge: one key per machine (the package makes /etc/munge/munge.key), its daemon as the munge user.
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  [[ -f /etc/munge/munge.key ]] || mungekey --create --keyfile /etc/munge/munge.key
  chown munge:munge /etc/munge/munge.key
  chmod 0400 /etc/munge/munge.key
  mkdir -p /run/munge /var/lib/munge /var/log/munge
  chown munge:munge /run/munge /var/lib/munge /var/log/munge
  runuser -u munge -- munged
  for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
  munge -n | unmunge >/dev/null || { say "munged does not answer"; exit 1; }
fi

stop # daemons of an earlier start from DIR
mkdir -p "$DIR/state" "$DIR/spool"
host=$(hostname -s)
cat >"$CONF" <<EOF
# Written by scripts/slurm-local.sh: one node, the controller and the node on this machine.
ClusterName=gapbcfw
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/slurmctld.log
SlurmdLogFile=$DIR/slurmd.log
# No cgroups (containers): processes tracked by their parent, no task binding, no accounting.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
# scancel and time limits send SIGTERM, then SIGKILL this many seconds later.
KillWait=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF

failed() {
  say "$*"
  for log in "$DIR/slurmctld.log" "$DIR/slurmd.log"; do [[ -f "$log" ]] && { echo "--- $log" >&2; tail -n 20 "$log" >&2; }; done
  exit 1
}
slurmctld -f "$CONF" -i || failed "slurmctld did not start"
slurmd -f "$CONF" -N "$host" || failed "slurmd did not start"
for _ in $(seq 100); do
  state=$(node_state || true)
  [[ "$state" =~ ^(idle|mixed|allocated)$ ]] && break
  sleep 0.2
done
[[ "$state" =~ ^(idle|mixed|allocated)$ ]] || failed "the node did not come up (sinfo says '${state:-nothing}')"
say "node $host is $state; for the clients: export SLURM_CONF=$CONF"
echo "export SLURM_CONF=$CONF"
