#!/usr/bin/env bash
# Writes the seed corpus of the `sql` target to fuzz/corpus/sql/: the TPC-H
# queries (comment lines dropped) and the differential test's queries, one
# statement per file. The fuzzer adds what it finds to the same directory.
set -euo pipefail
cd "$(dirname "$0")"
out=corpus/sql
mkdir -p "$out"
for f in ../tests/tpch/queries/q[0-9][0-9].sql; do
  grep -v '^[[:space:]]*--' "$f" | sed 's/;[[:space:]]*$//' > "$out/tpch_$(basename "$f" .sql)"
done
grep -v '^-- case' ../tests/differential/cases.sql | awk -v out="$out" '{ sub(/;$/, ""); printf "%s", $0 > (out "/diff_" NR); close(out "/diff_" NR) }'
echo "$(ls "$out" | wc -l) files in $out"
