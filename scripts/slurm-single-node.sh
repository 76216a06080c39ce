#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for the tests marked `slurm` (tests/training/test_sweep_slurm.py)
# and for trying `rnnaudit sweep --executor slurm` without a cluster. Debian/Ubuntu, as root.
#
#   scripts/slurm-single-node.sh start     # install (apt) if needed, configure, start, wait until the node is idle
#   scripts/slurm-single-node.sh stop      # cancel every job, stop slurmd, slurmctld and munged
#   scripts/slurm-single-node.sh status    # sinfo and squeue
#
# or, from another bash script (this is what .ci/run does):
#
#   source scripts/slurm-single-node.sh && slurm_single_node_start && trap slurm_single_node_stop EXIT
#
# The configuration is the one that worked by hand with Debian's Slurm 22.05: this host is the controller and
# its only node, both reached at 127.0.0.1 (a CI runner's hostname may not resolve); root runs the daemons
# (SlurmUser=root) and the jobs; proctrack/linuxproc and task/none need no cgroups (containers and CI runners
# often have none); select/cons_tres with CR_CPU_Memory runs one job per requested CPU. There is no accounting
# storage (no slurmdbd), so `sacct` does not work here: rnnaudit reads job states with `squeue`
# (rnnaudit/training/sweep.py). KillWait is short so that a cancelled job ends within
# seconds. An existing /etc/slurm/slurm.conf that this script did not write is never overwritten.

SLURM_SINGLE_NODE_CONF=/etc/slurm/slurm.conf
SLURM_SINGLE_NODE_MARK="# written by rnnaudit scripts/slurm-single-node.sh"
SLURM_SINGLE_NODE_PARTITION=rnnaudit

_slurm_single_node_log() { echo "slurm-single-node: $*" >&2; }

_slurm_single_node_install() {
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null \
      && command -v munged >/dev/null; then
    return 0
  fi
  _slurm_single_node_log "installing slurmctld slurmd slurm-client munge (apt)"
  # policy-rc.d may refuse to start the services at install time (containers); they are started below
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
     slurmctld slurmd slurm-client munge) >/tmp/slurm-single-node-apt.log 2>&1 \
    || { _slurm_single_node_log "apt-get failed; see /tmp/slurm-single-node-apt.log"; return 1; }
}

_slurm_single_node_munge() {
  install -d -o munge -g munge -m 0700 /etc/munge /var/lib/munge /var/log/munge
  install -d -o munge -g munge -m 0755 /run/munge
  if [ ! -s /etc/munge/munge.key ]; then
    _slurm_single_node_log "generating a munge key"
    if command -v mungekey >/dev/null; then
      mungekey --create --keyfile=/etc/munge/munge.key --force
    else
      dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    fi
  fi
  chown munge:munge /etc/munge/munge.key
  chmod 0400 /etc/munge/munge.key
  if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
    runuser -u munge -- /usr/sbin/munged || return 1
  fi
  local i
  for i in $(seq 50); do
    munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  _slurm_single_node_log "munged did not start"
  return 1
}

_slurm_single_node_conf() {
  local host cpus mem_mb
  host=$(hostname -s)
  cpus=$(nproc)
  # 90 % of the memory the kernel reports: a node that registers with less than its RealMemory is drained
  mem_mb=$(awk '/^MemTotal:/ {printf "%d", $2 / 1024 * 0.9}' /proc/meminfo)
  if [ -e "$SLURM_SINGLE_NODE_CONF" ] && ! grep -qxF "$SLURM_SINGLE_NODE_MARK" "$SLURM_SINGLE_NODE_CONF"; then
    _slurm_single_node_log "$SLURM_SINGLE_NODE_CONF exists and was not written by this script; not touching it"
    return 1
  fi
  install -d -m 0755 /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
  cat >"$SLURM_SINGLE_NODE_CONF" <<EOF
$SLURM_SINGLE_NODE_MARK
ClusterName=rnnaudit
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
DefMemPerCPU=1024
SchedulerType=sched/backfill
ReturnToService=2
KillWait=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=$SLURM_SINGLE_NODE_PARTITION Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  _slurm_single_node_log "wrote $SLURM_SINGLE_NODE_CONF (node $host, $cpus CPUs, RealMemory=$mem_mb MB)"
}

_slurm_single_node_pid_alive() {  # $1: pid file
  [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

slurm_single_node_start() {
  if [ "$(id -u)" != 0 ]; then
    _slurm_single_node_log "must run as root (it installs packages and starts daemons)"
    return 1
  fi
  _slurm_single_node_install && _slurm_single_node_munge && _slurm_single_node_conf || return 1
  # -c: start without the state of an earlier start (its jobs are gone with its daemons)
  _slurm_single_node_pid_alive /run/slurmctld.pid || slurmctld -c || return 1
  _slurm_single_node_pid_alive /run/slurmd.pid || slurmd || return 1
  local host state i
  host=$(hostname -s)
  for i in $(seq 120); do
    state=$(sinfo -h -n "$host" -o %t 2>/dev/null | head -n 1)
    case "$state" in
      idle) _slurm_single_node_log "node $host is idle (partition $SLURM_SINGLE_NODE_PARTITION)"; return 0 ;;
      down*|drain*|drng*) scontrol update NodeName="$host" State=RESUME >/dev/null 2>&1 ;;
    esac
    sleep 0.5
  done
  _slurm_single_node_log "the node did not become idle in 60 s (state '${state}'); see /var/log/slurm/"
  return 1
}

slurm_single_node_stop() {  # never fails: it runs from `trap ... EXIT` in scripts under set -e
  local pidfile pid i
  if command -v squeue >/dev/null && squeue -h -o %i >/dev/null 2>&1; then
    squeue -h -o %A | sort -u | xargs -r scancel 2>/dev/null || true
    for i in $(seq 40); do  # let slurmd end the job steps it started
      [ -z "$(squeue -h -o %A 2>/dev/null)" ] && break
      sleep 0.25
    done
  fi
  for pidfile in /run/slurmd.pid /run/slurmctld.pid /run/munge/munged.pid; do
    if _slurm_single_node_pid_alive "$pidfile"; then
      pid=$(cat "$pidfile")
      kill "$pid" 2>/dev/null || true
      for i in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
    fi
  done
  _slurm_single_node_log "stopped"
  return 0
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -uo pipefail
  case "${1:-}" in
    start) slurm_single_node_start ;;
    stop) slurm_single_node_stop ;;
    status) sinfo && squeue ;;
    *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
  esac
fi
