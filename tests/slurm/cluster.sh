#!/usr/bin/env bash
# A throwaway Slurm cluster on this host, for the `envdoctor fleet --slurm` tests.
#
#   cluster.sh up       start munged, slurmctld and one slurmd per fake node (n1..nN),
#                       wait until every node is idle, then print `export SLURM_CONF=...`
#                       on standard output (everything else goes to standard error)
#   cluster.sh down     cancel every job, stop the daemons, remove the folder; nothing of
#                       the cluster (daemons, slurmstepd, job tasks) is left running
#   cluster.sh status   say whether the cluster is up (exit 0) or not (exit 1)
#
# Environment:
#   SLURM_TEST_DIR   the one folder that holds everything (configuration, munge key and
#                    socket, state, spool, logs, PID files);
#                    default ${TMPDIR:-/tmp}/envdoctor-slurm-$SLURMCTLD_PORT
#   NNODES           number of fake nodes n1..nN, all on this host (default 3)
#   SLURMCTLD_PORT   slurmctld's port (default 16817)
#   SLURMD_PORT      node n1's slurmd port; node i gets SLURMD_PORT+i-1 (default 16818)
#   READY_TIMEOUT    seconds `up` waits for the nodes to become idle (default 30)
#
# Needs root (munged and the Slurm daemons run as root) and the Debian packages
# slurmctld, slurmd, slurm-client and munge. Nothing outside SLURM_TEST_DIR is
# written: no /etc files, no cgroups (proctrack/linuxproc and task/none).
#
# Exit status: 0 success; 1 failure; 77 this machine cannot run the cluster
# (not root, or a Slurm/munge command is missing), so a test may skip.
set -euo pipefail
umask 022

NNODES=${NNODES:-3}
CTLD_PORT=${SLURMCTLD_PORT:-16817}
SLURMD_PORT=${SLURMD_PORT:-16818}
READY_TIMEOUT=${READY_TIMEOUT:-30}
D=${SLURM_TEST_DIR:-${TMPDIR:-/tmp}/envdoctor-slurm-$CTLD_PORT}
CONF=$D/slurm.conf
# `up` creates this file first; `down` removes only a folder that has it (or an empty one)
STAMP=.envdoctor-slurm-test

say() { printf 'cluster.sh: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

case $NNODES in '' | *[!0-9]* | 0) die "NNODES must be a positive integer, not '$NNODES'" ;; esac
for v in "$CTLD_PORT" "$SLURMD_PORT" "$READY_TIMEOUT"; do
  case $v in '' | *[!0-9]*) die "ports and READY_TIMEOUT must be numbers, not '$v'" ;; esac
