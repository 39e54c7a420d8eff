-- Three tables on one key, each with ~10 rows a key (m2n data: a and c
-- are its probe side, b its build side): the join of a and b is 10x
-- either input, the result 100x. Binary joins, as planned by default.
SELECT count(*), sum(a.p), sum(b.p), sum(c.p)
FROM a JOIN b ON a.k = b.k JOIN c ON b.k = c.k
