-- Three tables on one key with a large intermediate and a small result:
-- a JOIN b is 10x either input, and c keeps ~1% of its rows. Binary
-- joins, as planned by default.
SELECT count(*), sum(a.p), sum(b.p), sum(c.p)
FROM a JOIN b ON a.k = b.k JOIN c ON b.k = c.k
WHERE c.p % 100 = 0
