#!/usr/bin/env bash
# How many task calls per second one Redis node, and a 3-shard Redis
# Cluster, can carry for presa-redis: Redis's own rate on this machine
# (redis-benchmark), divided by the round trips of one task's whole life
# (the `redis` bench section's `redis_round_trips_per_task`).
#
#   scripts/redis-scale.sh [RESULTS]
#
# RESULTS is a results file of scripts/bench.sh that holds the `redis`
# section (bench/results/latest.json unless named). Writes
# bench/results/redis-scale.json (REDIS_SCALE_OUT names another path),
# which presa-redis/README.md quotes.
#
# The method:
# - A private redis-server on a free port, with no persistence, as the
#   bench's own.
# - redis-benchmark, 50 clients, no pipelining (presa sends one request
#   at a time per call), measures three rates: GET (the cheapest round
#   trip), HSET of a task-sized record (a plain write), and EVALSHA of a
#   script shaped like presa's compare-and-set (two HGETs, three GETs, two
#   HSETs, an INCRBY and a PUBLISH of a task-sized record, on keys of one
#   hash tag).
# - One task's whole life costs Redis `round_trips` round trips, each a
#   script at most: the floor of what a node carries is the script rate
#   over the round trips; the ceiling is the GET rate over them.
# - Every key of one presa-redis store shares one hash tag, so one store
#   lives on one shard. A 3-shard cluster carries three stores (three
#   prefixes) at three times one node's rate; one store, one node's.
# Redis is single-threaded, so a node's rate is one core's. Here the
# benchmark client shares the machine with the server, so the rates are
# lower than on a machine of Redis's own.
set -euo pipefail
cd "$(dirname "$0")/.."

results="${1:-bench/results/latest.json}"
out="${REDIS_SCALE_OUT:-bench/results/redis-scale.json}"
requests="${REDIS_SCALE_REQUESTS:-200000}"
clients=50

trips="$(jq -r '(.figures // .).redis_round_trips_per_task // empty' "$results")"
if [ -z "$trips" ] || [ "$trips" = null ]; then
  echo "redis-scale: $results has no redis_round_trips_per_task (run the redis section)" >&2
  exit 1
fi

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
dir="$(mktemp -d)"
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
  --dir "$dir" --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
stop() {
  redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT
until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.1; done

# A record the size of a bench task's (about 600 bytes of JSON).
record="$(python3 -c 'print("{\"taskId\":\"bench-task-0000000000001\",\"status\":\"working\",\"pad\":\"" + "x" * 520 + "\"}")')"

# Shaped like presa-redis's compare-and-set: read the version, the weight
# and the byte counters, write the record, its weight and the counter,
# publish the record.
script="
local version = redis.call('HGET', KEYS[1], 'version')
local weight = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local bytes = tonumber(redis.call('GET', KEYS[3]) or '0')
local finished = tonumber(redis.call('GET', KEYS[4]) or '0')
redis.call('HSET', KEYS[1], 'json', ARGV[2], 'version', (tonumber(version) or 0) + 1)
redis.call('HSET', KEYS[2], ARGV[1], #ARGV[2])
redis.call('INCRBY', KEYS[3], #ARGV[2] - weight)
redis.call('PUBLISH', KEYS[5], ARGV[2])
return tonumber(redis.call('GET', KEYS[3])) + finished
"
sha="$(redis-cli -p "$port" script load "$script")"

# ops/s of one redis-benchmark run of the command after `--`.
rate() {
  redis-benchmark -p "$port" -n "$requests" -c "$clients" -P 1 -q "$@" \
    | tr '\r' '\n' | awk '/requests per second/ { for (i = 1; i <= NF; i++) if ($i == "requests") v = $(i - 1) } END { print v }'
}

get_rate="$(rate -t get)"
hset_rate="$(rate hset '{bench:}task:t1' json "$record")"
script_rate="$(rate evalsha "$sha" 5 '{bench:}task:t1' '{bench:}weights' '{bench:}bytes' \
  '{bench:}finished-bytes' '{bench:}changes:t1' t1 "$record")"

jq -n \
  --arg machine "$(uname -sm), $(nproc) cores" \
  --arg date "$(date -u +%Y-%m-%d)" \
  --arg version "$(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/')" \
  --argjson trips "$trips" \
  --argjson get "$get_rate" \
  --argjson hset "$hset_rate" \
  --argjson script "$script_rate" \
  --argjson clients "$clients" \
  --argjson requests "$requests" \
  '{
    run: {date: $date, machine: $machine, redis: $version, clients: $clients,
          requests: $requests, pipelining: 1},
    figures: {
      redis_round_trips_per_task: $trips,
      redis_get_ops_per_s: $get,
      redis_hset_record_ops_per_s: $hset,
      redis_cas_script_ops_per_s: $script,
      node_task_calls_per_s_floor: (($script / $trips) | floor),
      node_task_calls_per_s_ceiling: (($get / $trips) | floor),
      cluster3_task_calls_per_s_floor: ((3 * $script / $trips) | floor),
      cluster3_task_calls_per_s_ceiling: ((3 * $get / $trips) | floor),
      cluster3_one_store_task_calls_per_s_floor: (($script / $trips) | floor)
    }
  }' > "$out"
cat "$out"
