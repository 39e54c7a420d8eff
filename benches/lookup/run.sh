#!/usr/bin/env bash
# Lookup joins against a per-row loop and against scan-and-join, on SQLite
# and on a PostgreSQL 15 server this script starts on a free loopback port
# in a temporary directory (as the postgres user when run as root) and
# stops when it ends. Arguments go to the example, e.g.
#   bash benches/lookup/run.sh --orders 1000000 --customers 100000 --threads 2 --runs 3
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
cargo build --release --example lookup_bench
if [ ! -x "$BIN/pg_ctl" ]; then
  echo "PostgreSQL: no server binaries in $BIN (set PG_BIN); SQLite only" >&2
  exec target/release/examples/lookup_bench "$@"
fi
dir=$(mktemp -d /tmp/tenon-lookup-pg.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_pg=()
if [ "$(id -u)" = 0 ]; then
  chown postgres "$dir"
  as_pg=(runuser -u postgres --)
fi
stop() {
  "${as_pg[@]}" "$BIN/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT
"${as_pg[@]}" "$BIN/initdb" -D "$dir/data" -A trust -U tenon -E UTF8 --no-sync >/dev/null
"${as_pg[@]}" "$BIN/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
target/release/examples/lookup_bench --postgres "127.0.0.1:$port" --pg-user tenon "$@"
