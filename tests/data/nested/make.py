#!/usr/bin/env python3
"""How the nested-data fixtures were made (pyarrow 26.0.1), for
tests/sql/nested_types.rs; run from this folder, after building tenon.

pyarrow.parquet      written by pyarrow: lists, large lists, fixed-size
                     lists, maps, structs and lists of structs, with NULL
                     values, NULL elements and empty collections.
tenon.parquet        written by `tenon query --output` from tenon.sql over
                     pyarrow.parquet (registered as t).
tenon.pyarrow.json   what pyarrow read from tenon.parquet: its schema and rows.
"""
import json
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq

row = pa.struct([('a', pa.int64()), ('b', pa.string())])
t = pa.table({
    'id': pa.array([1, 2, 3, 4, 5], pa.int64()),
    'tags': pa.array([['x', 'y'], [], None, ['z', None], ['w']], pa.list_(pa.string())),
    'big': pa.array([[1], [2, 3], None, [], [4, 5, 6]], pa.large_list(pa.int64())),
    'pair': pa.array([[1, 2], [3, 4], None, [5, None], [7, 8]], pa.list_(pa.int32(), 2)),
    'm': pa.array([[('shirt', 2), ('hat', 1)], [], None, [('a', None)], [('b', 3)]],
                  pa.map_(pa.string(), pa.int64())),
    'r': pa.array([{'a': 1, 'b': 'p'}, None, {'a': None, 'b': 'q'}, {'a': 4, 'b': None},
                   {'a': 5, 'b': 's'}], row),
    'rows': pa.array([[{'a': 1, 'b': 'p'}, {'a': 2, 'b': 'q'}], [], None,
                      [None, {'a': 3, 'b': None}], [{'a': 9, 'b': 'z'}]], pa.list_(row)),
})
pq.write_table(t, 'pyarrow.parquet')
sql = open('tenon.sql').read().strip()
subprocess.run(['../../../target/release/tenon', 'query', '--table', 't=pyarrow.parquet',
                '--output', 'tenon.parquet', sql], check=True)
back = pq.read_table('tenon.parquet')
with open('tenon.pyarrow.json', 'w') as f:
    json.dump({"schema": [f"{fld.name}: {fld.type}" for fld in back.schema],
               "rows": back.to_pylist()}, f, indent=1, default=str)
