-- The same query as one multi-way join: no intermediate result.
SELECT /*+ MULTI_JOIN(a, b, c) */ count(*), sum(a.p), sum(b.p), sum(c.p)
FROM a JOIN b ON a.k = b.k JOIN c ON b.k = c.k