done
case $D in /*) ;; *) D=$PWD/$D; CONF=$D/slurm.conf ;; esac

need_root() {
  if [ "$(id -u)" != 0 ]; then
    say "must run as root (munged, slurmctld and slurmd run as root here); skipping"
    exit 77
  fi
}

need_commands() {
  local c missing=""
  for c in munged munge unmunge slurmctld slurmd srun sinfo squeue scancel; do
    command -v "$c" >/dev/null 2>&1 || missing+=" $c"
  done
  if [ -n "$missing" ]; then
    say "missing:$missing (Debian: apt-get install --no-install-recommends slurmctld slurmd slurm-client munge)"
    exit 77
  fi
}

nodes() { local i; for ((i = 1; i <= NNODES; i++)); do echo "n$i"; done; }

# Alive means running: a zombie (an exited daemon that PID 1 has not reaped yet) is gone.
alive() {
  local st
  st=$(sed -e 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# The PID recorded in FILE, if that process still runs the program NAME
# (so a reused PID is never signalled).
recorded_pid() {
  local file=$1 name=$2 pid comm
  [ -r "$file" ] || return 1
  pid=$(tr -dc 0-9 <"$file")
  [ -n "$pid" ] || return 1
  comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
  [ "$comm" = "$name" ] || return 1
  alive "$pid" || return 1
  echo "$pid"
}

# wait_gone SECONDS PID...: wait until none of them is alive; print the survivors on timeout.
wait_gone() {
  local end=$((SECONDS + $1)) p left
  shift
  while :; do
    left=""
    for p in "$@"; do alive "$p" && left+=" $p"; done
    [ -z "$left" ] && return 0
    if [ "$SECONDS" -ge "$end" ]; then
      echo "$left"
      return 1
    fi
    sleep 0.1
  done
}

# Processes that belong to this cluster without being one of its daemons: every
# slurmstepd of our slurmds (setproctitle wipes most of its environment, but
# SLURM_CONF=<ours> survives, and it holds its node's log file under D open), their
# descendants (the job tasks), any task of a job of this cluster that left the
# tree (it has SLURM_JOB_ID and our SLURM_CONF), and the clients (srun, salloc...)
# still talking to this cluster after it is gone; `stray_pids tasks`: only the job
# tasks (batch scripts included), not steps or clients. Never this script or one of its
# ancestors. Only bash builtins in the loop, but for slurmstepd's open files.
stray_pids() {
  local only_tasks=${1:-} p line rest comm e conf job changed all
  local -a fields envs
  local -A parent=() pick=()
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    { read -r line <"/proc/$p/stat"; } 2>/dev/null || continue
    rest=${line##*) }
    read -r -a fields <<<"$rest"
    parent[$p]=${fields[1]}
    { read -r comm <"/proc/$p/comm"; } 2>/dev/null || continue
    envs=()
    { mapfile -d '' -t envs <"/proc/$p/environ"; } 2>/dev/null || continue
    conf=0
    job=0
    for e in "${envs[@]}"; do
      [ "$e" = "SLURM_CONF=$CONF" ] && conf=1
      [[ $e == SLURM_JOB_ID=* ]] && job=1
    done
    if [ "$comm" = slurmstepd ]; then
      if [ "$conf" = 1 ] || ls -l "/proc/$p/fd/" 2>/dev/null | grep -qF -- "-> $D/"; then
        pick[$p]=step
      fi
    elif [ "$conf$job" = 11 ]; then
      pick[$p]=task
    elif [ "$conf" = 1 ]; then
      case $comm in srun | salloc | sbatch | sattach) pick[$p]=client ;; esac
    fi
  done
  # descendants of what was picked, to any depth
  changed=1
  while [ "$changed" = 1 ]; do
    changed=0
    for p in "${!parent[@]}"; do
      if [ -z "${pick[$p]:-}" ] && [ -n "${pick[${parent[$p]}]:-}" ]; then
        pick[$p]=task
        changed=1
      fi
    done
  done
  p=$BASHPID
  while [ -n "$p" ] && [ "$p" != 0 ]; do
    unset "pick[$p]"
    p=${parent[$p]:-}
  done
  all=""
  for p in "${!pick[@]}"; do
    [ -n "$only_tasks" ] && [ "${pick[$p]}" != task ] && continue
    alive "$p" && all+=" $p"
  done
  echo "$all"
}

children_of() {
  local p line rest
  local -a fields
  for p in /proc/[0-9]*; do
    { read -r line <"$p/stat"; } 2>/dev/null || continue
    rest=${line##*) }
    read -r -a fields <<<"$rest"
    [ "${fields[1]}" = "$1" ] && printf '%s ' "${p#/proc/}"
  done
  return 0
}

# Safe to delete: ours, or empty.
is_ours() { [ -e "$D/$STAMP" ] || [ -z "$(ls -A "$D" 2>/dev/null)" ]; }

port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

write_conf() {
  local host=$1 i
  {
    cat <<EOF
# Generated by envdoctor tests/slurm/cluster.sh; removed by 'cluster.sh down'.
ClusterName=envdoctortest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge/munge.sock
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd-%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
MpiDefault=none
SwitchType=switch/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
# a task that ignores SIGTERM gets SIGKILL 2 s later
KillWait=2
Waittime=0
# 5 keeps 'sbatch --wait' polling every 2 s
MinJobAge=5
EOF
    for ((i = 1; i <= NNODES; i++)); do
      echo "NodeName=n$i NodeHostname=$host NodeAddr=127.0.0.1 Port=$((SLURMD_PORT + i - 1)) CPUs=1 RealMemory=1000 State=UNKNOWN"
    done
    echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
  } >"$CONF"
}

start_munged() {
  local i
  mkdir -p "$D/munge"
  chmod 755 "$D/munge" # munged wants o+x on the socket's folder
  if command -v mungekey >/dev/null 2>&1; then
    mungekey --create --keyfile="$D/munge/munge.key" --force 2>/dev/null
  else
    dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 status=none
  fi
  chmod 600 "$D/munge/munge.key"
  # munged forks into the background and writes its PID file
  munged --socket="$D/munge/munge.sock" --key-file="$D/munge/munge.key" \
    --pid-file="$D/munge/munged.pid" --log-file="$D/munge/munged.log" \
    --seed-file="$D/munge/munged.seed" --num-threads=4 \
    </dev/null >"$D/log/munged.stdout" 2>&1 || return 1
  for ((i = 0; i < 50; i++)); do
    if munge -S "$D/munge/munge.sock" -n 2>/dev/null | unmunge -S "$D/munge/munge.sock" >/dev/null 2>&1; then
      return 0
    fi
    sleep 0.1
  done
  return 1
}

# Start a daemon in its own session, detached from the caller's terminal and pipes
# (a caller reading our standard output until EOF must not wait for the daemons).
start_daemon() {
  local name=$1
  shift
  setsid "$@" </dev/null >"$D/log/$name.stdout" 2>&1 &
  echo $! >"$D/run/$name.bgpid"
}

show_logs() {
  local f
  for f in "$D"/log/* "$D"/munge/munged.log; do
    [ -s "$f" ] || continue
    printf '\n----- %s (last 25 lines) -----\n' "${f#"$D"/}" >&2
    tail -n 25 "$f" >&2
  done
}

is_up() {
  local pid
  pid=$(recorded_pid "$D/run/slurmctld.bgpid" slurmctld) || return 1
  [ -n "$pid" ]
}

up() {
  need_root
  need_commands
  local host p n i idle=0 end sockpath
  host=$(hostname -s)
  sockpath=$D/munge/munge.sock
  [ "${#sockpath}" -lt 100 ] || die "SLURM_TEST_DIR is too long for a unix socket path: $D"
  if is_up; then die "a cluster is already up in $D; run 'cluster.sh down' first"; fi
  # munged refuses a socket below a folder that others cannot enter (a 0700 temporary folder)
  p=$(dirname "$D")
  while [ "$p" != / ]; do
    if [ -d "$p" ] && [ -z "$(find "$p" -maxdepth 0 -perm -o+x)" ]; then
      die "munged needs every folder above its socket to be searchable by others: chmod o+x $p (or set SLURM_TEST_DIR elsewhere)"
    fi
    p=$(dirname "$p")
  done
  # fail fast: slurmctld would retry bind() for about 10 s before dying
  for p in "$CTLD_PORT" $(seq "$SLURMD_PORT" $((SLURMD_PORT + NNODES - 1))); do
    port_taken "$p" && die "port $p on 127.0.0.1 is already taken (set SLURMCTLD_PORT / SLURMD_PORT)"
  done
  # left over from a run that died without 'down': clean it first
  if [ -e "$D" ]; then
    is_ours || die "$D exists and was not made by cluster.sh: choose another SLURM_TEST_DIR"
    down_quiet
  fi
  # from here on, any failure (including an unexpected one) tears down what was started
  trap 'up_failed' EXIT
  mkdir -p "$D"
  : >"$D/$STAMP"
  mkdir -p "$D/state" "$D/log" "$D/run"
  for n in $(nodes); do mkdir -p "$D/spool/$n"; done
  write_conf "$host"

  start_munged || die "munged did not start"
  end=$((SECONDS + READY_TIMEOUT))
  start_daemon slurmctld slurmctld -D -c -i -f "$CONF"
  # a slurmd that starts before slurmctld listens retries its registration only a
  # second later: start the slurmds once slurmctld listens
  until port_taken "$CTLD_PORT"; do
    alive "$(cat "$D/run/slurmctld.bgpid")" || die "slurmctld exited during start-up"
    [ "$SECONDS" -lt "$end" ] || die "slurmctld did not listen on port $CTLD_PORT within ${READY_TIMEOUT}s"
    sleep 0.02
  done
  for n in $(nodes); do start_daemon "slurmd-$n" slurmd -D -N "$n" -f "$CONF"; done

  while :; do
    for f in "$D"/run/*.bgpid; do
      n=$(basename "$f" .bgpid)
      alive "$(cat "$f")" || die "$n exited during start-up"
    done
    idle=$(SLURM_CONF=$CONF sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l) || idle=0
    [ "$idle" -ge "$NNODES" ] && break
    if [ "$SECONDS" -ge "$end" ]; then
      SLURM_CONF=$CONF sinfo -N -l >&2 2>&1 || true
      die "only $idle of $NNODES nodes idle after ${READY_TIMEOUT}s"
    fi
    sleep 0.1
  done
  trap - EXIT
  say "up: $NNODES idle node(s) $(nodes | paste -sd, -) in $D"
  echo "export SLURM_CONF=$CONF"
}

down_quiet() { down >/dev/null; }

up_failed() {
  local rc=$?
  [ "$rc" = 0 ] && return 0
  say "up failed; the daemons' logs follow, then everything started is torn down"
  show_logs
  down_quiet || true
  exit "$rc"
}

down() {
  need_root
  local pid pids="" f left jobs i stray
  if [ ! -e "$D" ]; then
    say "nothing to do: $D does not exist"
    return 0
  fi
  is_ours || die "$D was not made by cluster.sh (no $STAMP): not touching it"
  # 1. while slurmctld still runs: SIGKILL every job task on this host (a plain scancel
  #    gives a task that ignores SIGTERM about 5 s), then cancel every job so that the
  #    steps report back and the queue empties
  if is_up; then
    stray=$(stray_pids tasks)
    # shellcheck disable=SC2086
    [ -z "$stray" ] || kill -KILL $stray 2>/dev/null || true
    jobs=$(SLURM_CONF=$CONF squeue -h -o %i 2>/dev/null || true)
    if [ -n "$jobs" ]; then
      # shellcheck disable=SC2086
      SLURM_CONF=$CONF scancel $jobs 2>/dev/null || true
      for ((i = 0; i < 100; i++)); do
        [ -z "$(SLURM_CONF=$CONF squeue -h -o %i 2>/dev/null || true)" ] && break
        sleep 0.1
      done
    fi
  fi
  # 2. stop the Slurm daemons by their recorded PIDs
  for f in "$D"/run/slurmd-*.bgpid; do
    [ -e "$f" ] || continue
    pid=$(recorded_pid "$f" slurmd) && pids+=" $pid"
  done
  # slurmctld and its helper child slurmscriptd
  pid=$(recorded_pid "$D/run/slurmctld.bgpid" slurmctld) && pids+=" $pid $(children_of "$pid")"
  if [ -n "$pids" ]; then
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null || true
    # shellcheck disable=SC2086
    if ! left=$(wait_gone 10 $pids); then
      say "SIGKILL to daemons that ignored SIGTERM:$left"
      # shellcheck disable=SC2086
      kill -KILL $left 2>/dev/null || true
      wait_gone 5 $left >/dev/null || true
    fi
  fi
  # 3. whatever of the jobs outlived the daemons (steps, tasks, clients): SIGKILL
  stray=$(stray_pids)
  if [ -n "$stray" ]; then
    say "SIGKILL to leftover steps, tasks and clients:$stray"
    # shellcheck disable=SC2086
    kill -KILL $stray 2>/dev/null || true
    # shellcheck disable=SC2086
    wait_gone 5 $stray >/dev/null || true
  fi
  # 4. munged last (the daemons talk to it until they exit)
  if pid=$(recorded_pid "$D/munge/munged.pid" munged); then
    kill -TERM "$pid" 2>/dev/null || true
    wait_gone 5 "$pid" >/dev/null || { kill -KILL "$pid" 2>/dev/null || true; wait_gone 2 "$pid" >/dev/null || true; }
  fi
  # 5. check, then remove the folder
  left=""
  for f in "$D"/run/*.bgpid; do
    [ -e "$f" ] || continue
    pid=$(tr -dc 0-9 <"$f")
    [ -n "$pid" ] && alive "$pid" && left+=" $pid"
  done
  [ -e "$D/munge/munged.pid" ] && recorded_pid "$D/munge/munged.pid" munged >/dev/null && left+=" munged"
  stray=$(stray_pids)
  left+=$stray
  rm -rf "$D"
  if [ -n "$left" ]; then
    say "down: still running:$left"
    return 1
  fi
  say "down: nothing left running; removed $D"
}

status() {
  local idle
  if is_up; then
    idle=$(SLURM_CONF=$CONF sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | paste -sd, -) || idle=""
    echo "up: $D (slurmctld pid $(cat "$D/run/slurmctld.bgpid"), idle nodes: ${idle:-none})"
    echo "export SLURM_CONF=$CONF"
    return 0
  fi
  if [ -e "$D" ]; then
    echo "down: $D exists but slurmctld is not running (run 'cluster.sh down' to clean up)"
  else
    echo "down: $D does not exist"
  fi
  return 1
}

case ${1:-} in
  up) up ;;
  down) down ;;
  status) status ;;
  *)
    echo "usage: $0 up|down|status   (environment: SLURM_TEST_DIR NNODES SLURMCTLD_PORT SLURMD_PORT READY_TIMEOUT)" >&2
    exit 2
    ;;
esac
