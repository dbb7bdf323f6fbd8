#!/bin/sh
# The program `envdoctor fleet --slurm --envdoctor tests/slurm/node-wrapper.sh` runs on
# every node of the test cluster, in place of envdoctor itself. It gets envdoctor's
# arguments (check --format json --no-smoke ...) and, from the environment srun passes
# on to every task:
#   ENVDOCTOR_TEST_BIN          the real envdoctor binary (required)
#   ENVDOCTOR_TEST_DIFFER_NODE  on this node, NCCL_IB_DISABLE=1 is set before envdoctor
#                               runs: one node differs by an NCCL variable set only there
#   ENVDOCTOR_TEST_HANG_NODE    on this node, never answer: sleep instead
#   ENVDOCTOR_TEST_HANG_SECS    how long that sleep lasts (default 300)
# The node is $SLURMD_NODENAME, which slurmd sets for every task.
set -eu

node=${SLURMD_NODENAME:-}

if [ -n "${ENVDOCTOR_TEST_HANG_NODE:-}" ] && [ "$node" = "$ENVDOCTOR_TEST_HANG_NODE" ]; then
  exec sleep "${ENVDOCTOR_TEST_HANG_SECS:-300}"
fi

if [ -n "${ENVDOCTOR_TEST_DIFFER_NODE:-}" ] && [ "$node" = "$ENVDOCTOR_TEST_DIFFER_NODE" ]; then
  NCCL_IB_DISABLE=1
  export NCCL_IB_DISABLE
fi

if [ -z "${ENVDOCTOR_TEST_BIN:-}" ]; then
  echo "node-wrapper.sh: ENVDOCTOR_TEST_BIN is not set (node ${node:-unknown})" >&2
  exit 2
fi
exec "$ENVDOCTOR_TEST_BIN" "$@"
