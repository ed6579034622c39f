#!/usr/bin/env bash
# A/B of what a subscribed webhook endpoint adds to an agent reply (bench/webhooks_bench.ts), between
# a base commit and the work tree, alternately in one run on this machine, embedded PGlite first and
# PostgreSQL when reachable. Usage, from the project root:
#   bench/ab_webhook_reply.sh BASE [ROUNDS]      (ROUNDS: 3)
# Smaller runs than the bench's defaults (BENCH_WEBHOOK_* below) so a round takes about a minute.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
base=${1:?usage: bench/ab_webhook_reply.sh BASE [ROUNDS]}
rounds=${2:-3}
wt=$(mktemp -d /tmp/ab-hooks-XXXXXX)
trap 'git -C "$root" worktree remove --force "$wt" >/dev/null 2>&1 || true' EXIT
git -C "$root" worktree add --detach -f "$wt" "$base" >/dev/null 2>&1
measure() {
  (cd "$1" && BENCH_WEBHOOK_EVENTS=${EVENTS:-300} BENCH_WEBHOOK_ROUNDS=${REPLY_ROUNDS:-4} \
    BENCH_WEBHOOK_REPLIES=${REPLIES:-60} timeout 600 deno run -A bench/webhooks_bench.ts 2>&1) |
    grep -E '^\| (embedded|PostgreSQL)'
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$rounds"); do
  echo "round $i, base $(git -C "$wt" rev-parse --short HEAD):"
  measure "$wt"
  echo "round $i, HEAD $(git -C "$root" rev-parse --short HEAD) + work tree:"
  measure "$root"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
