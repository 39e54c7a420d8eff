SELECT id, tags, big, pair, m, r, rows, ARRAY[id, id * 2] AS made, MAP['k', id] AS made_map FROM t ORDER BY id
