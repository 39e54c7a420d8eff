-- case 0 hint=c,a
SELECT replace(c.g, 'a', 'o') AS c0, CASE WHEN a.x > 1.5 THEN c.g ELSE 'other' END AS c1, a.x * 2.0 AS c2 FROM t3 c LEFT JOIN t1 a ON c.k = a.k AND a.s LIKE '_pple' WHERE c.k + 2 <> c.k;
-- case 1
SELECT b.k, b.s FROM t2 b WHERE b.d <> DATE '2000-02-29' INTERSECT ALL SELECT b.k, upper(b.s) FROM t2 b;
-- case 2
SELECT coalesce(b.s, 'none') AS c0, b.y AS c1, coalesce(b.id, 0) AS c2 FROM t2 b WHERE b.k < (SELECT min(c.k) FROM t3 c);
-- case 3 hint=a,b,c
SELECT b.s AS g0, max(a.k) AS a0, avg(b.y) AS a1 FROM t1 a LEFT JOIN t2 b ON a.k = b.k LEFT JOIN t3 c ON c.k = a.k GROUP BY b.s HAVING count(*) > 0;
-- case 4 hint=a,b
SELECT b.s AS c0 FROM t1 a RIGHT JOIN t2 b ON a.k = b.k WHERE a.m >= 0;
-- case 5
SELECT b.k, 'apple' FROM t2 b INTERSECT ALL SELECT a.k, 'apple' FROM t1 a;
-- case 6 hint=b,a,c
SELECT a.m * 2 AS c0 FROM t2 b CROSS JOIN t1 a LEFT JOIN t3 c ON c.k = b.k WHERE length(b.s) < 0;
-- case 7 ordered hint=b,a,c
SELECT a.s AS c0, length(c.g) AS c1, c.g || '-' AS c2 FROM t2 b CROSS JOIN t1 a FULL JOIN t3 c ON c.k = a.k WHERE c.n IN (1, 3, 1) ORDER BY 1 DESC NULLS LAST, 2 ASC NULLS FIRST, 3 ASC NULLS FIRST;
-- case 8
SELECT upper(a.s) FROM t1 a WHERE a.k IS NOT NULL INTERSECT ALL SELECT b.s FROM t2 b WHERE (b.id IS NULL OR b.d < DATE '2000-02-29');
-- case 9 ordered
SELECT b.s AS c0 FROM t2 b WHERE EXISTS (SELECT 1 FROM t1 a WHERE a.k = b.k) ORDER BY 1 ASC NULLS LAST LIMIT 3 OFFSET 1;
-- case 10
SELECT count(*) AS n FROM (SELECT a.x FROM t1 a WHERE trim(a.s) >= 'apple' UNION SELECT b.y FROM t2 b) u;
-- case 11
SELECT b.k FROM t2 b WHERE b.id NOT IN (5) EXCEPT ALL SELECT b.k FROM t2 b WHERE b.y <> -0.0;
-- case 12 ordered
SELECT * FROM (SELECT a.k, a.s FROM t1 a WHERE a.id IN (10, -4, NULL) EXCEPT ALL SELECT a.k, upper(a.s) FROM t1 a WHERE a.k NOT IN (2, 0, 10)) u ORDER BY 2 DESC NULLS FIRST, 1 DESC NULLS FIRST;
-- case 13 ordered
SELECT abs(b.y) AS c0, b.d AS c1 FROM t2 b WHERE b.y = 1.5 ORDER BY 2 ASC NULLS LAST, 1 DESC NULLS LAST LIMIT 5;
-- case 14
SELECT c.k FROM t3 c WHERE length(c.g) > c.k INTERSECT ALL SELECT c.k FROM t3 c;
-- case 15
SELECT b.s AS c0, replace(b.s, 'a', 'o') AS c1, b.d AS c2, (SELECT count(c.k) FROM t3 c) AS sq FROM t2 b WHERE b.s IS NULL;
-- case 16 ordered hint=a,c,b
SELECT coalesce(a.id, 3) AS c0 FROM t1 a FULL JOIN t3 c ON a.k = c.k AND c.g > 'kiwi' FULL JOIN t2 b ON b.k = a.k WHERE c.k > c.n ORDER BY 1 DESC NULLS LAST LIMIT 3;
-- case 17
SELECT c.k AS g0, min(c.g) AS a0, count(c.g) AS a1, avg(c.k) AS a2 FROM t3 c WHERE c.n > 0 GROUP BY c.k;
-- case 18
SELECT b.k AS g0, b.id AS g1, count(*) AS a0, count(DISTINCT b.k) AS a1 FROM t2 b GROUP BY b.k, b.id;
-- case 19
SELECT b.d AS c0 FROM t2 b WHERE b.k NOT IN (SELECT c.k FROM t3 c WHERE c.n IS NULL);
-- case 20 ordered
SELECT b.s AS g0, sum(b.k) AS a0, max(b.s) AS a1, count(*) AS a2 FROM t2 b GROUP BY b.s ORDER BY 1 DESC NULLS LAST, 2 ASC NULLS FIRST, 4 ASC NULLS LAST, 3 ASC NULLS FIRST;
-- case 21
SELECT a.s AS c0, a.x AS c1, length(a.s) AS c2, coalesce(a.s, 'none') AS c3 FROM t1 a WHERE a.k = (SELECT max(b.k) FROM t2 b);
-- case 22
SELECT b.y FROM t2 b WHERE b.id IS NULL EXCEPT SELECT a.x FROM t1 a;
-- case 23 ordered
SELECT a.d AS c0, trim(a.s) AS c1 FROM t1 a WHERE a.k IN (SELECT b.k FROM t2 b WHERE b.y <> 1.5) ORDER BY 2 ASC NULLS FIRST, 1 DESC NULLS LAST;
-- case 24 hint=a,c
SELECT a.s AS g0, a.s AS g1, max(a.m) AS a0, count(DISTINCT a.id) AS a1 FROM t1 a LEFT OUTER JOIN t3 c ON a.k = c.k WHERE (c.k IS NULL OR a.d <= DATE '1970-01-01') GROUP BY a.s, a.s HAVING count(*) = 2;
-- case 25
SELECT DISTINCT a.x AS c0, coalesce(a.k, 0) AS c1, lower(a.s) AS c2, coalesce(a.id, 2) AS c3, a.s AS c4 FROM t1 a WHERE length(a.s) <= 5;
-- case 26 hint=c,a
SELECT a.id AS c0, c.n AS c1, length(c.g) AS c2, a.id AS c3 FROM t3 c LEFT JOIN t1 a ON c.k = a.k WHERE a.x >= 0.0;
-- case 27 hint=a,c
SELECT c.k AS g0, count(DISTINCT a.d) AS a0, max(a.k) AS a1, min(a.d) AS a2 FROM t1 a JOIN t3 c ON a.k = c.k AND a.s IS NOT NULL GROUP BY c.k;
-- case 28
SELECT lower(c.g) AS c0, (SELECT max(b.k) FROM t2 b) AS sq FROM t3 c WHERE c.g NOT LIKE '%';
-- case 29
SELECT c.k FROM t3 c INTERSECT ALL SELECT c.k FROM t3 c;
-- case 30
SELECT a.s AS g0, count(DISTINCT a.s) AS a0, sum(a.k) AS a1, count(DISTINCT a.d) AS a2 FROM t1 a WHERE a.id IN (-20, 2, 1, 2) GROUP BY a.s;
-- case 31 ordered
SELECT b.k AS g0, b.s AS g1, avg(b.k) AS a0 FROM t2 b WHERE b.s NOT LIKE '_pple' GROUP BY b.k, b.s ORDER BY 1 DESC NULLS LAST, 2 ASC NULLS FIRST, 3 ASC NULLS LAST LIMIT 2 OFFSET 3;
-- case 32 hint=b,c,a
SELECT b.k AS g0, sum(b.y) AS a0, count(DISTINCT a.m) AS a1, max(b.y) AS a2 FROM t2 b RIGHT JOIN t3 c ON b.k = c.k LEFT JOIN t1 a ON a.k = b.k WHERE (c.g IS NOT NULL OR a.k BETWEEN -1 AND 3) GROUP BY b.k;
-- case 33
SELECT c.k + 3 AS c0, c.n AS c1, c.n AS c2 FROM t3 c WHERE c.k NOT IN (SELECT b.k FROM t2 b);
-- case 34
SELECT count(c.n) AS a0, min(c.k) AS a1, sum(c.k) AS a2 FROM t3 c WHERE c.g NOT LIKE '%';
-- case 35
SELECT b.s AS g0, avg(b.k) AS a0 FROM t2 b GROUP BY b.s;
-- case 36 ordered
SELECT * FROM (SELECT a.x FROM t1 a INTERSECT ALL SELECT b.y FROM t2 b WHERE b.s LIKE '_pple') u ORDER BY 1 DESC NULLS FIRST;
-- case 37 hint=b,c
SELECT c.k AS g0, c.k AS g1, count(*) AS a0 FROM t2 b INNER JOIN t3 c ON b.k IS NOT DISTINCT FROM c.k GROUP BY c.k, c.k;
-- case 38 ordered
SELECT CASE WHEN NOT (c.n <> c.k) THEN CASE WHEN c.g LIKE 'a%' THEN c.k ELSE 3 END ELSE 10 END AS c0, c.k * 2 AS c1 FROM t3 c WHERE c.k IN (SELECT b.k FROM t2 b) ORDER BY 2 DESC NULLS FIRST, 1 ASC NULLS LAST;
-- case 39 hint=c,b,a
SELECT a.k AS g0, a.s AS g1, max(b.d) AS a0, count(*) AS a1, count(DISTINCT a.k) AS a2 FROM t3 c RIGHT JOIN t2 b ON c.k = b.k AND b.d <= DATE '2000-02-29' LEFT JOIN t1 a ON a.k = b.k GROUP BY a.k, a.s HAVING count(*) >= 0;
-- case 40
SELECT a.s FROM t1 a WHERE NOT (a.s LIKE 'a%') EXCEPT ALL SELECT upper(b.s) FROM t2 b;
-- case 41
SELECT b.k, b.d FROM t2 b UNION SELECT b.k, b.d FROM t2 b;
-- case 42
SELECT a.m AS c0, a.s AS c1, a.k AS c2, (SELECT min(c.k) FROM t3 c WHERE c.k = a.k) AS sq FROM t1 a WHERE a.s <> 'Apple';
-- case 43
SELECT a.k % 3 AS c0 FROM t1 a WHERE NOT EXISTS (SELECT 1 FROM t3 c WHERE c.k = a.k);
-- case 44
SELECT c.g AS g0, c.g AS g1, count(*) AS a0, avg(c.k) AS a1 FROM t3 c GROUP BY c.g, c.g;
-- case 45
SELECT DISTINCT coalesce(c.n, 0) AS c0, c.n AS c1, length(c.g) AS c2 FROM t3 c WHERE c.g <> 'a%b';
-- case 46
SELECT c.g || '-' AS c0, c.n + 1 AS c1, CASE WHEN (c.g IS NULL AND c.n BETWEEN -5 AND 0) THEN c.g ELSE 'other' END AS c2 FROM t3 c WHERE c.k IN (0, 1);
-- case 47 hint=b,c
SELECT c.g AS g0, max(b.y) AS a0 FROM t2 b CROSS JOIN t3 c GROUP BY c.g;
-- case 48 ordered hint=a,b
SELECT DISTINCT substr(a.s, 2, 3) AS c0, CASE WHEN b.id BETWEEN 0 AND 2 THEN b.s ELSE 'other' END AS c1, b.y AS c2 FROM t1 a RIGHT JOIN t2 b ON a.k = b.k WHERE b.id IN (3, 1, 3, -4) ORDER BY 3 ASC NULLS FIRST, 2 DESC NULLS LAST, 1 DESC NULLS LAST LIMIT 3;
-- case 49
SELECT c.n AS g0, c.g AS g1, count(*) AS a0 FROM t3 c GROUP BY c.n, c.g;
-- case 50 hint=a,b,c
SELECT b.k AS g0, b.s AS g1, avg(b.k) AS a0 FROM t1 a RIGHT JOIN t2 b ON a.k = b.k FULL JOIN t3 c ON c.k = b.k GROUP BY b.k, b.s;
-- case 51 hint=c,b
SELECT b.s || '-' AS c0, b.d AS c1 FROM t3 c JOIN t2 b ON c.k IS NOT DISTINCT FROM b.k AND b.y <= -0.0;
-- case 52 ordered
SELECT b.d AS c0, b.s AS c1, b.y AS c2, b.k + -20 AS c3 FROM t2 b WHERE EXISTS (SELECT 1 FROM t1 a WHERE a.k = b.k) ORDER BY 3 DESC NULLS FIRST, 4 DESC NULLS LAST, 1 DESC NULLS FIRST, 2 DESC NULLS FIRST;
-- case 53 hint=b,a,c
SELECT a.id AS g0, b.s AS g1, avg(a.k) AS a0 FROM t2 b FULL JOIN t1 a ON b.k = a.k LEFT JOIN t3 c ON c.k = a.k WHERE a.x > 1.5 GROUP BY a.id, b.s;
-- case 54 hint=c,a
SELECT DISTINCT CASE WHEN a.k BETWEEN 2 AND 4 THEN coalesce(a.k, 2) ELSE -4 END AS c0 FROM t3 c LEFT OUTER JOIN t1 a ON c.k IS NOT DISTINCT FROM a.k AND a.k BETWEEN -2 AND 1;
-- case 55 ordered hint=c,b
SELECT b.id AS c0, b.d AS c1, length(b.s) AS c2 FROM t3 c INNER JOIN t2 b ON c.k = b.k AND b.d > DATE '1995-03-15' WHERE (c.n >= 10 OR b.y < CAST('NaN' AS DOUBLE)) ORDER BY 1 ASC NULLS FIRST, 2 ASC NULLS FIRST, 3 DESC NULLS LAST LIMIT 6;
-- case 56 ordered
SELECT b.s AS g0, b.id AS g1, count(DISTINCT b.y) AS a0 FROM t2 b GROUP BY b.s, b.id ORDER BY 3 DESC NULLS FIRST, 1 ASC NULLS FIRST, 2 ASC NULLS FIRST LIMIT 4;
-- case 57 ordered
SELECT * FROM (SELECT upper(c.g) FROM t3 c WHERE c.g LIKE '%an%' EXCEPT ALL SELECT c.g FROM t3 c) u ORDER BY 1 DESC NULLS FIRST;
-- case 58
SELECT b.y AS c0, lower(b.s) AS c1, (SELECT sum(c.k) FROM t3 c WHERE c.k = b.k) AS sq FROM t2 b WHERE b.d <= DATE '2000-02-29';
-- case 59 ordered hint=b,c
SELECT DISTINCT b.k AS c0, upper(c.g) AS c1, b.d AS c2 FROM t2 b LEFT JOIN t3 c ON b.k = c.k ORDER BY 3 ASC NULLS FIRST, 2 DESC NULLS FIRST, 1 DESC NULLS LAST LIMIT 6;
-- case 60
SELECT count(*) AS n FROM (SELECT a.k, a.s FROM t1 a WHERE a.x > 0.0 EXCEPT ALL SELECT b.k, b.s FROM t2 b WHERE b.k >= 2) u;
-- case 61 hint=a,c
SELECT c.g AS g0, count(DISTINCT a.x) AS a0 FROM t1 a RIGHT JOIN t3 c ON a.k = c.k GROUP BY c.g HAVING count(*) > 1;
-- case 62 ordered hint=a,b
SELECT b.s || '-' AS c0 FROM t1 a LEFT JOIN t2 b ON a.k = b.k ORDER BY 1 ASC NULLS LAST LIMIT 1 OFFSET 3;
-- case 63 ordered hint=c,a
SELECT c.n AS c0, a.k AS c1 FROM t3 c JOIN t1 a ON c.k = a.k WHERE a.k IN (-4, NULL) ORDER BY 1 DESC NULLS FIRST, 2 DESC NULLS LAST LIMIT 6;
-- case 64 hint=c,a
SELECT a.s AS g0, max(a.m) AS a0 FROM t3 c FULL JOIN t1 a ON c.k = a.k GROUP BY a.s;
-- case 65
SELECT min(a.m) AS a0 FROM t1 a WHERE a.id NOT IN (2, 2, 2);
-- case 66
SELECT a.k AS g0, avg(a.x) AS a0 FROM t1 a GROUP BY a.k HAVING count(*) = 1;
-- case 67 hint=a,c
SELECT DISTINCT c.n AS c0 FROM t1 a RIGHT JOIN t3 c ON a.k = c.k AND a.k BETWEEN 1 AND 5 WHERE CASE WHEN a.x = -0.0 THEN a.k ELSE 3 END >= c.n;
-- case 68
SELECT b.k, upper(b.s) FROM t2 b INTERSECT ALL SELECT b.k, b.s FROM t2 b;
-- case 69
SELECT c.k FROM t3 c UNION SELECT c.k FROM t3 c;
-- case 70 hint=a,b
SELECT a.k AS c0, a.m * 2 AS c1, lower(a.s) AS c2, b.y AS c3 FROM t1 a INNER JOIN t2 b ON a.k = b.k;
-- case 71
SELECT max(b.s) AS a0 FROM t2 b;
-- case 72 hint=c,a,b
SELECT sum(b.k) AS a0, avg(a.x) AS a1 FROM t3 c LEFT OUTER JOIN t1 a ON c.k = a.k LEFT JOIN t2 b ON b.k = a.k WHERE a.d <= DATE '1994-01-01';
-- case 73 ordered hint=a,b
SELECT b.s AS c0, a.m AS c1, b.s AS c2, a.d AS c3 FROM t1 a JOIN t2 b ON a.k = b.k WHERE a.m <= 0 ORDER BY 4 DESC NULLS LAST, 2 ASC NULLS FIRST, 1 ASC NULLS FIRST, 3 ASC NULLS FIRST;
-- case 74 hint=b,c,a
SELECT DISTINCT a.d AS c0 FROM t2 b RIGHT JOIN t3 c ON b.k = c.k JOIN t1 a ON a.k = b.k WHERE a.m < 0;
-- case 75
SELECT count(*) AS n FROM (SELECT b.y FROM t2 b INTERSECT SELECT b.y FROM t2 b) u;
-- case 76
SELECT count(*) AS n FROM (SELECT c.k FROM t3 c INTERSECT ALL SELECT b.k FROM t2 b) u;
-- case 77
SELECT length(b.s) AS c0, b.k * 2 AS c1, abs(b.k) AS c2, abs(b.y) AS c3 FROM t2 b WHERE NOT EXISTS (SELECT 1 FROM t1 a WHERE a.k = b.k AND a.x > CAST('NaN' AS DOUBLE));
-- case 78
SELECT sum(b.id) AS a0, count(b.s) AS a1 FROM t2 b;
-- case 79 ordered
SELECT DISTINCT c.g AS c0, c.g AS c1, c.k AS c2 FROM t3 c ORDER BY 1 DESC NULLS FIRST, 2 ASC NULLS LAST, 3 ASC NULLS LAST LIMIT 0;
-- case 80
SELECT a.id AS g0, count(DISTINCT a.s) AS a0, avg(a.x) AS a1, sum(a.id) AS a2 FROM t1 a WHERE upper(a.s) >= 'banana' GROUP BY a.id;
-- case 81 hint=b,a
SELECT a.x * 2.0 AS c0, coalesce(b.y, -1.0) AS c1, a.k AS c2, a.k * 2 AS c3 FROM t2 b JOIN t1 a ON b.k = a.k AND a.d >= DATE '1996-01-01';
-- case 82 ordered
SELECT coalesce(c.k, 3) AS c0, coalesce(c.n, 0) AS c1, CASE WHEN c.g LIKE '%' THEN c.n ELSE -4 END AS c2 FROM t3 c WHERE c.k < (SELECT sum(b.k) FROM t2 b) ORDER BY 1 DESC NULLS FIRST, 2 DESC NULLS LAST, 3 ASC NULLS FIRST LIMIT 2 OFFSET 3;
-- case 83
SELECT a.id AS g0, a.s AS g1, count(*) AS a0, sum(a.x) AS a1 FROM t1 a GROUP BY a.id, a.s;
-- case 84 hint=a,b
SELECT a.id * 2 AS c0, a.s AS c1 FROM t1 a JOIN t2 b ON a.k = b.k WHERE (b.k < b.id AND (a.m >= -0.01 OR b.k NOT IN (-4, 1, 1, 2)));
-- case 85 ordered
SELECT a.m * 2 AS c0, a.s AS c1 FROM t1 a ORDER BY 2 ASC NULLS FIRST, 1 DESC NULLS LAST LIMIT 6 OFFSET 3;
-- case 86 ordered hint=b,c,a
SELECT c.g AS g0, max(a.s) AS a0, count(b.s) AS a1 FROM t2 b CROSS JOIN t3 c RIGHT JOIN t1 a ON a.k = c.k GROUP BY c.g ORDER BY 2 DESC NULLS FIRST, 1 ASC NULLS LAST, 3 DESC NULLS FIRST LIMIT 4;
-- case 87 hint=b,a,c
SELECT a.s AS g0, count(DISTINCT a.m) AS a0 FROM t2 b LEFT OUTER JOIN t1 a ON b.k = a.k AND b.y <> CAST('NaN' AS DOUBLE) FULL JOIN t3 c ON c.k = b.k GROUP BY a.s;
-- case 88 hint=c,a
SELECT c.g AS g0, min(a.x) AS a0, min(a.m) AS a1, max(a.k) AS a2 FROM t3 c FULL JOIN t1 a ON c.k = a.k WHERE a.s IS NULL GROUP BY c.g;
-- case 89
SELECT CASE WHEN c.g NOT LIKE 'a%' THEN c.g ELSE 'other' END AS c0, c.k + 10 AS c1, c.n AS c2, (SELECT max(a.k) FROM t1 a) AS sq FROM t3 c WHERE c.g LIKE '%';
-- case 90 ordered
SELECT * FROM (SELECT upper(a.s) FROM t1 a UNION ALL SELECT upper(a.s) FROM t1 a) u ORDER BY 1 DESC NULLS LAST LIMIT 2 OFFSET 2;
-- case 91
SELECT c.k FROM t3 c WHERE CASE WHEN c.n IS NOT NULL THEN c.g ELSE 'other' END >= 'a%b' UNION ALL SELECT c.k FROM t3 c WHERE c.n BETWEEN 0 AND 3;
-- case 92
SELECT count(*) AS a0 FROM t3 c WHERE (c.k BETWEEN 3 AND 3 OR c.g <= 'kiwi');
-- case 93
SELECT DISTINCT c.k AS c0, c.g AS c1, CASE WHEN (c.n IS NOT NULL AND c.g IS NULL) THEN c.n * 2 ELSE -4 END AS c2, c.n + 3 AS c3 FROM t3 c;
-- case 94 ordered
SELECT c.g AS c0, c.n AS c1, CASE WHEN c.g > 'kiwi' THEN c.k + 10 ELSE 10 END AS c2, CASE WHEN c.g IS NULL THEN c.n ELSE 2 END AS c3, (SELECT sum(b.k) FROM t2 b WHERE b.k = c.k) AS sq FROM t3 c WHERE c.g >= 'banana' ORDER BY 4 DESC NULLS FIRST, 1 DESC NULLS FIRST, 2 ASC NULLS LAST, 5 DESC NULLS FIRST, 3 DESC NULLS LAST LIMIT 2 OFFSET 3;
-- case 95 hint=a,b
SELECT b.s AS c0 FROM t1 a LEFT JOIN t2 b ON a.k = b.k WHERE b.s LIKE 'a%';
-- case 96 ordered
SELECT b.y AS c0, b.k AS c1, CASE WHEN b.s = 'a%b' THEN b.k ELSE 3 END AS c2, b.d AS c3 FROM t2 b WHERE b.s <= 'banana' ORDER BY 2 DESC NULLS FIRST, 3 DESC NULLS FIRST, 4 ASC NULLS FIRST, 1 DESC NULLS FIRST LIMIT 2 OFFSET 2;
-- case 97 hint=a,b,c
SELECT a.m * 2 AS c0, a.d AS c1 FROM t1 a INNER JOIN t2 b ON a.k = b.k AND b.id > 5 LEFT JOIN t3 c ON c.k = b.k;
-- case 98 hint=a,c
SELECT sum(c.n) AS a0, max(a.m) AS a1 FROM t1 a INNER JOIN t3 c ON a.k = c.k WHERE a.id + 5 <> 1;
-- case 99
SELECT b.k AS g0, b.s AS g1, avg(b.k) AS a0 FROM t2 b GROUP BY b.k, b.s;
-- case 100
SELECT c.k * 2 AS c0, trim(c.g) AS c1 FROM t3 c WHERE EXISTS (SELECT 1 FROM t1 a WHERE a.k = c.k);
-- case 101
SELECT DISTINCT length(c.g) AS c0, coalesce(c.k, 2) AS c1, c.k % 3 AS c2 FROM t3 c WHERE c.n IS NOT NULL;
-- case 102 ordered hint=c,a
SELECT a.id AS c0, a.m AS c1, a.m * 2 AS c2 FROM t3 c CROSS JOIN t1 a ORDER BY 3 DESC NULLS LAST, 2 DESC NULLS FIRST, 1 DESC NULLS LAST;
-- case 103 hint=b,a
SELECT substr(b.s, 2, 3) AS c0 FROM t2 b JOIN t1 a ON b.k = a.k;
-- case 104
SELECT a.id * 2 AS c0, CASE WHEN a.x > 0.0 THEN a.s ELSE 'other' END AS c1 FROM t1 a WHERE a.s LIKE 'a%';
-- case 105 hint=b,a
SELECT a.d AS c0 FROM t2 b RIGHT JOIN t1 a ON b.k IS NOT DISTINCT FROM a.k WHERE a.k IS NOT NULL;
-- case 106 hint=c,a
SELECT a.x * 2.0 AS c0 FROM t3 c LEFT OUTER JOIN t1 a ON c.k = a.k AND c.g IS NULL WHERE (a.x <> 0.0 OR a.id IS NULL);
-- case 107 hint=b,c
SELECT coalesce(b.s, 'none') AS c0, b.d AS c1, c.g AS c2, length(b.s) AS c3 FROM t2 b RIGHT JOIN t3 c ON b.k = c.k AND b.d < DATE '1970-01-01' WHERE b.k * 2 >= 10;
-- case 108
SELECT b.k AS g0, b.s AS g1, count(b.id) AS a0, min(b.k) AS a1, count(b.s) AS a2 FROM t2 b GROUP BY b.k, b.s;
-- case 109 hint=a,b
SELECT a.m * 2 AS c0, a.d AS c1, a.x AS c2, a.x AS c3 FROM t1 a LEFT OUTER JOIN t2 b ON a.k = b.k AND b.s NOT LIKE '_pple' WHERE b.k = 2;
-- case 110 hint=c,b
SELECT length(c.g) AS c0 FROM t3 c FULL JOIN t2 b ON c.k = b.k AND b.s IS NULL;
-- case 111 hint=b,a
SELECT a.m AS c0, a.x AS c1 FROM t2 b JOIN t1 a ON b.k = a.k WHERE a.id % 3 <> b.id;
-- case 112 ordered hint=a,c
SELECT c.g AS g0, count(*) AS a0, count(DISTINCT a.m) AS a1, avg(a.m) AS a2 FROM t1 a LEFT JOIN t3 c ON a.k = c.k GROUP BY c.g HAVING count(*) = 1 ORDER BY 4 ASC NULLS FIRST, 3 ASC NULLS FIRST, 1 DESC NULLS LAST, 2 DESC NULLS FIRST;
-- case 113 ordered
SELECT max(b.y) AS a0 FROM t2 b ORDER BY 1 ASC NULLS LAST LIMIT 1;
-- case 114 hint=c,a,b
SELECT DISTINCT a.k % 3 AS c0 FROM t3 c LEFT JOIN t1 a ON c.k = a.k JOIN t2 b ON b.k = a.k WHERE (c.g LIKE '%' OR b.y <= 0.0);
-- case 115 ordered hint=a,b
SELECT a.s AS g0, a.k AS g1, avg(a.k) AS a0 FROM t1 a LEFT OUTER JOIN t2 b ON a.k = b.k GROUP BY a.s, a.k ORDER BY 1 DESC NULLS FIRST, 3 ASC NULLS LAST, 2 DESC NULLS LAST;
-- case 116 ordered hint=b,c
SELECT b.s AS c0 FROM t2 b CROSS JOIN t3 c WHERE b.d > DATE '1996-01-01' ORDER BY 1 ASC NULLS FIRST LIMIT 3;
-- case 117 ordered hint=c,a,b
SELECT c.n AS c0, a.d AS c1, a.x AS c2, lower(c.g) AS c3 FROM t3 c LEFT JOIN t1 a ON c.k IS NOT DISTINCT FROM a.k FULL JOIN t2 b ON b.k = a.k WHERE a.id NOT IN (0, 0, 1) ORDER BY 3 ASC NULLS FIRST, 2 ASC NULLS LAST, 1 ASC NULLS FIRST, 4 DESC NULLS LAST LIMIT 3;
-- case 118 ordered hint=a,b
SELECT a.k AS g0, b.s AS g1, count(DISTINCT a.d) AS a0, count(DISTINCT a.m) AS a1 FROM t1 a LEFT OUTER JOIN t2 b ON a.k = b.k GROUP BY a.k, b.s ORDER BY 4 ASC NULLS LAST, 2 ASC NULLS LAST, 1 ASC NULLS FIRST, 3 DESC NULLS FIRST LIMIT 0;
-- case 119
SELECT b.d AS c0 FROM t2 b WHERE b.y = -0.0;
-- case 120 hint=c,b
SELECT DISTINCT b.k % 3 AS c0, b.d AS c1, b.y AS c2, c.g AS c3 FROM t3 c LEFT JOIN t2 b ON c.k = b.k WHERE b.d = DATE '2000-02-29';
-- case 121
SELECT DISTINCT c.n * 2 AS c0 FROM t3 c WHERE c.g || '-' = 'a%b';
-- case 122 hint=b,a
SELECT b.id AS c0, replace(b.s, 'a', 'o') AS c1, b.k * 2 AS c2, a.s AS c3 FROM t2 b LEFT JOIN t1 a ON b.k = a.k AND b.id > 2 WHERE (a.s LIKE 'a%' AND b.s IS NULL);
-- case 123
SELECT c.k AS g0, c.g AS g1, count(DISTINCT c.n) AS a0, count(c.k) AS a1 FROM t3 c WHERE c.g LIKE '_pple' GROUP BY c.k, c.g;
-- case 124 hint=b,c,a
SELECT count(*) AS a0, count(a.x) AS a1 FROM t2 b LEFT OUTER JOIN t3 c ON b.k = c.k AND c.n NOT IN (-20, 1) RIGHT JOIN t1 a ON a.k = b.k;
-- case 125 hint=a,c
SELECT a.s AS g0, a.s AS g1, avg(a.x) AS a0, count(DISTINCT a.x) AS a1, count(c.g) AS a2 FROM t1 a LEFT JOIN t3 c ON a.k = c.k WHERE a.m > 0 GROUP BY a.s, a.s;
-- case 126 hint=a,b
SELECT a.s AS g0, count(*) AS a0, sum(a.k) AS a1 FROM t1 a INNER JOIN t2 b ON a.k = b.k AND b.s NOT LIKE '%' WHERE a.s NOT LIKE 'a%' GROUP BY a.s HAVING count(*) > 2;
-- case 127
SELECT b.d AS c0, b.d AS c1 FROM t2 b WHERE b.k = (SELECT min(a.k) FROM t1 a);
-- case 128
SELECT count(a.id) AS a0, avg(a.m) AS a1, count(a.s) AS a2 FROM t1 a;
-- case 129 ordered hint=c,b,a
SELECT coalesce(b.y, -1.0) AS c0 FROM t3 c JOIN t2 b ON c.k = b.k RIGHT JOIN t1 a ON a.k = b.k ORDER BY 1 DESC NULLS LAST LIMIT 4;
-- case 130 ordered hint=c,a
SELECT DISTINCT c.n % 3 AS c0, c.k AS c1, a.m AS c2 FROM t3 c RIGHT JOIN t1 a ON c.k IS NOT DISTINCT FROM a.k ORDER BY 1 DESC NULLS LAST, 3 ASC NULLS LAST, 2 ASC NULLS FIRST LIMIT 0;
-- case 131 hint=c,a
SELECT a.x AS c0, upper(a.s) AS c1, replace(a.s, 'a', 'o') AS c2, a.x AS c3 FROM t3 c LEFT OUTER JOIN t1 a ON c.k = a.k AND a.s < 'banana';
-- case 132 ordered hint=a,b
SELECT upper(b.s) AS c0, a.m AS c1 FROM t1 a RIGHT JOIN t2 b ON a.k = b.k AND a.x > -1.5 WHERE b.s >= '' ORDER BY 1 ASC NULLS FIRST, 2 DESC NULLS FIRST;
-- case 133 hint=c,a
SELECT a.k AS c0, abs(a.x) AS c1, coalesce(a.x, -1.0) AS c2, a.x AS c3 FROM t3 c LEFT JOIN t1 a ON c.k = a.k;
-- case 134 ordered
SELECT * FROM (SELECT b.y FROM t2 b WHERE b.k NOT IN (5, 10) INTERSECT ALL SELECT b.y FROM t2 b) u ORDER BY 1 ASC NULLS LAST LIMIT 1;
-- case 135 ordered
SELECT * FROM (SELECT b.k, b.d FROM t2 b WHERE b.id >= b.k INTERSECT SELECT a.k, a.d FROM t1 a WHERE a.x > 1.5) u ORDER BY 2 DESC NULLS LAST, 1 DESC NULLS LAST LIMIT 3;
-- case 136 ordered hint=c,a
SELECT c.k AS c0, c.k + 10 AS c1, a.s AS c2 FROM t3 c LEFT JOIN t1 a ON c.k = a.k ORDER BY 2 ASC NULLS LAST, 3 ASC NULLS FIRST, 1 ASC NULLS FIRST;
-- case 137
SELECT a.s AS g0, a.s AS g1, count(a.id) AS a0, max(a.id) AS a1 FROM t1 a GROUP BY a.s, a.s HAVING count(*) >= 0;
-- case 138
SELECT c.g AS g0, c.g AS g1, count(DISTINCT c.g) AS a0, sum(c.k) AS a1 FROM t3 c WHERE c.k IS NULL GROUP BY c.g, c.g;
-- case 139 ordered
SELECT upper(b.s) AS c0, b.id AS c1 FROM t2 b WHERE b.k IN (SELECT a.k FROM t1 a) ORDER BY 1 DESC NULLS FIRST, 2 ASC NULLS FIRST LIMIT 5 OFFSET 3;
-- case 140 ordered
SELECT upper(b.s) AS c0, coalesce(b.k, 3) AS c1, b.s AS c2 FROM t2 b WHERE NOT (b.k BETWEEN -1 AND 0) ORDER BY 1 DESC NULLS LAST, 2 ASC NULLS LAST, 3 DESC NULLS FIRST LIMIT 3 OFFSET 2;
-- case 141 hint=c,b,a
SELECT a.m AS c0, abs(b.y) AS c1 FROM t3 c LEFT OUTER JOIN t2 b ON c.k = b.k JOIN t1 a ON a.k = b.k WHERE a.m > 2.00;
-- case 142
SELECT a.k AS c0, a.x AS c1, a.s AS c2, a.s || '-' AS c3 FROM t1 a;
-- case 143 ordered
SELECT count(*) AS a0 FROM t2 b ORDER BY 1 ASC NULLS LAST LIMIT 2;
-- case 144 ordered
SELECT trim(a.s) AS c0, lower(a.s) AS c1, a.k AS c2, a.s AS c3, a.d AS c4 FROM t1 a WHERE a.x <> 0.0 ORDER BY 2 ASC NULLS FIRST, 1 ASC NULLS FIRST, 5 DESC NULLS LAST, 3 ASC NULLS LAST, 4 DESC NULLS LAST;
-- case 145 ordered hint=a,c
SELECT DISTINCT a.x AS c0, a.d AS c1, coalesce(a.x, -1.0) AS c2 FROM t1 a LEFT OUTER JOIN t3 c ON a.k = c.k ORDER BY 2 ASC NULLS FIRST, 1 DESC NULLS LAST, 3 DESC NULLS LAST LIMIT 2;
-- case 146
SELECT a.s AS g0, count(DISTINCT a.d) AS a0 FROM t1 a GROUP BY a.s;
-- case 147
SELECT b.k, b.d FROM t2 b EXCEPT SELECT a.k, a.d FROM t1 a;
-- case 148
SELECT count(*) AS n FROM (SELECT b.y FROM t2 b WHERE b.k NOT IN (0, 3, 5) UNION ALL SELECT b.y FROM t2 b WHERE b.y > 0.0) u;
-- case 149
SELECT CASE WHEN b.d >= DATE '1970-01-01' THEN b.s ELSE 'other' END AS c0, b.d AS c1, (SELECT max(c.k) FROM t3 c) AS sq FROM t2 b WHERE b.s LIKE '%an%';
-- case 150 ordered
SELECT CASE WHEN a.m >= 1.5 THEN length(a.s) ELSE 5 END AS c0, trim(a.s) AS c1, CASE WHEN a.k BETWEEN -5 AND -1 THEN a.s ELSE 'other' END AS c2 FROM t1 a WHERE a.k NOT IN (SELECT c.k FROM t3 c) ORDER BY 1 ASC NULLS LAST, 2 ASC NULLS LAST, 3 DESC NULLS FIRST;
-- case 151
SELECT c.g AS g0, min(c.g) AS a0, sum(c.k) AS a1 FROM t3 c GROUP BY c.g HAVING count(*) >= 2;
-- case 152
SELECT count(*) AS n FROM (SELECT a.k, a.d FROM t1 a INTERSECT SELECT b.k, b.d FROM t2 b) u;
-- case 153 ordered
SELECT a.id AS c0, (SELECT min(c.k) FROM t3 c) AS sq FROM t1 a WHERE a.k BETWEEN -2 AND -2 ORDER BY 1 DESC NULLS LAST, 2 ASC NULLS LAST LIMIT 6;
-- case 154
SELECT b.s AS g0, b.k AS g1, count(*) AS a0, min(b.id) AS a1, avg(b.y) AS a2 FROM t2 b GROUP BY b.s, b.k;
-- case 155 ordered
SELECT count(*) AS a0 FROM t1 a ORDER BY 1 DESC NULLS FIRST LIMIT 0 OFFSET 1;
-- case 156
SELECT a.x FROM t1 a UNION SELECT a.x FROM t1 a;
-- case 157 hint=b,a
SELECT a.k + 10 AS c0, a.s AS c1 FROM t2 b FULL JOIN t1 a ON b.k = a.k WHERE b.s = 'apple';
-- case 158
SELECT c.k AS g0, c.g AS g1, min(c.g) AS a0, avg(c.k) AS a1, sum(c.n) AS a2 FROM t3 c WHERE c.k BETWEEN 2 AND 7 GROUP BY c.k, c.g;
-- case 159
SELECT c.k AS g0, sum(c.n) AS a0, count(DISTINCT c.g) AS a1 FROM t3 c GROUP BY c.k;
-- case 160 ordered hint=b,c
SELECT c.n + 5 AS c0, length(b.s) AS c1 FROM t2 b LEFT OUTER JOIN t3 c ON b.k = c.k ORDER BY 1 ASC NULLS FIRST, 2 DESC NULLS LAST LIMIT 4 OFFSET 3;
-- case 161
SELECT count(*) AS n FROM (SELECT b.y FROM t2 b UNION ALL SELECT b.y FROM t2 b WHERE b.y <= b.y) u;
-- case 162
SELECT b.k FROM t2 b INTERSECT SELECT b.k FROM t2 b WHERE b.y = 1.5;
-- case 163
SELECT b.s || '-' AS c0, length(b.s) AS c1, coalesce(b.y, -1.0) AS c2, b.y AS c3, substr(b.s, 2, 3) AS c4 FROM t2 b WHERE b.d BETWEEN DATE '1994-01-01' AND DATE '2000-02-29';
-- case 164
SELECT c.k, upper(c.g) FROM t3 c WHERE c.k IN (10, -4, 5, -20) EXCEPT SELECT b.k, b.s FROM t2 b WHERE b.y <> 1.5;
-- case 165
SELECT b.s AS g0, b.id AS g1, sum(b.y) AS a0, min(b.d) AS a1, max(b.d) AS a2 FROM t2 b GROUP BY b.s, b.id;
-- case 166
SELECT count(*) AS n FROM (SELECT c.k, upper(c.g) FROM t3 c WHERE c.n <> c.n INTERSECT SELECT c.k, upper(c.g) FROM t3 c WHERE c.n * 2 <= 10) u;
-- case 167 ordered
SELECT c.n AS g0, max(c.g) AS a0, max(c.g) AS a1, count(*) AS a2 FROM t3 c WHERE c.k % 3 < c.n GROUP BY c.n ORDER BY 2 ASC NULLS LAST, 4 DESC NULLS FIRST, 1 ASC NULLS LAST, 3 DESC NULLS FIRST;
-- case 168 hint=c,a
SELECT a.d AS c0, upper(a.s) AS c1, CASE WHEN c.g LIKE 'a%' THEN CASE WHEN c.k IS NOT NULL THEN c.n ELSE 1 END ELSE 1 END AS c2 FROM t3 c RIGHT JOIN t1 a ON c.k = a.k;
-- case 169
SELECT substr(c.g, 2, 3) AS c0, lower(c.g) AS c1, length(c.g) AS c2, c.k AS c3, (SELECT max(a.k) FROM t1 a) AS sq FROM t3 c WHERE length(c.g) >= 1;
-- case 170 ordered hint=b,a
SELECT DISTINCT a.d AS c0, b.id AS c1, b.s AS c2, a.m * 2 AS c3 FROM t2 b INNER JOIN t1 a ON b.k = a.k AND b.s IS NOT NULL WHERE a.id IN (10, -4, 3) ORDER BY 1 ASC NULLS FIRST, 4 DESC NULLS FIRST, 2 DESC NULLS LAST, 3 DESC NULLS FIRST;
-- case 171 ordered hint=c,b
SELECT b.d AS c0, c.g AS c1, c.g AS c2, b.d AS c3 FROM t3 c INNER JOIN t2 b ON c.k = b.k ORDER BY 3 DESC NULLS FIRST, 4 ASC NULLS FIRST, 2 DESC NULLS FIRST, 1 DESC NULLS FIRST LIMIT 2;
-- case 172 ordered
SELECT count(b.d) AS a0, count(DISTINCT b.s) AS a1 FROM t2 b WHERE ((b.k BETWEEN -1 AND 4 OR b.id BETWEEN 0 AND 5) OR (b.s IS NOT NULL AND b.id NOT IN (5, 5, 10))) ORDER BY 1 ASC NULLS FIRST, 2 DESC NULLS FIRST LIMIT 0;
-- case 173 ordered
SELECT c.g AS g0, c.g AS g1, count(DISTINCT c.k) AS a0, count(*) AS a1 FROM t3 c GROUP BY c.g, c.g ORDER BY 1 ASC NULLS FIRST, 2 ASC NULLS FIRST, 3 ASC NULLS LAST, 4 DESC NULLS LAST LIMIT 6;
-- case 174
SELECT c.n AS c0, c.g AS c1, c.g AS c2, c.k AS c3, (SELECT min(a.k) FROM t1 a) AS sq FROM t3 c WHERE replace(c.g, 'a', 'o') = 'apple';
-- case 175 hint=b,a
SELECT DISTINCT length(b.s) AS c0, a.x AS c1, b.s AS c2 FROM t2 b FULL JOIN t1 a ON b.k = a.k;
-- case 176
SELECT c.k AS c0, replace(c.g, 'a', 'o') AS c1, c.g AS c2, CASE WHEN c.g IS NULL THEN c.k ELSE 5 END AS c3 FROM t3 c WHERE NOT EXISTS (SELECT 1 FROM t2 b WHERE b.k = c.k);
-- case 177 hint=a,b
SELECT substr(b.s, 2, 3) AS c0, b.s || '-' AS c1, trim(b.s) AS c2 FROM t1 a INNER JOIN t2 b ON a.k IS NOT DISTINCT FROM b.k;
-- case 178 hint=c,b
SELECT c.g AS g0, b.id AS g1, min(c.n) AS a0, avg(c.k) AS a1, count(*) AS a2 FROM t3 c INNER JOIN t2 b ON c.k = b.k WHERE (b.y > 1.5 OR b.d > DATE '1970-01-01') GROUP BY c.g, b.id;
-- case 179
SELECT max(c.g) AS a0, count(*) AS a1, count(c.g) AS a2 FROM t3 c WHERE c.g IS NULL;
-- case 180
SELECT lower(b.s) AS c0, b.d AS c1, abs(b.k) AS c2, b.d AS c3 FROM t2 b WHERE b.k >= (SELECT min(c.k) FROM t3 c);
-- case 181
SELECT count(c.n) AS a0, count(c.n) AS a1, min(c.n) AS a2 FROM t3 c WHERE c.g <> 'banana';
-- case 182
SELECT DISTINCT abs(a.x) AS c0 FROM t1 a;
-- case 183
SELECT b.k AS c0, b.s AS c1 FROM t2 b WHERE EXISTS (SELECT 1 FROM t1 a WHERE a.k = b.k);
-- case 184 hint=a,b
SELECT upper(b.s) AS c0 FROM t1 a INNER JOIN t2 b ON a.k IS NOT DISTINCT FROM b.k;
-- case 185
SELECT c.g FROM t3 c WHERE CASE WHEN c.n NOT IN (1, NULL) THEN c.g ELSE 'other' END <> 'kiwi' INTERSECT ALL SELECT upper(b.s) FROM t2 b;
-- case 186
SELECT a.s AS g0, a.k AS g1, min(a.d) AS a0, max(a.m) AS a1, count(*) AS a2 FROM t1 a WHERE a.id IS NOT NULL GROUP BY a.s, a.k HAVING count(*) > 0;
-- case 187
SELECT count(*) AS n FROM (SELECT b.k, b.s FROM t2 b EXCEPT ALL SELECT c.k, c.g FROM t3 c) u;
-- case 188 ordered
SELECT * FROM (SELECT a.x FROM t1 a INTERSECT SELECT a.x FROM t1 a) u ORDER BY 1 DESC NULLS LAST LIMIT 0;
-- case 189 hint=a,c
SELECT replace(a.s, 'a', 'o') AS c0, c.n AS c1 FROM t1 a JOIN t3 c ON a.k = c.k;
-- case 190
SELECT b.d AS c0, b.d AS c1, b.id AS c2, replace(b.s, 'a', 'o') AS c3 FROM t2 b WHERE NOT EXISTS (SELECT 1 FROM t1 a WHERE a.k = b.k);
-- case 191
SELECT abs(b.k) AS c0, abs(b.y) AS c1, b.k + -4 AS c2, (SELECT max(a.k) FROM t1 a) AS sq FROM t2 b WHERE CASE WHEN b.k <> b.id THEN b.k ELSE 3 END <> 5;
-- case 192 ordered
SELECT b.id AS c0, b.id % 3 AS c1 FROM t2 b WHERE b.k < (SELECT max(a.k) FROM t1 a) ORDER BY 1 ASC NULLS FIRST, 2 ASC NULLS LAST;
-- case 193 hint=b,c
SELECT c.g AS c0, b.d AS c1 FROM t2 b RIGHT JOIN t3 c ON b.k = c.k WHERE (b.d > DATE '1994-01-01' AND c.g = 'a%b');
-- case 194 hint=c,a
SELECT DISTINCT a.d AS c0, a.s || '-' AS c1, a.m * 2 AS c2 FROM t3 c JOIN t1 a ON c.k IS NOT DISTINCT FROM a.k AND a.x = 1.5 WHERE c.k >= c.n;
-- case 195 hint=b,c
SELECT length(b.s) AS c0, coalesce(b.k, 2) AS c1 FROM t2 b LEFT OUTER JOIN t3 c ON b.k = c.k WHERE b.y <> -0.0;
-- case 196 hint=a,c
SELECT DISTINCT a.d AS c0, a.m * 2 AS c1, a.d AS c2, a.x AS c3 FROM t1 a LEFT JOIN t3 c ON a.k IS NOT DISTINCT FROM c.k AND a.m > 1.5;
-- case 197 hint=c,b,a
SELECT b.id AS g0, sum(c.k) AS a0, count(DISTINCT b.s) AS a1, avg(b.y) AS a2 FROM t3 c LEFT JOIN t2 b ON c.k = b.k LEFT JOIN t1 a ON a.k = b.k GROUP BY b.id;
-- case 198
SELECT DISTINCT c.n AS c0 FROM t3 c WHERE replace(c.g, 'a', 'o') >= 'apple';
-- case 199 hint=b,c
SELECT max(b.s) AS a0 FROM t2 b RIGHT JOIN t3 c ON b.k IS NOT DISTINCT FROM c.k;
-- case 200
SELECT count(*) AS a0, count(*) AS a1, count(a.d) AS a2 FROM t1 a WHERE a.m <> -0.01;
-- case 201
SELECT c.g AS c0, c.n AS c1, c.g || '-' AS c2 FROM t3 c WHERE NOT EXISTS (SELECT 1 FROM t1 a WHERE a.k = c.k);
-- case 202
SELECT b.k, b.s FROM t2 b INTERSECT SELECT b.k, upper(b.s) FROM t2 b;
-- case 203 ordered
SELECT b.s AS g0, count(*) AS a0, count(DISTINCT b.k) AS a1, count(DISTINCT b.s) AS a2 FROM t2 b WHERE ((b.d BETWEEN DATE '1994-01-01' AND DATE '1994-01-01' AND b.s LIKE '%an%') OR b.d BETWEEN DATE '1994-01-01' AND DATE '1995-03-15') GROUP BY b.s ORDER BY 2 DESC NULLS LAST, 1 DESC NULLS LAST, 4 ASC NULLS LAST, 3 ASC NULLS LAST LIMIT 5;
-- case 204
SELECT a.s AS c0, a.m * 2 AS c1 FROM t1 a;
-- case 205 ordered hint=b,a,c
SELECT DISTINCT substr(a.s, 2, 3) AS c0, a.x * 2.0 AS c1 FROM t2 b RIGHT JOIN t1 a ON b.k = a.k AND b.id IS NULL LEFT JOIN t3 c ON c.k = a.k ORDER BY 2 ASC NULLS LAST, 1 DESC NULLS LAST;
-- case 206 hint=c,a
SELECT c.n AS g0, c.k AS g1, min(a.x) AS a0 FROM t3 c CROSS JOIN t1 a GROUP BY c.n, c.k;
-- case 207 ordered
SELECT length(c.g) AS c0, abs(c.k) AS c1 FROM t3 c WHERE c.k >= (SELECT sum(b.k) FROM t2 b) ORDER BY 2 ASC NULLS LAST, 1 DESC NULLS LAST;
-- case 208 hint=c,b
SELECT b.s AS g0, b.k AS g1, count(b.k) AS a0 FROM t3 c CROSS JOIN t2 b GROUP BY b.s, b.k;
-- case 209
SELECT length(b.s) AS c0, b.k + 3 AS c1 FROM t2 b WHERE b.k >= (SELECT max(a.k) FROM t1 a);
-- case 210 hint=c,b
SELECT c.k AS g0, b.s AS g1, avg(c.k) AS a0 FROM t3 c INNER JOIN t2 b ON c.k = b.k GROUP BY c.k, b.s;
-- case 211
SELECT CASE WHEN b.k < -20 THEN b.k ELSE 0 END AS c0, b.k + -20 AS c1, abs(b.id) AS c2 FROM t2 b WHERE NOT EXISTS (SELECT 1 FROM t3 c WHERE c.k = b.k);
-- case 212 hint=c,b,a
SELECT a.id AS g0, min(b.s) AS a0, count(*) AS a1, avg(c.n) AS a2 FROM t3 c LEFT JOIN t2 b ON c.k = b.k JOIN t1 a ON a.k = b.k WHERE a.x <= 0.0 GROUP BY a.id;
-- case 213
SELECT b.id AS c0 FROM t2 b WHERE b.k IN (SELECT a.k FROM t1 a);
-- case 214 hint=b,a
SELECT max(a.x) AS a0, count(*) AS a1, count(a.id) AS a2 FROM t2 b RIGHT JOIN t1 a ON b.k = a.k AND a.x = -0.0;
-- case 215 hint=c,a,b
SELECT a.k AS c0 FROM t3 c JOIN t1 a ON c.k IS NOT DISTINCT FROM a.k RIGHT JOIN t2 b ON b.k = c.k WHERE (b.s = '' AND a.id IS NOT NULL);
-- case 216
SELECT count(*) AS n FROM (SELECT c.k, upper(c.g) FROM t3 c EXCEPT SELECT a.k, a.s FROM t1 a) u;
-- case 217 hint=a,b
SELECT b.d AS c0, a.m AS c1, abs(a.x) AS c2 FROM t1 a FULL JOIN t2 b ON a.k = b.k WHERE (b.d = DATE '1994-01-01' AND b.y <> 1.5);
-- case 218 ordered hint=a,b
SELECT length(a.s) AS c0 FROM t1 a RIGHT JOIN t2 b ON a.k = b.k ORDER BY 1 ASC NULLS LAST LIMIT 4 OFFSET 2;
-- case 219
SELECT b.k AS g0, b.k AS g1, min(b.y) AS a0, count(b.y) AS a1 FROM t2 b WHERE b.id <> b.k GROUP BY b.k, b.k;
-- case 220 ordered
SELECT * FROM (SELECT b.k, b.s FROM t2 b UNION SELECT c.k, upper(c.g) FROM t3 c WHERE (c.n NOT IN (0, 10, 10, 0, NULL) OR c.n BETWEEN -1 AND 0)) u ORDER BY 2 DESC NULLS LAST, 1 ASC NULLS FIRST LIMIT 6;
-- case 221 hint=c,b
SELECT count(b.y) AS a0, count(*) AS a1 FROM t3 c LEFT JOIN t2 b ON c.k = b.k WHERE NOT (b.s <= 'kiwi');
-- case 222
SELECT coalesce(c.k, 0) AS c0, coalesce(c.g, 'none') AS c1, c.k AS c2, (SELECT min(a.k) FROM t1 a) AS sq FROM t3 c WHERE c.g LIKE '_pple';
-- case 223 hint=c,b
SELECT b.s AS c0, b.s AS c1 FROM t3 c LEFT OUTER JOIN t2 b ON c.k = b.k WHERE b.y <= 1.5;
-- case 224 hint=c,a
SELECT a.s AS c0, a.s AS c1, a.id + -4 AS c2 FROM t3 c FULL JOIN t1 a ON c.k = a.k WHERE a.x = 1.5;
-- case 225
SELECT count(c.g) AS a0, count(*) AS a1, min(c.g) AS a2 FROM t3 c;
-- case 226 ordered
SELECT * FROM (SELECT a.k, a.d FROM t1 a EXCEPT ALL SELECT b.k, b.d FROM t2 b WHERE (b.s = 'banana' AND b.s LIKE '%an%')) u ORDER BY 1 DESC NULLS LAST, 2 DESC NULLS LAST LIMIT 2;
-- case 227 ordered
SELECT CASE WHEN (c.k <> -4 AND c.n IN (3, 0, 0, NULL)) THEN coalesce(c.k, 0) ELSE 0 END AS c0, length(c.g) AS c1, c.g AS c2 FROM t3 c WHERE c.g NOT LIKE '_pple' ORDER BY 1 DESC NULLS LAST, 2 DESC NULLS FIRST, 3 ASC NULLS LAST LIMIT 0;
-- case 228 hint=a,b,c
SELECT c.g AS c0 FROM t1 a FULL JOIN t2 b ON a.k = b.k RIGHT JOIN t3 c ON c.k = b.k WHERE a.x <= -1.5;
-- case 229 ordered
SELECT b.k AS c0, b.k AS c1, upper(b.s) AS c2, b.d AS c3 FROM t2 b WHERE b.k NOT IN (SELECT a.k FROM t1 a WHERE a.x > 1.5) ORDER BY 3 ASC NULLS FIRST, 1 ASC NULLS LAST, 4 ASC NULLS LAST, 2 DESC NULLS FIRST LIMIT 1;
-- case 230 hint=b,a,c
SELECT abs(a.x) AS c0, a.d AS c1 FROM t2 b INNER JOIN t1 a ON b.k IS NOT DISTINCT FROM a.k AND a.k IS NOT NULL JOIN t3 c ON c.k = a.k WHERE c.n * 2 < 5;
-- case 231 hint=b,c
SELECT sum(b.y) AS a0, avg(c.n) AS a1 FROM t2 b JOIN t3 c ON b.k IS NOT DISTINCT FROM c.k WHERE c.n = 1;
-- case 232 hint=c,b
SELECT b.k AS c0, b.id AS c1, c.n AS c2 FROM t3 c LEFT OUTER JOIN t2 b ON c.k = b.k;
-- case 233 hint=c,b
SELECT CASE WHEN b.y >= -0.0 THEN length(c.g) ELSE 10 END AS c0 FROM t3 c CROSS JOIN t2 b WHERE c.g LIKE '%an%';
-- case 234
SELECT count(*) AS n FROM (SELECT c.k, upper(c.g) FROM t3 c WHERE c.g LIKE 'a%' UNION SELECT a.k, upper(a.s) FROM t1 a WHERE a.k % 3 > -20) u;
-- case 235
SELECT a.k, a.d FROM t1 a INTERSECT ALL SELECT a.k, a.d FROM t1 a WHERE a.d <> DATE '1994-01-01';
-- case 236 ordered
SELECT count(DISTINCT b.s) AS a0, count(b.id) AS a1 FROM t2 b ORDER BY 1 DESC NULLS LAST, 2 DESC NULLS LAST LIMIT 2 OFFSET 2;
-- case 237
SELECT a.id AS g0, a.k AS g1, max(a.m) AS a0 FROM t1 a WHERE a.x < CAST('NaN' AS DOUBLE) GROUP BY a.id, a.k;
-- case 238
SELECT c.k AS c0 FROM t3 c;
-- case 239
SELECT upper(c.g) FROM t3 c WHERE c.k BETWEEN 1 AND 4 INTERSECT SELECT b.s FROM t2 b;
-- case 240 hint=c,b
SELECT coalesce(b.s, 'none') AS c0, length(c.g) AS c1, abs(b.y) AS c2 FROM t3 c LEFT JOIN t2 b ON c.k = b.k WHERE b.y <= -0.0;
-- case 241
SELECT a.m * 2 AS c0, a.s AS c1, a.id AS c2, a.s AS c3, (SELECT max(b.k) FROM t2 b WHERE b.k = a.k) AS sq FROM t1 a WHERE a.x <= 0.0;
-- case 242
SELECT a.s AS c0, a.x * 2.0 AS c1, a.id AS c2, a.d AS c3, (SELECT max(c.k) FROM t3 c) AS sq FROM t1 a WHERE a.id IN (10, -20, -4, 1);
-- case 243 hint=b,c
SELECT coalesce(b.y, -1.0) AS c0 FROM t2 b JOIN t3 c ON b.k = c.k WHERE abs(c.k) >= c.k;
-- case 244
SELECT a.x FROM t1 a INTERSECT SELECT b.y FROM t2 b;
-- case 245 hint=b,c
SELECT b.y AS c0, b.d AS c1, c.n AS c2, c.k AS c3 FROM t2 b INNER JOIN t3 c ON b.k = c.k WHERE b.k > 1;
-- case 246 hint=c,a,b
SELECT trim(b.s) AS c0 FROM t3 c CROSS JOIN t1 a RIGHT JOIN t2 b ON b.k = a.k;
-- case 247 hint=b,a
SELECT a.d AS c0, lower(b.s) AS c1 FROM t2 b FULL JOIN t1 a ON b.k IS NOT DISTINCT FROM a.k WHERE a.x <= -0.0;
-- case 248 ordered hint=a,c,b
SELECT coalesce(a.x, -1.0) AS c0, a.m * 2 AS c1, b.y AS c2, b.y AS c3 FROM t1 a FULL JOIN t3 c ON a.k = c.k AND c.g <> 'kiwi' FULL JOIN t2 b ON b.k = a.k WHERE NOT (b.k IN (10, 5, 5)) ORDER BY 3 DESC NULLS LAST, 4 ASC NULLS LAST, 2 DESC NULLS LAST, 1 ASC NULLS FIRST;
-- case 249 hint=b,c
SELECT b.id AS g0, sum(b.y) AS a0, max(b.id) AS a1 FROM t2 b LEFT JOIN t3 c ON b.k = c.k WHERE coalesce(b.id, -20) <> c.n GROUP BY b.id;
-- case 250 hint=c,b,a
SELECT a.m * 2 AS c0, coalesce(b.y, -1.0) AS c1 FROM t3 c CROSS JOIN t2 b RIGHT JOIN t1 a ON a.k = b.k;
-- case 251 ordered hint=b,c
SELECT DISTINCT b.d AS c0, length(c.g) AS c1 FROM t2 b CROSS JOIN t3 c WHERE c.g NOT LIKE '%' ORDER BY 1 ASC NULLS FIRST, 2 DESC NULLS FIRST LIMIT 3;
-- case 252 ordered hint=b,c
SELECT b.d AS c0, b.d AS c1 FROM t2 b FULL JOIN t3 c ON b.k = c.k AND c.g IS NOT NULL ORDER BY 2 DESC NULLS LAST, 1 ASC NULLS FIRST;
-- case 253
SELECT b.k FROM t2 b UNION ALL SELECT a.k FROM t1 a;
-- case 254
SELECT b.s AS c0, replace(b.s, 'a', 'o') AS c1, b.s AS c2 FROM t2 b WHERE EXISTS (SELECT 1 FROM t1 a WHERE a.k = b.k);
-- case 255
SELECT 'apple' FROM t1 a UNION SELECT c.g FROM t3 c WHERE c.n BETWEEN 2 AND 7;
-- case 256
SELECT c.n + 5 AS c0, c.k AS c1, c.n * 2 AS c2, c.n AS c3 FROM t3 c WHERE c.k = (SELECT max(a.k) FROM t1 a);
-- case 257
SELECT c.g AS g0, avg(c.k) AS a0 FROM t3 c WHERE c.g || '-' >= 'banana' GROUP BY c.g HAVING count(*) = 1;
-- case 258 hint=a,c
SELECT max(a.d) AS a0 FROM t1 a JOIN t3 c ON a.k = c.k AND a.x = -0.0;
-- case 259 ordered
SELECT max(a.s) AS a0 FROM t1 a WHERE a.k BETWEEN 3 AND 7 ORDER BY 1 DESC NULLS LAST;
-- case 260
SELECT avg(a.k) AS a0, count(DISTINCT a.s) AS a1, avg(a.x) AS a2 FROM t1 a;
-- case 261
SELECT DISTINCT coalesce(b.y, -1.0) AS c0, b.d AS c1, lower(b.s) AS c2, b.s AS c3 FROM t2 b WHERE (b.s = 'apple' OR (b.d <= DATE '1994-01-01' AND b.id <> b.id));
-- case 262 ordered
SELECT count(b.y) AS a0 FROM t2 b ORDER BY 1 DESC NULLS LAST;
-- case 263 ordered
SELECT * FROM (SELECT c.k FROM t3 c UNION SELECT b.k FROM t2 b WHERE b.d <> DATE '1996-01-01') u ORDER BY 1 DESC NULLS FIRST LIMIT 2;
-- case 264 hint=b,a,c
SELECT a.m AS c0, coalesce(a.x, -1.0) AS c1, a.s AS c2, b.id AS c3 FROM t2 b INNER JOIN t1 a ON b.k = a.k LEFT JOIN t3 c ON c.k = a.k;
-- case 265 ordered
SELECT c.n AS g0, count(DISTINCT c.n) AS a0 FROM t3 c GROUP BY c.n ORDER BY 2 ASC NULLS FIRST, 1 ASC NULLS LAST LIMIT 6;
-- case 266 hint=c,b,a
SELECT abs(c.n) AS c0, a.x AS c1 FROM t3 c LEFT JOIN t2 b ON c.k = b.k LEFT JOIN t1 a ON a.k = c.k WHERE a.x <= CAST('NaN' AS DOUBLE);
-- case 267 hint=b,a
SELECT a.s AS g0, avg(a.m) AS a0, min(b.s) AS a1, avg(b.k) AS a2 FROM t2 b LEFT JOIN t1 a ON b.k = a.k GROUP BY a.s;
-- case 268 hint=a,c,b
SELECT a.id AS g0, sum(b.y) AS a0 FROM t1 a INNER JOIN t3 c ON a.k = c.k LEFT JOIN t2 b ON b.k = c.k GROUP BY a.id HAVING count(*) > 1;
-- case 269 ordered
SELECT trim(c.g) AS c0, c.n AS c1, (SELECT min(b.k) FROM t2 b WHERE b.k = c.k) AS sq FROM t3 c WHERE c.g LIKE '%' ORDER BY 1 DESC NULLS LAST, 3 DESC NULLS LAST, 2 DESC NULLS FIRST LIMIT 1;
-- case 270 ordered
SELECT * FROM (SELECT a.x FROM t1 a INTERSECT ALL SELECT b.y FROM t2 b) u ORDER BY 1 ASC NULLS LAST LIMIT 6 OFFSET 3;
-- case 271 hint=c,b
SELECT length(b.s) AS c0, lower(b.s) AS c1, length(b.s) AS c2, CASE WHEN b.y < b.y THEN c.k % 3 ELSE 10 END AS c3 FROM t3 c LEFT OUTER JOIN t2 b ON c.k IS NOT DISTINCT FROM b.k WHERE b.y > 0.0;
-- case 272 ordered hint=c,b
SELECT b.k % 3 AS c0, coalesce(b.id, 3) AS c1 FROM t3 c JOIN t2 b ON c.k = b.k WHERE (c.k BETWEEN -4 AND -4 AND b.y = b.y) ORDER BY 2 DESC NULLS LAST, 1 DESC NULLS FIRST LIMIT 2 OFFSET 2;
-- case 273 hint=c,b
SELECT length(c.g) AS c0, c.g AS c1 FROM t3 c JOIN t2 b ON c.k IS NOT DISTINCT FROM b.k;
-- case 274 hint=c,b
SELECT b.k AS c0, coalesce(b.s, 'none') AS c1, b.k AS c2 FROM t3 c FULL JOIN t2 b ON c.k = b.k WHERE b.id NOT IN (-20, 1, 2, 0, NULL);
-- case 275
SELECT c.k FROM t3 c INTERSECT ALL SELECT b.k FROM t2 b;
-- case 276 hint=c,a
SELECT a.m * 2 AS c0, c.n % 3 AS c1, a.m * 2 AS c2, a.x AS c3 FROM t3 c CROSS JOIN t1 a;
-- case 277
SELECT a.s AS g0, a.id AS g1, min(a.x) AS a0, avg(a.x) AS a1, min(a.m) AS a2 FROM t1 a GROUP BY a.s, a.id HAVING count(*) = 2;
-- case 278 hint=c,a
SELECT a.k AS g0, a.s AS g1, avg(a.x) AS a0, sum(c.n) AS a1 FROM t3 c LEFT JOIN t1 a ON c.k = a.k WHERE a.x < 1.5 GROUP BY a.k, a.s;
-- case 279
SELECT b.s AS c0, b.s || '-' AS c1, b.d AS c2, length(b.s) AS c3, lower(b.s) AS c4 FROM t2 b;
-- case 280
SELECT a.id AS g0, a.k AS g1, max(a.id) AS a0, count(*) AS a1, max(a.d) AS a2 FROM t1 a GROUP BY a.id, a.k HAVING count(*) >= 0;
-- case 281
SELECT c.n AS c0, abs(c.n) AS c1, (SELECT max(a.id) FROM t1 a WHERE a.k = c.k) AS sq FROM t3 c WHERE (c.k NOT IN (0, NULL) OR c.k BETWEEN 2 AND 6);
-- case 282
SELECT count(*) AS n FROM (SELECT b.y FROM t2 b UNION ALL SELECT a.x FROM t1 a) u;
-- case 283
SELECT a.k % 3 AS c0, upper(a.s) AS c1, coalesce(a.s, 'none') AS c2 FROM t1 a WHERE a.s LIKE '%';
-- case 284 ordered hint=c,a
SELECT a.d AS c0, lower(c.g) AS c1 FROM t3 c INNER JOIN t1 a ON c.k IS NOT DISTINCT FROM a.k AND a.s < 'apple' WHERE a.x <> 0.0 ORDER BY 2 ASC NULLS LAST, 1 ASC NULLS FIRST LIMIT 4;
-- case 285 hint=c,b,a
SELECT coalesce(a.s, 'none') AS c0, b.s AS c1, a.x AS c2, abs(a.x) AS c3 FROM t3 c INNER JOIN t2 b ON c.k = b.k AND c.k NOT IN (1, -20) RIGHT JOIN t1 a ON a.k = b.k WHERE a.k <= -4;
-- case 286 ordered
SELECT * FROM (SELECT c.k FROM t3 c WHERE c.k < c.k EXCEPT ALL SELECT c.k FROM t3 c) u ORDER BY 1 ASC NULLS FIRST;
-- case 287 hint=a,c
SELECT count(DISTINCT a.x) AS a0, sum(a.x) AS a1, count(*) AS a2 FROM t1 a JOIN t3 c ON a.k = c.k;
-- case 288 ordered
SELECT DISTINCT a.d AS c0, a.x * 2.0 AS c1 FROM t1 a WHERE a.k BETWEEN -2 AND 0 ORDER BY 2 ASC NULLS FIRST, 1 DESC NULLS FIRST LIMIT 1;
-- case 289
SELECT b.y AS c0, b.d AS c1, (SELECT max(a.k) FROM t1 a WHERE a.k = b.k) AS sq FROM t2 b WHERE b.y < 1.5;
-- case 290 ordered hint=a,c
SELECT a.id + 10 AS c0, a.m * 2 AS c1 FROM t1 a RIGHT JOIN t3 c ON a.k IS NOT DISTINCT FROM c.k AND a.k IN (10, 5) ORDER BY 2 DESC NULLS LAST, 1 DESC NULLS LAST;
-- case 291 hint=c,a
SELECT coalesce(c.k, 1) AS c0 FROM t3 c INNER JOIN t1 a ON c.k = a.k WHERE c.g IS NOT NULL;
-- case 292 ordered hint=a,c
SELECT a.k AS g0, c.n AS g1, min(a.d) AS a0, min(c.g) AS a1 FROM t1 a JOIN t3 c ON a.k = c.k WHERE (c.n BETWEEN -1 AND 3 OR a.x >= CAST('NaN' AS DOUBLE)) GROUP BY a.k, c.n ORDER BY 4 ASC NULLS FIRST, 1 DESC NULLS LAST, 3 ASC NULLS LAST, 2 ASC NULLS FIRST;
-- case 293
SELECT count(DISTINCT b.d) AS a0, min(b.y) AS a1, sum(b.y) AS a2 FROM t2 b WHERE (b.k IN (0, -4, NULL) OR b.s > '');
-- case 294
SELECT a.d AS c0, CASE WHEN a.m >= -0.01 THEN a.s ELSE 'other' END AS c1 FROM t1 a WHERE a.k < (SELECT min(b.k) FROM t2 b);
-- case 295
SELECT length(c.g) AS c0, length(c.g) AS c1, c.g AS c2, c.k AS c3 FROM t3 c WHERE c.k IN (SELECT a.k FROM t1 a WHERE a.id IS NULL);
-- case 296 ordered
SELECT coalesce(c.k, -20) AS c0, abs(c.n) AS c1, c.k AS c2 FROM t3 c WHERE c.k NOT IN (SELECT b.k FROM t2 b) ORDER BY 3 ASC NULLS LAST, 2 ASC NULLS FIRST, 1 ASC NULLS FIRST LIMIT 1;
-- case 297 hint=b,c,a
SELECT max(a.id) AS a0, count(*) AS a1, count(DISTINCT a.m) AS a2 FROM t2 b FULL JOIN t3 c ON b.k = c.k LEFT JOIN t1 a ON a.k = b.k WHERE c.k IN (10);
-- case 298 hint=a,b,c
SELECT a.m AS c0, CASE WHEN NOT (b.id IS NOT NULL) THEN a.s ELSE 'other' END AS c1 FROM t1 a FULL JOIN t2 b ON a.k = b.k JOIN t3 c ON c.k = b.k WHERE a.x <= 1.5;
-- case 299 ordered
SELECT b.id * 2 AS c0, b.d AS c1, substr(b.s, 2, 3) AS c2, b.k AS c3, b.d AS c4 FROM t2 b ORDER BY 3 ASC NULLS LAST, 5 DESC NULLS FIRST, 1 ASC NULLS FIRST, 2 ASC NULLS FIRST, 4 ASC NULLS FIRST;
-- case 300 ordered
SELECT a.id AS g0, a.id AS g1, min(a.d) AS a0 FROM t1 a GROUP BY a.id, a.id ORDER BY 1 DESC NULLS FIRST, 2 ASC NULLS FIRST, 3 ASC NULLS LAST LIMIT 6 OFFSET 2;
-- case 301 ordered
SELECT * FROM (SELECT a.x FROM t1 a UNION SELECT a.x FROM t1 a) u ORDER BY 1 DESC NULLS LAST;
-- case 302 hint=b,c,a
SELECT count(DISTINCT b.s) AS a0, avg(a.k) AS a1, count(a.s) AS a2 FROM t2 b INNER JOIN t3 c ON b.k = c.k JOIN t1 a ON a.k = b.k;
-- case 303
SELECT b.id AS g0, count(b.d) AS a0 FROM t2 b WHERE b.k IN (2, 10, NULL) GROUP BY b.id;
-- case 304
SELECT c.k AS c0, lower(c.g) AS c1, c.k AS c2, c.n AS c3 FROM t3 c WHERE NOT EXISTS (SELECT 1 FROM t1 a WHERE a.k = c.k);
-- case 305
SELECT b.k, upper(b.s) FROM t2 b EXCEPT SELECT a.k, a.s FROM t1 a WHERE a.d BETWEEN DATE '1994-01-01' AND DATE '1994-01-01';
-- case 306 ordered hint=c,b,a
SELECT abs(b.id) AS c0, a.d AS c1, abs(b.y) AS c2, a.m AS c3 FROM t3 c LEFT OUTER JOIN t2 b ON c.k IS NOT DISTINCT FROM b.k FULL JOIN t1 a ON a.k = c.k ORDER BY 1 ASC NULLS FIRST, 4 DESC NULLS FIRST, 3 DESC NULLS LAST, 2 DESC NULLS FIRST;
-- case 307 hint=b,c
SELECT DISTINCT b.d AS c0, c.k + 3 AS c1, lower(b.s) AS c2 FROM t2 b INNER JOIN t3 c ON b.k = c.k AND b.y >= b.y WHERE ((b.y <> -1.5 AND b.k BETWEEN 0 AND 0) AND c.g NOT LIKE 'a%');
-- case 308
SELECT upper(c.g) FROM t3 c WHERE c.g LIKE 'a%' EXCEPT SELECT 'apple' FROM t3 c WHERE c.k BETWEEN -2 AND 3;
-- case 309
SELECT DISTINCT upper(c.g) AS c0 FROM t3 c;
-- case 310
SELECT b.k, b.d FROM t2 b INTERSECT SELECT b.k, b.d FROM t2 b WHERE NOT (b.s > 'apple');
-- case 311 ordered
SELECT min(a.s) AS a0, max(a.x) AS a1 FROM t1 a ORDER BY 1 DESC NULLS LAST, 2 ASC NULLS FIRST LIMIT 6;
-- case 312 ordered
SELECT * FROM (SELECT c.k FROM t3 c WHERE c.g >= '' EXCEPT ALL SELECT c.k FROM t3 c WHERE CASE WHEN c.g IS NOT NULL THEN c.n ELSE 10 END >= -20) u ORDER BY 1 DESC NULLS FIRST LIMIT 4 OFFSET 2;
-- case 313 hint=b,a,c
SELECT DISTINCT coalesce(b.k, 1) AS c0, a.k + -4 AS c1, replace(c.g, 'a', 'o') AS c2 FROM t2 b RIGHT JOIN t1 a ON b.k IS NOT DISTINCT FROM a.k FULL JOIN t3 c ON c.k = b.k;
-- case 314 hint=a,c,b
SELECT a.d AS c0 FROM t1 a FULL JOIN t3 c ON a.k IS NOT DISTINCT FROM c.k RIGHT JOIN t2 b ON b.k = a.k WHERE a.m > 1.5;
-- case 315
SELECT count(*) AS n FROM (SELECT b.k FROM t2 b WHERE b.id IN (-20, 10, -4) UNION ALL SELECT c.k FROM t3 c) u;
-- case 316
SELECT c.g AS c0, CASE WHEN c.g NOT LIKE 'a%' THEN c.g ELSE 'other' END AS c1, CASE WHEN c.g IS NOT NULL THEN coalesce(c.k, 5) ELSE 0 END AS c2 FROM t3 c WHERE c.k NOT IN (SELECT a.k FROM t1 a WHERE a.k BETWEEN -2 AND 3);
-- case 317 hint=b,c
SELECT c.n AS g0, b.s AS g1, max(c.k) AS a0, max(c.k) AS a1, sum(b.y) AS a2 FROM t2 b LEFT JOIN t3 c ON b.k = c.k WHERE (b.d BETWEEN DATE '1994-01-01' AND DATE '1995-03-15' OR c.k <= 1) GROUP BY c.n, b.s;
-- case 318 hint=b,a
SELECT b.id AS g0, avg(a.m) AS a0, count(*) AS a1 FROM t2 b CROSS JOIN t1 a WHERE a.x = 1.5 GROUP BY b.id;
-- case 319 ordered hint=a,c
SELECT a.m AS c0, c.g AS c1, coalesce(a.x, -1.0) AS c2 FROM t1 a LEFT OUTER JOIN t3 c ON a.k = c.k WHERE a.id = c.n ORDER BY 1 DESC NULLS FIRST, 2 ASC NULLS LAST, 3 DESC NULLS LAST LIMIT 1 OFFSET 3;
-- case 320
SELECT length(b.s) AS c0, coalesce(b.k, 5) AS c1 FROM t2 b WHERE b.k >= (SELECT min(c.k) FROM t3 c);
-- case 321 hint=c,b,a
SELECT a.d AS c0, b.d AS c1, trim(c.g) AS c2, c.k * 2 AS c3 FROM t3 c CROSS JOIN t2 b RIGHT JOIN t1 a ON a.k = b.k;
-- case 322 hint=c,a
SELECT c.g AS g0, count(DISTINCT a.d) AS a0, count(DISTINCT a.k) AS a1, max(a.k) AS a2 FROM t3 c INNER JOIN t1 a ON c.k = a.k WHERE ((a.d > DATE '1994-01-01' AND c.g NOT LIKE 'a%') AND a.x <= 1.5) GROUP BY c.g;
-- case 323
SELECT coalesce(b.y, -1.0) AS c0 FROM t2 b WHERE b.k IN (SELECT c.k FROM t3 c WHERE c.n BETWEEN 1 AND 1);
-- case 324
SELECT b.s AS c0, abs(b.id) AS c1, trim(b.s) AS c2 FROM t2 b WHERE b.k = (SELECT max(c.k) FROM t3 c);
-- case 325
SELECT a.s AS g0, min(a.m) AS a0, sum(a.k) AS a1 FROM t1 a GROUP BY a.s;
-- case 326
SELECT b.y AS c0, b.k AS c1, b.k AS c2, b.id AS c3, b.k AS c4 FROM t2 b WHERE b.d = DATE '2000-02-29';
-- case 327 ordered hint=b,c
SELECT CASE WHEN b.s = 'a%b' THEN b.s ELSE 'other' END AS c0, b.k + -4 AS c1 FROM t2 b RIGHT JOIN t3 c ON b.k = c.k AND c.g <> 'banana' ORDER BY 1 DESC NULLS LAST, 2 DESC NULLS LAST LIMIT 1 OFFSET 3;
-- case 328 hint=c,b
SELECT count(b.s) AS a0 FROM t3 c FULL JOIN t2 b ON c.k = b.k WHERE b.d BETWEEN DATE '1994-01-01' AND DATE '1970-01-01';
-- case 329 hint=c,a,b
SELECT b.s AS g0, min(a.m) AS a0 FROM t3 c JOIN t1 a ON c.k = a.k AND a.m = -0.01 FULL JOIN t2 b ON b.k = a.k WHERE a.k * 2 < c.n GROUP BY b.s;
-- case 330
SELECT b.id AS c0 FROM t2 b WHERE b.k NOT IN (SELECT a.k FROM t1 a WHERE a.x > -0.0);
-- case 331 ordered
SELECT count(b.s) AS a0, count(b.y) AS a1, count(b.d) AS a2 FROM t2 b ORDER BY 3 DESC NULLS LAST, 1 DESC NULLS FIRST, 2 DESC NULLS LAST;
-- case 332 ordered
SELECT a.s AS g0, count(a.d) AS a0 FROM t1 a GROUP BY a.s HAVING count(*) >= 0 ORDER BY 2 ASC NULLS FIRST, 1 ASC NULLS FIRST;
-- case 333
SELECT a.s AS g0, sum(a.k) AS a0, avg(a.x) AS a1, sum(a.id) AS a2 FROM t1 a GROUP BY a.s;
-- case 334
SELECT a.id + 1 AS c0, CASE WHEN a.s NOT LIKE '%an%' THEN length(a.s) ELSE 3 END AS c1, a.k + 3 AS c2, a.d AS c3, (SELECT count(b.k) FROM t2 b) AS sq FROM t1 a WHERE a.m <> 2.00;
-- case 335 hint=a,c
SELECT a.id AS c0, a.m AS c1, replace(a.s, 'a', 'o') AS c2, a.s AS c3 FROM t1 a LEFT OUTER JOIN t3 c ON a.k = c.k AND a.id IN (-20, 0) WHERE c.n NOT IN (0, 3, 0, -4);
-- case 336 ordered hint=c,b
SELECT DISTINCT b.y * 2.0 AS c0, c.k AS c1 FROM t3 c JOIN t2 b ON c.k IS NOT DISTINCT FROM b.k AND b.y <= -0.0 WHERE c.n * 2 >= 3 ORDER BY 2 ASC NULLS FIRST, 1 DESC NULLS FIRST LIMIT 6 OFFSET 2;
-- case 337
SELECT substr(b.s, 2, 3) AS c0, b.s AS c1 FROM t2 b;
-- case 338 hint=a,b
SELECT b.d AS c0, a.s || '-' AS c1, a.m * 2 AS c2 FROM t1 a FULL JOIN t2 b ON a.k IS NOT DISTINCT FROM b.k;
-- case 339 hint=a,c
SELECT max(a.id) AS a0, count(*) AS a1, max(c.n) AS a2 FROM t1 a INNER JOIN t3 c ON a.k = c.k;
-- case 340
SELECT count(*) AS a0, count(c.g) AS a1 FROM t3 c;
-- case 341
SELECT a.k AS g0, avg(a.x) AS a0, max(a.k) AS a1, sum(a.m) AS a2 FROM t1 a GROUP BY a.k HAVING count(*) = 1;
-- case 342 ordered hint=b,c,a
SELECT c.k AS c0, a.m AS c1, coalesce(b.s, 'none') AS c2 FROM t2 b JOIN t3 c ON b.k = c.k LEFT JOIN t1 a ON a.k = b.k ORDER BY 1 DESC NULLS LAST, 2 ASC NULLS FIRST, 3 DESC NULLS FIRST LIMIT 4;
-- case 343 ordered hint=b,a
SELECT a.d AS c0 FROM t2 b INNER JOIN t1 a ON b.k = a.k AND b.d >= DATE '2000-02-29' WHERE a.id IN (2) ORDER BY 1 DESC NULLS LAST LIMIT 3;
-- case 344 ordered
SELECT b.d AS c0, abs(b.y) AS c1, b.s AS c2, coalesce(b.id, -20) AS c3 FROM t2 b WHERE b.y >= -1.5 ORDER BY 4 DESC NULLS LAST, 1 DESC NULLS LAST, 2 ASC NULLS LAST, 3 DESC NULLS FIRST LIMIT 2;
-- case 345
SELECT abs(b.id) AS c0, abs(b.k) AS c1 FROM t2 b WHERE b.k = (SELECT sum(c.k) FROM t3 c);
-- case 346 ordered
SELECT * FROM (SELECT a.k, a.d FROM t1 a WHERE replace(a.s, 'a', 'o') > 'kiwi' EXCEPT SELECT a.k, a.d FROM t1 a) u ORDER BY 2 DESC NULLS LAST, 1 ASC NULLS FIRST LIMIT 6;
-- case 347
SELECT a.id AS c0, a.m * 2 AS c1, a.m * 2 AS c2, a.s AS c3 FROM t1 a WHERE a.s NOT LIKE 'a%';
-- case 348
SELECT a.s AS g0, a.s AS g1, sum(a.x) AS a0, sum(a.x) AS a1 FROM t1 a WHERE NOT (a.d BETWEEN DATE '1994-01-01' AND DATE '1995-03-15') GROUP BY a.s, a.s;
-- case 349 hint=c,b
SELECT avg(c.k) AS a0, count(b.d) AS a1 FROM t3 c INNER JOIN t2 b ON c.k = b.k AND c.k <> 0;
-- case 350
SELECT b.s AS g0, sum(b.y) AS a0, avg(b.k) AS a1, sum(b.id) AS a2 FROM t2 b GROUP BY b.s HAVING count(*) = 0;
-- case 351 hint=c,a
SELECT DISTINCT c.n AS c0, a.m AS c1 FROM t3 c INNER JOIN t1 a ON c.k = a.k AND a.d > DATE '1970-01-01';
-- case 352 hint=c,b
SELECT c.n AS g0, min(c.g) AS a0, min(b.d) AS a1 FROM t3 c INNER JOIN t2 b ON c.k = b.k AND b.d BETWEEN DATE '1994-01-01' AND DATE '1996-01-01' WHERE c.g IS NOT NULL GROUP BY c.n;
-- case 353 hint=b,a,c
SELECT min(a.x) AS a0, min(c.g) AS a1 FROM t2 b INNER JOIN t1 a ON b.k = a.k LEFT JOIN t3 c ON c.k = a.k WHERE c.g LIKE '%';
-- case 354 hint=b,c,a
SELECT max(b.k) AS a0, count(DISTINCT a.m) AS a1, sum(a.m) AS a2 FROM t2 b CROSS JOIN t3 c FULL JOIN t1 a ON a.k = c.k WHERE a.m > 1.5;
-- case 355 hint=a,b,c
SELECT c.n AS g0, min(a.d) AS a0 FROM t1 a LEFT JOIN t2 b ON a.k = b.k AND a.k IN (2) RIGHT JOIN t3 c ON c.k = a.k GROUP BY c.n;
-- case 356 hint=a,c
SELECT a.k AS g0, c.n AS g1, min(a.x) AS a0, min(a.m) AS a1, count(DISTINCT a.d) AS a2 FROM t1 a INNER JOIN t3 c ON a.k IS NOT DISTINCT FROM c.k WHERE NOT (NOT (a.s NOT LIKE '_pple')) GROUP BY a.k, c.n;
-- case 357
SELECT count(*) AS n FROM (SELECT a.k FROM t1 a WHERE a.k BETWEEN 2 AND 4 INTERSECT ALL SELECT b.k FROM t2 b) u;
-- case 358 ordered hint=c,a
SELECT count(c.k) AS a0, count(DISTINCT a.m) AS a1 FROM t3 c INNER JOIN t1 a ON c.k = a.k ORDER BY 1 DESC NULLS LAST, 2 DESC NULLS FIRST LIMIT 0;
-- case 359
SELECT c.g AS c0 FROM t3 c WHERE c.k < (SELECT min(a.k) FROM t1 a);
-- case 360 ordered hint=a,b
SELECT a.id AS g0, b.k AS g1, count(DISTINCT a.x) AS a0 FROM t1 a RIGHT JOIN t2 b ON a.k = b.k AND b.d BETWEEN DATE '1994-01-01' AND DATE '1994-01-01' GROUP BY a.id, b.k HAVING count(*) > 2 ORDER BY 3 ASC NULLS LAST, 2 ASC NULLS LAST, 1 ASC NULLS FIRST LIMIT 6 OFFSET 1;
-- case 361
SELECT upper(a.s) FROM t1 a WHERE replace(a.s, 'a', 'o') < 'banana' UNION SELECT upper(c.g) FROM t3 c;
-- case 362
SELECT count(a.m) AS a0 FROM t1 a;
-- case 363
SELECT DISTINCT c.g || '-' AS c0, replace(c.g, 'a', 'o') AS c1, lower(c.g) AS c2, length(c.g) AS c3, c.n AS c4 FROM t3 c WHERE coalesce(c.n, -4) = c.n;
-- case 364
SELECT c.k, upper(c.g) FROM t3 c WHERE NOT (c.k = 1) UNION ALL SELECT a.k, upper(a.s) FROM t1 a WHERE a.d > DATE '1970-01-01';
-- case 365 hint=b,c
SELECT b.id AS g0, min(b.y) AS a0, count(b.y) AS a1, count(DISTINCT b.d) AS a2 FROM t2 b INNER JOIN t3 c ON b.k = c.k GROUP BY b.id;
-- case 366 ordered
SELECT DISTINCT c.k AS c0, c.n AS c1 FROM t3 c ORDER BY 1 DESC NULLS FIRST, 2 ASC NULLS FIRST LIMIT 0;
-- case 367 hint=b,a
SELECT a.m AS c0, a.m AS c1, trim(b.s) AS c2 FROM t2 b FULL JOIN t1 a ON b.k = a.k;
-- case 368
SELECT c.k, c.g FROM t3 c EXCEPT SELECT b.k, b.s FROM t2 b WHERE b.d <> DATE '1996-01-01';
-- case 369 ordered
SELECT a.m AS c0, a.d AS c1, (SELECT count(b.k) FROM t2 b) AS sq FROM t1 a WHERE a.s IS NULL ORDER BY 1 DESC NULLS FIRST, 2 ASC NULLS LAST, 3 ASC NULLS LAST LIMIT 4;
-- case 370 hint=c,a
SELECT c.g AS c0, a.s AS c1, a.m AS c2, a.id * 2 AS c3 FROM t3 c LEFT OUTER JOIN t1 a ON c.k = a.k WHERE NOT (c.g NOT LIKE '%an%');
-- case 371
SELECT avg(b.k) AS a0, min(b.s) AS a1, sum(b.y) AS a2 FROM t2 b;
-- case 372
SELECT a.k, a.d FROM t1 a INTERSECT ALL SELECT a.k, a.d FROM t1 a;
-- case 373 hint=b,a
SELECT b.id AS c0, b.s AS c1, CASE WHEN NOT (a.s >= 'Apple') THEN CASE WHEN b.id > 2 THEN b.id ELSE 5 END ELSE -20 END AS c2, b.k * 2 AS c3 FROM t2 b FULL JOIN t1 a ON b.k = a.k WHERE a.s LIKE '%';
-- case 374 hint=a,c
SELECT c.g AS g0, max(a.s) AS a0 FROM t1 a LEFT OUTER JOIN t3 c ON a.k IS NOT DISTINCT FROM c.k WHERE a.id >= c.n GROUP BY c.g;
-- case 375 ordered hint=b,c
SELECT DISTINCT coalesce(c.g, 'none') AS c0, upper(b.s) AS c1, lower(b.s) AS c2, coalesce(c.k, 5) AS c3 FROM t2 b RIGHT JOIN t3 c ON b.k = c.k WHERE b.id NOT IN (-20, -4) ORDER BY 3 DESC NULLS LAST, 1 DESC NULLS LAST, 4 DESC NULLS FIRST, 2 DESC NULLS FIRST;
-- case 376 ordered hint=c,a,b
SELECT b.s AS g0, min(b.s) AS a0, count(DISTINCT c.n) AS a1 FROM t3 c FULL JOIN t1 a ON c.k = a.k LEFT JOIN t2 b ON b.k = a.k WHERE coalesce(a.k, 2) = 3 GROUP BY b.s ORDER BY 2 DESC NULLS FIRST, 3 DESC NULLS LAST, 1 DESC NULLS LAST LIMIT 6;
-- case 377 ordered
SELECT a.x AS c0, a.k AS c1, length(a.s) AS c2 FROM t1 a WHERE NOT EXISTS (SELECT 1 FROM t2 b WHERE b.k = a.k AND b.id <= 2) ORDER BY 3 DESC NULLS LAST, 2 ASC NULLS LAST, 1 DESC NULLS FIRST LIMIT 0;
-- case 378 hint=c,b
SELECT b.d AS c0 FROM t3 c FULL JOIN t2 b ON c.k = b.k;
-- case 379 ordered hint=b,a,c
SELECT abs(c.k) AS c0 FROM t2 b INNER JOIN t1 a ON b.k = a.k LEFT JOIN t3 c ON c.k = b.k WHERE b.d < DATE '1970-01-01' ORDER BY 1 DESC NULLS LAST;
-- case 380
SELECT b.s AS g0, count(DISTINCT b.s) AS a0, count(*) AS a1, count(*) AS a2 FROM t2 b WHERE b.d <= DATE '1996-01-01' GROUP BY b.s;
-- case 381 ordered
SELECT a.s || '-' AS c0, replace(a.s, 'a', 'o') AS c1 FROM t1 a WHERE a.m <= 1.5 ORDER BY 1 DESC NULLS FIRST, 2 DESC NULLS FIRST;
-- case 382 hint=a,c
SELECT a.id AS g0, count(DISTINCT a.s) AS a0, count(*) AS a1, count(*) AS a2 FROM t1 a INNER JOIN t3 c ON a.k = c.k GROUP BY a.id;
-- case 383 hint=b,a,c
SELECT a.k AS c0, a.d AS c1, a.d AS c2 FROM t2 b FULL JOIN t1 a ON b.k = a.k JOIN t3 c ON c.k = a.k;
-- case 384 hint=c,a
SELECT coalesce(a.x, -1.0) AS c0, a.d AS c1, a.d AS c2, a.k * 2 AS c3 FROM t3 c RIGHT JOIN t1 a ON c.k IS NOT DISTINCT FROM a.k;
-- case 385
SELECT a.id AS g0, min(a.m) AS a0, count(*) AS a1, max(a.m) AS a2 FROM t1 a WHERE a.id >= -4 GROUP BY a.id HAVING count(*) > 2;
-- case 386 ordered
SELECT lower(b.s) AS c0, b.d AS c1 FROM t2 b WHERE (b.y <= 1.5 AND b.d < DATE '1996-01-01') ORDER BY 1 DESC NULLS FIRST, 2 ASC NULLS LAST;
-- case 387
SELECT a.d AS c0, a.s AS c1 FROM t1 a WHERE a.x >= -1.5;
-- case 388
SELECT a.s AS g0, a.id AS g1, count(DISTINCT a.s) AS a0 FROM t1 a GROUP BY a.s, a.id;
-- case 389
SELECT count(*) AS a0, count(DISTINCT b.id) AS a1 FROM t2 b;
-- case 390 ordered hint=c,a
SELECT abs(a.x) AS c0, abs(a.x) AS c1, a.m * 2 AS c2 FROM t3 c FULL JOIN t1 a ON c.k = a.k AND a.m <> 1.5 ORDER BY 3 ASC NULLS FIRST, 2 ASC NULLS LAST, 1 ASC NULLS FIRST LIMIT 2;
-- case 391 ordered
SELECT * FROM (SELECT a.k FROM t1 a INTERSECT SELECT c.k FROM t3 c) u ORDER BY 1 DESC NULLS FIRST LIMIT 1 OFFSET 3;
-- case 392
SELECT a.s || '-' AS c0, a.s AS c1, a.d AS c2 FROM t1 a WHERE a.k < (SELECT min(c.k) FROM t3 c);
-- case 393
SELECT c.g AS g0, c.g AS g1, count(c.g) AS a0, count(DISTINCT c.g) AS a1, count(c.g) AS a2 FROM t3 c WHERE c.g NOT LIKE '_pple' GROUP BY c.g, c.g HAVING count(*) >= 1;
-- case 394 hint=c,a
SELECT count(*) AS a0 FROM t3 c RIGHT JOIN t1 a ON c.k IS NOT DISTINCT FROM a.k;
-- case 395 ordered
SELECT substr(a.s, 2, 3) AS c0, a.k + 10 AS c1 FROM t1 a WHERE a.k < (SELECT min(b.k) FROM t2 b) ORDER BY 2 ASC NULLS LAST, 1 ASC NULLS LAST LIMIT 6;
-- case 396
SELECT count(DISTINCT c.g) AS a0, avg(c.k) AS a1, count(*) AS a2 FROM t3 c WHERE c.n NOT IN (0, 5, 2, 3, NULL);
-- case 397 hint=b,c
SELECT c.k AS g0, b.s AS g1, sum(b.y) AS a0, count(DISTINCT c.k) AS a1, count(b.s) AS a2 FROM t2 b FULL JOIN t3 c ON b.k = c.k GROUP BY c.k, b.s;
-- case 398 hint=a,c
SELECT length(a.s) AS c0, a.d AS c1 FROM t1 a INNER JOIN t3 c ON a.k = c.k;
-- case 399 hint=b,c
SELECT b.s AS g0, count(b.s) AS a0, count(DISTINCT b.s) AS a1, count(DISTINCT c.g) AS a2 FROM t2 b FULL JOIN t3 c ON b.k = c.k WHERE c.n + 5 <= -4 GROUP BY b.s HAVING count(*) > 2;
-- case 400
SELECT coalesce(b.id, 1) AS c0 FROM t2 b WHERE b.k IN (SELECT a.k FROM t1 a WHERE a.id IN (3, -20));
-- case 401 hint=a,b,c
SELECT length(c.g) AS c0, b.id AS c1 FROM t1 a CROSS JOIN t2 b RIGHT JOIN t3 c ON c.k = b.k WHERE c.k > 1;
-- case 402
SELECT count(*) AS n FROM (SELECT a.k, a.d FROM t1 a WHERE a.k IN (3, 3) EXCEPT ALL SELECT a.k, a.d FROM t1 a) u;
-- case 403
SELECT a.k AS g0, a.id AS g1, count(*) AS a0, count(*) AS a1, sum(a.x) AS a2 FROM t1 a GROUP BY a.k, a.id HAVING count(*) = 2;
-- case 404 hint=b,c
SELECT sum(b.y) AS a0 FROM t2 b RIGHT JOIN t3 c ON b.k IS NOT DISTINCT FROM c.k;
-- case 405 hint=c,b
SELECT DISTINCT c.k + 10 AS c0, b.id + 5 AS c1 FROM t3 c JOIN t2 b ON c.k = b.k;
-- case 406
SELECT count(*) AS n FROM (SELECT a.k FROM t1 a WHERE a.s NOT LIKE '_pple' UNION SELECT a.k FROM t1 a) u;
-- case 407 ordered
SELECT coalesce(a.k, 0) AS c0 FROM t1 a WHERE a.s LIKE '%' ORDER BY 1 ASC NULLS FIRST LIMIT 2 OFFSET 1;
-- case 408
SELECT c.g AS g0, min(c.k) AS a0, min(c.n) AS a1, count(c.k) AS a2 FROM t3 c GROUP BY c.g;
-- case 409 hint=c,a
SELECT CASE WHEN a.m >= 0 THEN c.k ELSE 10 END AS c0, a.m AS c1, a.m * 2 AS c2 FROM t3 c JOIN t1 a ON c.k = a.k WHERE a.x < 1.5;
-- case 410
SELECT b.id AS g0, b.k AS g1, count(b.k) AS a0 FROM t2 b GROUP BY b.id, b.k;
-- case 411
SELECT CASE WHEN c.k >= c.n THEN CASE WHEN c.n >= -4 THEN c.n ELSE 1 END ELSE 0 END AS c0, c.g AS c1 FROM t3 c;
-- case 412
SELECT DISTINCT a.s AS c0, abs(a.x) AS c1 FROM t1 a WHERE a.k NOT IN (-4, 10);
-- case 413 hint=b,c
SELECT c.n AS g0, count(DISTINCT c.k) AS a0, sum(b.k) AS a1, min(c.g) AS a2 FROM t2 b LEFT OUTER JOIN t3 c ON b.k = c.k AND c.n BETWEEN 3 AND 6 WHERE b.id IS NULL GROUP BY c.n HAVING count(*) > 0;
-- case 414
SELECT CASE WHEN NOT (b.d <> DATE '1994-01-01') THEN length(b.s) ELSE 1 END AS c0, substr(b.s, 2, 3) AS c1, b.y * 2.0 AS c2 FROM t2 b WHERE b.k = (SELECT max(c.k) FROM t3 c);
-- case 415 hint=a,b
SELECT a.id AS g0, b.s AS g1, count(DISTINCT b.d) AS a0, max(a.s) AS a1, sum(a.id) AS a2 FROM t1 a LEFT JOIN t2 b ON a.k = b.k WHERE ((a.id BETWEEN -4 AND 1 AND a.x = -1.5) AND a.k >= 5) GROUP BY a.id, b.s;
-- case 416
SELECT b.s AS c0, b.d AS c1 FROM t2 b WHERE b.k IN (SELECT a.k FROM t1 a);
-- case 417 hint=b,c
SELECT b.id AS g0, c.g AS g1, count(DISTINCT c.g) AS a0, count(*) AS a1 FROM t2 b LEFT JOIN t3 c ON b.k = c.k GROUP BY b.id, c.g;
-- case 418 hint=a,c
SELECT a.x * 2.0 AS c0, a.s AS c1 FROM t1 a CROSS JOIN t3 c;
-- case 419 ordered
SELECT * FROM (SELECT c.k, c.g FROM t3 c EXCEPT ALL SELECT b.k, upper(b.s) FROM t2 b WHERE (b.y <= 0.0 OR b.k > 5)) u ORDER BY 2 ASC NULLS FIRST, 1 DESC NULLS FIRST LIMIT 3;
-- case 420 hint=a,b,c
SELECT b.d AS c0, a.m * 2 AS c1, length(a.s) AS c2, a.id AS c3 FROM t1 a FULL JOIN t2 b ON a.k = b.k LEFT JOIN t3 c ON c.k = b.k;
-- case 421 hint=a,b
SELECT b.id AS g0, b.s AS g1, min(b.y) AS a0, count(b.s) AS a1 FROM t1 a FULL JOIN t2 b ON a.k = b.k WHERE (a.id BETWEEN -5 AND 0 AND a.s IS NOT NULL) GROUP BY b.id, b.s;
-- case 422 hint=b,c
SELECT b.id AS g0, c.g AS g1, min(b.y) AS a0, count(DISTINCT b.d) AS a1 FROM t2 b JOIN t3 c ON b.k IS NOT DISTINCT FROM c.k GROUP BY b.id, c.g;
-- case 423 hint=c,b,a
SELECT a.d AS c0, a.s AS c1, substr(a.s, 2, 3) AS c2 FROM t3 c FULL JOIN t2 b ON c.k = b.k AND c.n >= b.id JOIN t1 a ON a.k = b.k WHERE a.id + 3 <= 3;
-- case 424
SELECT sum(b.k) AS a0, count(DISTINCT b.d) AS a1, min(b.y) AS a2 FROM t2 b WHERE b.k BETWEEN 1 AND 3;
-- case 425
SELECT count(DISTINCT a.s) AS a0, sum(a.k) AS a1, min(a.d) AS a2 FROM t1 a;
-- case 426
SELECT replace(b.s, 'a', 'o') AS c0, (SELECT sum(a.k) FROM t1 a WHERE a.k = b.k) AS sq FROM t2 b WHERE b.k > b.k;
-- case 427 ordered
SELECT b.y AS c0 FROM t2 b WHERE b.k NOT IN (SELECT a.k FROM t1 a WHERE a.d >= DATE '1996-01-01') ORDER BY 1 DESC NULLS FIRST LIMIT 5;
-- case 428 ordered
SELECT a.id + 1 AS c0, coalesce(a.k, 10) AS c1 FROM t1 a WHERE EXISTS (SELECT 1 FROM t3 c WHERE c.k = a.k AND c.n IS NOT NULL) ORDER BY 1 DESC NULLS FIRST, 2 DESC NULLS LAST;
-- case 429
SELECT 'apple' FROM t2 b WHERE length(b.s) > b.id EXCEPT SELECT b.s FROM t2 b WHERE b.s NOT LIKE '%an%';
-- case 430
SELECT coalesce(a.s, 'none') AS c0, a.m AS c1, CASE WHEN (a.m >= 1.5 AND a.id >= a.k) THEN coalesce(a.id, -4) ELSE 10 END AS c2, replace(a.s, 'a', 'o') AS c3, (SELECT sum(b.k) FROM t2 b WHERE b.k = a.k) AS sq FROM t1 a WHERE a.s IS NULL;
-- case 431
SELECT a.k, a.d FROM t1 a WHERE a.k + -4 > a.id INTERSECT ALL SELECT b.k, b.d FROM t2 b WHERE b.k BETWEEN 0 AND 0;
-- case 432 ordered
SELECT * FROM (SELECT a.k, a.d FROM t1 a WHERE a.d <= DATE '1995-03-15' EXCEPT SELECT a.k, a.d FROM t1 a WHERE a.id + 2 <= a.k) u ORDER BY 2 ASC NULLS LAST, 1 ASC NULLS FIRST LIMIT 0 OFFSET 1;
-- case 433
SELECT count(*) AS n FROM (SELECT b.s FROM t2 b EXCEPT ALL SELECT b.s FROM t2 b WHERE b.s <> 'apple') u;
-- case 434 ordered
SELECT coalesce(b.id, 2) AS c0, abs(b.y) AS c1, substr(b.s, 2, 3) AS c2, (SELECT min(c.k) FROM t3 c) AS sq FROM t2 b WHERE b.s LIKE '%an%' ORDER BY 2 ASC NULLS LAST, 3 DESC NULLS LAST, 1 DESC NULLS FIRST, 4 DESC NULLS LAST LIMIT 0;
-- case 435 hint=a,b
SELECT DISTINCT a.s || '-' AS c0, substr(a.s, 2, 3) AS c1, a.m * 2 AS c2 FROM t1 a LEFT JOIN t2 b ON a.k = b.k;
-- case 436 hint=c,b,a
SELECT abs(b.id) AS c0, b.d AS c1, a.m AS c2 FROM t3 c LEFT OUTER JOIN t2 b ON c.k = b.k RIGHT JOIN t1 a ON a.k = b.k;
-- case 437 ordered
SELECT b.id * 2 AS c0, coalesce(b.y, -1.0) AS c1, b.id AS c2, coalesce(b.k, 1) AS c3 FROM t2 b WHERE b.y < 1.5 ORDER BY 2 DESC NULLS FIRST, 3 DESC NULLS LAST, 4 ASC NULLS FIRST, 1 DESC NULLS FIRST LIMIT 1 OFFSET 1;
-- case 438
SELECT c.k, c.g FROM t3 c WHERE c.g NOT LIKE '%' UNION ALL SELECT c.k, c.g FROM t3 c;
-- case 439
SELECT DISTINCT b.k + 2 AS c0, CASE WHEN b.k IS NOT NULL THEN b.s ELSE 'other' END AS c1, b.s || '-' AS c2, b.d AS c3, lower(b.s) AS c4 FROM t2 b WHERE b.k IN (1, -20, 10, 0);
-- case 440
SELECT b.s AS g0, count(DISTINCT b.id) AS a0, avg(b.k) AS a1 FROM t2 b GROUP BY b.s HAVING count(*) >= 0;
-- case 441
SELECT b.s AS c0, b.d AS c1, b.s || '-' AS c2, b.k AS c3, (SELECT sum(a.k) FROM t1 a WHERE a.k = b.k) AS sq FROM t2 b WHERE b.s LIKE 'a%';
-- case 442 ordered
SELECT b.d AS c0, CASE WHEN NOT (b.d BETWEEN DATE '1994-01-01' AND DATE '1994-01-01') THEN b.s ELSE 'other' END AS c1, b.d AS c2 FROM t2 b WHERE b.y >= CAST('NaN' AS DOUBLE) ORDER BY 1 ASC NULLS LAST, 3 DESC NULLS LAST, 2 DESC NULLS LAST LIMIT 1;
-- case 443 ordered
SELECT replace(c.g, 'a', 'o') AS c0, upper(c.g) AS c1, c.n AS c2, (SELECT min(b.id) FROM t2 b WHERE b.k = c.k) AS sq FROM t3 c WHERE c.n IS NOT NULL ORDER BY 4 DESC NULLS FIRST, 2 DESC NULLS FIRST, 1 DESC NULLS LAST, 3 ASC NULLS FIRST LIMIT 4;
-- case 444 hint=c,b
SELECT c.g AS g0, b.s AS g1, min(b.y) AS a0, count(*) AS a1, min(b.s) AS a2 FROM t3 c LEFT OUTER JOIN t2 b ON c.k IS NOT DISTINCT FROM b.k GROUP BY c.g, b.s HAVING count(*) > 0;
-- case 445
SELECT count(*) AS n FROM (SELECT b.k, b.d FROM t2 b EXCEPT SELECT b.k, b.d FROM t2 b) u;
-- case 446 hint=b,c
SELECT b.d AS c0, b.id + -20 AS c1 FROM t2 b FULL JOIN t3 c ON b.k = c.k WHERE b.y > b.y;
-- case 447
SELECT CASE WHEN c.n <> c.k THEN length(c.g) ELSE 5 END AS c0 FROM t3 c WHERE c.k NOT IN (SELECT a.k FROM t1 a);
-- case 448
SELECT DISTINCT a.id AS c0 FROM t1 a WHERE a.m <= 1.5;
-- case 449
SELECT a.x FROM t1 a WHERE a.m = 0 UNION ALL SELECT a.x FROM t1 a;
-- case 450
SELECT a.id AS g0, a.s AS g1, min(a.d) AS a0 FROM t1 a WHERE a.id * 2 <> 0 GROUP BY a.id, a.s;
-- case 451 hint=c,a
SELECT c.g AS g0, c.g AS g1, count(a.m) AS a0 FROM t3 c INNER JOIN t1 a ON c.k = a.k WHERE c.n IN (1, 2, 2, 1) GROUP BY c.g, c.g;
-- case 452 ordered
SELECT a.k AS g0, count(a.x) AS a0, sum(a.m) AS a1, max(a.d) AS a2 FROM t1 a WHERE NOT (a.id <> a.id) GROUP BY a.k HAVING count(*) >= 2 ORDER BY 1 ASC NULLS LAST, 4 ASC NULLS LAST, 3 DESC NULLS FIRST, 2 DESC NULLS FIRST LIMIT 0;
-- case 453
SELECT a.x * 2.0 AS c0, a.id AS c1, a.k AS c2, CASE WHEN a.d BETWEEN DATE '1994-01-01' AND DATE '1996-01-01' THEN a.s ELSE 'other' END AS c3 FROM t1 a WHERE a.k = (SELECT min(c.k) FROM t3 c);
-- case 454 ordered
SELECT c.n AS g0, c.g AS g1, count(*) AS a0, max(c.g) AS a1, avg(c.n) AS a2 FROM t3 c GROUP BY c.n, c.g ORDER BY 5 DESC NULLS LAST, 4 DESC NULLS LAST, 2 ASC NULLS FIRST, 1 ASC NULLS LAST, 3 DESC NULLS FIRST;
-- case 455 ordered hint=a,c
SELECT a.x * 2.0 AS c0 FROM t1 a CROSS JOIN t3 c WHERE a.d = DATE '1996-01-01' ORDER BY 1 ASC NULLS LAST LIMIT 6;
-- case 456
SELECT max(c.g) AS a0, avg(c.k) AS a1 FROM t3 c WHERE upper(c.g) < 'kiwi';
-- case 457 hint=a,c
SELECT DISTINCT a.s AS c0 FROM t1 a LEFT JOIN t3 c ON a.k = c.k WHERE ((a.x > 0.0 AND a.k <= c.k) OR a.d < DATE '2000-02-29');
-- case 458 hint=b,c
SELECT c.g AS g0, count(b.d) AS a0, count(*) AS a1, count(b.s) AS a2 FROM t2 b JOIN t3 c ON b.k = c.k GROUP BY c.g HAVING count(*) = 2;
-- case 459 ordered
SELECT c.g AS c0, (SELECT count(a.k) FROM t1 a) AS sq FROM t3 c WHERE substr(c.g, 2, 3) <= 'banana' ORDER BY 2 ASC NULLS LAST, 1 DESC NULLS FIRST LIMIT 4;
-- case 460
SELECT max(c.g) AS a0 FROM t3 c;
-- case 461
SELECT count(c.k) AS a0, max(c.g) AS a1 FROM t3 c;
-- case 462 ordered hint=a,c
SELECT DISTINCT a.x AS c0, a.id AS c1 FROM t1 a CROSS JOIN t3 c WHERE c.g || '-' >= 'kiwi' ORDER BY 2 DESC NULLS FIRST, 1 DESC NULLS FIRST LIMIT 4 OFFSET 1;
-- case 463 ordered
SELECT * FROM (SELECT b.k, b.d FROM t2 b EXCEPT SELECT a.k, a.d FROM t1 a) u ORDER BY 1 DESC NULLS LAST, 2 ASC NULLS LAST LIMIT 1 OFFSET 3;
-- case 464 ordered
SELECT a.d AS c0, a.s AS c1 FROM t1 a WHERE a.id BETWEEN -3 AND -1 ORDER BY 1 DESC NULLS FIRST, 2 DESC NULLS LAST LIMIT 0;
-- case 465
SELECT c.n AS c0, c.n AS c1, c.k + 2 AS c2 FROM t3 c WHERE (c.g IS NOT NULL AND c.k BETWEEN -1 AND 3);
-- case 466 hint=a,b
SELECT max(a.m) AS a0 FROM t1 a CROSS JOIN t2 b WHERE CASE WHEN a.x = CAST('NaN' AS DOUBLE) THEN b.id ELSE 10 END <= b.k;
-- case 467
SELECT upper(c.g) FROM t3 c EXCEPT ALL SELECT b.s FROM t2 b WHERE b.id % 3 <> 5;
-- case 468 hint=a,b
SELECT substr(a.s, 2, 3) AS c0, abs(b.y) AS c1 FROM t1 a RIGHT JOIN t2 b ON a.k IS NOT DISTINCT FROM b.k AND a.s >= 'kiwi';
-- case 469 ordered
SELECT substr(c.g, 2, 3) AS c0, (SELECT min(a.k) FROM t1 a WHERE a.k = c.k) AS sq FROM t3 c WHERE c.g LIKE '_pple' ORDER BY 2 DESC NULLS LAST, 1 ASC NULLS LAST LIMIT 5 OFFSET 1;
-- case 470 hint=b,a
SELECT a.m * 2 AS c0 FROM t2 b JOIN t1 a ON b.k = a.k WHERE a.id >= 0;
-- case 471 ordered hint=a,c
SELECT DISTINCT c.g || '-' AS c0, a.d AS c1 FROM t1 a JOIN t3 c ON a.k = c.k ORDER BY 1 ASC NULLS LAST, 2 ASC NULLS FIRST LIMIT 2 OFFSET 3;
-- case 472
SELECT c.k FROM t3 c WHERE c.n BETWEEN -3 AND 0 INTERSECT ALL SELECT b.k FROM t2 b WHERE CASE WHEN b.s <= 'a%b' THEN b.k ELSE 5 END > 1;
-- case 473 hint=c,a,b
SELECT a.id AS g0, b.k AS g1, sum(a.m) AS a0 FROM t3 c LEFT OUTER JOIN t1 a ON c.k = a.k AND c.k IS NULL RIGHT JOIN t2 b ON b.k = c.k GROUP BY a.id, b.k;
-- case 474 hint=c,b
SELECT b.k * 2 AS c0 FROM t3 c FULL JOIN t2 b ON c.k = b.k;
-- case 475
SELECT b.y FROM t2 b UNION SELECT b.y FROM t2 b;
-- case 476 ordered hint=a,c
SELECT c.g AS g0, a.k AS g1, count(*) AS a0 FROM t1 a JOIN t3 c ON a.k = c.k GROUP BY c.g, a.k ORDER BY 2 ASC NULLS LAST, 3 DESC NULLS FIRST, 1 DESC NULLS LAST;
-- case 477 hint=a,c
SELECT CASE WHEN a.k <= c.n THEN c.g ELSE 'other' END AS c0 FROM t1 a CROSS JOIN t3 c;
-- case 478
SELECT a.s AS g0, a.id AS g1, min(a.m) AS a0, sum(a.x) AS a1, sum(a.id) AS a2 FROM t1 a GROUP BY a.s, a.id;
-- case 479 ordered
SELECT b.s AS g0, count(DISTINCT b.k) AS a0 FROM t2 b WHERE b.s LIKE 'a%' GROUP BY b.s HAVING count(*) = 1 ORDER BY 1 ASC NULLS LAST, 2 ASC NULLS LAST;
-- case 480 hint=c,a
SELECT a.s AS c0, a.k * 2 AS c1, abs(a.x) AS c2 FROM t3 c CROSS JOIN t1 a;
-- case 481 ordered
SELECT CASE WHEN a.id NOT IN (10, 1, -4, -4) THEN a.k ELSE 0 END AS c0 FROM t1 a WHERE a.d BETWEEN DATE '1994-01-01' AND DATE '1995-03-15' ORDER BY 1 DESC NULLS LAST LIMIT 4 OFFSET 1;
-- case 482 ordered
SELECT abs(a.x) AS c0, a.d AS c1, coalesce(a.k, 5) AS c2, (SELECT count(c.k) FROM t3 c) AS sq FROM t1 a WHERE a.k IN (-4, 0, -4, NULL) ORDER BY 1 DESC NULLS FIRST, 4 DESC NULLS LAST, 3 DESC NULLS FIRST, 2 ASC NULLS FIRST;
-- case 483
SELECT length(b.s) AS c0, b.d AS c1, b.id AS c2, b.k AS c3 FROM t2 b WHERE b.k IN (SELECT a.k FROM t1 a WHERE a.k < 5);
-- case 484 ordered
SELECT b.d AS c0, b.k + 3 AS c1, b.d AS c2 FROM t2 b WHERE b.k IN (SELECT a.k FROM t1 a WHERE a.x >= 1.5) ORDER BY 3 DESC NULLS FIRST, 1 ASC NULLS LAST, 2 ASC NULLS FIRST LIMIT 6;
-- case 485 hint=a,b
SELECT replace(b.s, 'a', 'o') AS c0 FROM t1 a RIGHT JOIN t2 b ON a.k IS NOT DISTINCT FROM b.k AND b.y < -1.5;
-- case 486 hint=a,b
SELECT length(a.s) AS c0, abs(b.k) AS c1, b.y * 2.0 AS c2 FROM t1 a INNER JOIN t2 b ON a.k = b.k;
-- case 487 hint=c,b,a
SELECT max(a.x) AS a0 FROM t3 c LEFT OUTER JOIN t2 b ON c.k = b.k FULL JOIN t1 a ON a.k = b.k;
-- case 488 ordered
SELECT * FROM (SELECT upper(c.g) FROM t3 c INTERSECT SELECT a.s FROM t1 a) u ORDER BY 1 DESC NULLS LAST LIMIT 3;
-- case 489
SELECT count(*) AS n FROM (SELECT a.k, a.d FROM t1 a INTERSECT ALL SELECT b.k, b.d FROM t2 b) u;
-- case 490 hint=b,c
SELECT c.g AS g0, count(*) AS a0, count(c.g) AS a1 FROM t2 b FULL JOIN t3 c ON b.k IS NOT DISTINCT FROM c.k WHERE b.s LIKE '_pple' GROUP BY c.g;
-- case 491 hint=a,c
SELECT count(a.x) AS a0, count(a.d) AS a1 FROM t1 a LEFT JOIN t3 c ON a.k = c.k WHERE length(a.s) <= c.n;
-- case 492 hint=a,c
SELECT c.n AS g0, sum(a.x) AS a0, count(*) AS a1 FROM t1 a JOIN t3 c ON a.k = c.k AND a.x >= 0.0 WHERE a.m < 0 GROUP BY c.n;
-- case 493 ordered
SELECT * FROM (SELECT a.k FROM t1 a WHERE a.x <> CAST('NaN' AS DOUBLE) INTERSECT ALL SELECT b.k FROM t2 b WHERE length(b.s) > 5) u ORDER BY 1 ASC NULLS LAST;
-- case 494 ordered
SELECT a.d AS c0, a.m AS c1, substr(a.s, 2, 3) AS c2, a.m * 2 AS c3 FROM t1 a WHERE a.x < 1.5 ORDER BY 3 DESC NULLS FIRST, 4 DESC NULLS FIRST, 2 DESC NULLS FIRST, 1 ASC NULLS LAST LIMIT 4 OFFSET 1;
-- case 495 hint=c,b
SELECT b.k AS g0, b.s AS g1, avg(b.y) AS a0, count(*) AS a1 FROM t3 c JOIN t2 b ON c.k = b.k GROUP BY b.k, b.s;
-- case 496 ordered
SELECT coalesce(b.k, 0) AS c0, b.d AS c1, coalesce(b.s, 'none') AS c2, trim(b.s) AS c3 FROM t2 b WHERE EXISTS (SELECT 1 FROM t3 c WHERE c.k = b.k) ORDER BY 2 DESC NULLS LAST, 3 ASC NULLS LAST, 4 DESC NULLS FIRST, 1 ASC NULLS FIRST LIMIT 0;
-- case 497 ordered hint=c,a,b
SELECT a.d AS c0, c.k AS c1 FROM t3 c LEFT OUTER JOIN t1 a ON c.k = a.k JOIN t2 b ON b.k = c.k ORDER BY 2 DESC NULLS FIRST, 1 ASC NULLS LAST LIMIT 2;
-- case 498 hint=c,a
SELECT c.n AS g0, a.s AS g1, sum(a.x) AS a0, avg(a.m) AS a1 FROM t3 c JOIN t1 a ON c.k IS NOT DISTINCT FROM a.k WHERE NOT (a.id <= 2) GROUP BY c.n, a.s;
-- case 499
SELECT b.k, b.d FROM t2 b UNION ALL SELECT a.k, a.d FROM t1 a;
-- case 500 ordered hint=a,c
SELECT abs(a.x) AS c0, c.n AS c1 FROM t1 a CROSS JOIN t3 c ORDER BY 2 ASC NULLS FIRST, 1 ASC NULLS FIRST LIMIT 1 OFFSET 3;
-- case 501 ordered hint=a,c,b
SELECT replace(c.g, 'a', 'o') AS c0, b.y AS c1, b.s AS c2 FROM t1 a LEFT OUTER JOIN t3 c ON a.k = c.k FULL JOIN t2 b ON b.k = a.k ORDER BY 1 DESC NULLS FIRST, 3 DESC NULLS LAST, 2 ASC NULLS LAST LIMIT 3 OFFSET 3;
-- case 502
SELECT CASE WHEN c.g NOT LIKE 'a%' THEN c.k + 2 ELSE 10 END AS c0, coalesce(c.g, 'none') AS c1, c.n * 2 AS c2 FROM t3 c WHERE c.k >= (SELECT sum(b.k) FROM t2 b);
-- case 503
SELECT DISTINCT coalesce(a.x, -1.0) AS c0, a.d AS c1, a.d AS c2 FROM t1 a WHERE a.s IS NULL;
-- case 504 hint=b,c,a
SELECT count(*) AS a0, count(DISTINCT c.k) AS a1, count(c.g) AS a2 FROM t2 b CROSS JOIN t3 c RIGHT JOIN t1 a ON a.k = b.k;
-- case 505 hint=c,b
SELECT c.n AS g0, min(b.k) AS a0, count(DISTINCT b.y) AS a1 FROM t3 c FULL JOIN t2 b ON c.k = b.k GROUP BY c.n;
-- case 506 ordered hint=c,b
SELECT DISTINCT b.s AS c0, coalesce(b.k, 2) AS c1, CASE WHEN c.k >= b.id THEN c.n ELSE 0 END AS c2, coalesce(b.y, -1.0) AS c3 FROM t3 c FULL JOIN t2 b ON c.k = b.k ORDER BY 3 DESC NULLS FIRST, 4 ASC NULLS LAST, 2 DESC NULLS LAST, 1 DESC NULLS LAST LIMIT 4;
-- case 507 ordered
SELECT b.k AS g0, count(b.s) AS a0, max(b.s) AS a1, count(b.s) AS a2 FROM t2 b GROUP BY b.k ORDER BY 1 ASC NULLS LAST, 3 ASC NULLS LAST, 2 ASC NULLS FIRST, 4 ASC NULLS LAST;
-- case 508 hint=c,b
SELECT c.g AS g0, b.id AS g1, min(b.y) AS a0 FROM t3 c INNER JOIN t2 b ON c.k = b.k AND c.g NOT LIKE '_pple' WHERE b.y < 0.0 GROUP BY c.g, b.id;
-- case 509
SELECT a.s AS c0, coalesce(a.x, -1.0) AS c1 FROM t1 a WHERE a.k IN (SELECT b.k FROM t2 b);
-- case 510
SELECT b.y FROM t2 b WHERE b.id IS NULL UNION ALL SELECT a.x FROM t1 a WHERE a.id BETWEEN 1 AND 2;
-- case 511 hint=a,b
SELECT a.s AS g0, a.k AS g1, sum(a.id) AS a0, avg(a.x) AS a1, count(DISTINCT a.x) AS a2 FROM t1 a LEFT JOIN t2 b ON a.k = b.k WHERE a.k BETWEEN 0 AND 2 GROUP BY a.s, a.k HAVING count(*) > 2;
-- case 512
SELECT a.m AS c0, a.k AS c1, coalesce(a.id, 0) AS c2 FROM t1 a WHERE a.k NOT IN (SELECT b.k FROM t2 b WHERE b.id BETWEEN 1 AND 4);
-- case 513
SELECT c.k + 3 AS c0, abs(c.k) AS c1, (SELECT count(a.k) FROM t1 a) AS sq FROM t3 c WHERE c.k IS NOT NULL;
-- case 514 hint=a,b
SELECT b.y AS c0 FROM t1 a INNER JOIN t2 b ON a.k = b.k AND b.k BETWEEN 1 AND 2 WHERE NOT (b.y <> 1.5);
-- case 515 hint=b,a
SELECT a.m AS c0, a.m AS c1 FROM t2 b INNER JOIN t1 a ON b.k = a.k;
-- case 516 ordered
SELECT b.id AS c0, b.d AS c1, upper(b.s) AS c2, (SELECT count(c.k) FROM t3 c) AS sq FROM t2 b WHERE upper(b.s) < '' ORDER BY 4 ASC NULLS FIRST, 3 ASC NULLS FIRST, 2 ASC NULLS LAST, 1 DESC NULLS LAST LIMIT 6;
-- case 517 hint=c,a
SELECT count(DISTINCT a.id) AS a0, min(a.m) AS a1 FROM t3 c INNER JOIN t1 a ON c.k = a.k;
-- case 518 ordered
SELECT c.k AS c0, (SELECT min(a.id) FROM t1 a WHERE a.k = c.k) AS sq FROM t3 c WHERE c.g >= '' ORDER BY 1 ASC NULLS LAST, 2 ASC NULLS LAST LIMIT 5;
-- case 519 ordered
SELECT a.id AS g0, count(DISTINCT a.x) AS a0 FROM t1 a WHERE (a.k BETWEEN -4 AND -3 AND a.s LIKE '%an%') GROUP BY a.id HAVING count(*) > 0 ORDER BY 1 ASC NULLS FIRST, 2 DESC NULLS FIRST;
-- case 520 ordered
SELECT coalesce(a.id, -20) AS c0, a.x * 2.0 AS c1, a.id AS c2, trim(a.s) AS c3 FROM t1 a WHERE a.k BETWEEN -2 AND 0 ORDER BY 4 DESC NULLS FIRST, 1 ASC NULLS LAST, 2 ASC NULLS LAST, 3 ASC NULLS FIRST LIMIT 2;
-- case 521 hint=c,b
SELECT c.n AS c0, c.n % 3 AS c1 FROM t3 c JOIN t2 b ON c.k = b.k;
-- case 522
SELECT coalesce(b.id, 10) AS c0, (SELECT sum(a.k) FROM t1 a WHERE a.k = b.k) AS sq FROM t2 b WHERE b.id IN (2, 1, 2, -20, NULL);
-- case 523
SELECT b.k FROM t2 b WHERE b.y >= -1.5 INTERSECT ALL SELECT b.k FROM t2 b WHERE b.s IS NOT NULL;
-- case 524 hint=b,a
SELECT count(*) AS a0, max(a.k) AS a1, max(b.d) AS a2 FROM t2 b LEFT OUTER JOIN t1 a ON b.k = a.k;
-- case 525 hint=b,a,c
SELECT length(c.g) AS c0 FROM t2 b FULL JOIN t1 a ON b.k = a.k LEFT JOIN t3 c ON c.k = a.k;
-- case 526
SELECT substr(c.g, 2, 3) AS c0, (SELECT max(b.k) FROM t2 b WHERE b.k = c.k) AS sq FROM t3 c WHERE (c.n BETWEEN 2 AND 7 AND NOT (c.n IN (-20, -4, 10)));
-- case 527 ordered
SELECT DISTINCT c.g AS c0 FROM t3 c WHERE (c.g NOT LIKE 'a%' OR (c.k = c.k AND c.g > 'apple')) ORDER BY 1 DESC NULLS LAST;
-- case 528
SELECT a.m AS c0 FROM t1 a WHERE NOT EXISTS (SELECT 1 FROM t2 b WHERE b.k = a.k);
-- case 529 hint=a,b
SELECT a.s AS g0, a.k AS g1, count(a.k) AS a0, sum(a.x) AS a1 FROM t1 a JOIN t2 b ON a.k = b.k GROUP BY a.s, a.k;
-- case 530 ordered hint=c,b
SELECT c.g AS c0 FROM t3 c RIGHT JOIN t2 b ON c.k = b.k WHERE b.id IS NOT NULL ORDER BY 1 DESC NULLS LAST LIMIT 1 OFFSET 1;
-- case 531
SELECT c.n AS c0, c.n AS c1 FROM t3 c WHERE c.k BETWEEN -2 AND 2;
-- case 532 hint=b,a
SELECT b.id AS g0, b.s AS g1, max(a.s) AS a0, avg(b.y) AS a1, max(a.s) AS a2 FROM t2 b CROSS JOIN t1 a WHERE b.id NOT IN (-4, 3, NULL) GROUP BY b.id, b.s;
-- case 533 ordered hint=c,b
SELECT b.id + -4 AS c0, b.y AS c1, c.k AS c2 FROM t3 c FULL JOIN t2 b ON c.k = b.k ORDER BY 1 DESC NULLS LAST, 3 ASC NULLS LAST, 2 DESC NULLS LAST LIMIT 1 OFFSET 3;
-- case 534
SELECT b.k, b.s FROM t2 b WHERE b.id BETWEEN -5 AND -3 INTERSECT SELECT b.k, upper(b.s) FROM t2 b;
-- case 535
SELECT c.g AS c0, c.k AS c1 FROM t3 c WHERE c.k = (SELECT min(b.k) FROM t2 b);
-- case 536
SELECT coalesce(c.k, 1) AS c0, c.n AS c1, (SELECT min(a.k) FROM t1 a) AS sq FROM t3 c WHERE c.n IS NOT NULL;
-- case 537 hint=b,a,c
SELECT a.s AS g0, b.id AS g1, count(*) AS a0 FROM t2 b LEFT OUTER JOIN t1 a ON b.k = a.k RIGHT JOIN t3 c ON c.k = b.k WHERE a.d BETWEEN DATE '1994-01-01' AND DATE '1996-01-01' GROUP BY a.s, b.id HAVING count(*) >= 1;
-- case 538
SELECT a.k, a.d FROM t1 a WHERE a.id < 5 INTERSECT ALL SELECT a.k, a.d FROM t1 a WHERE a.k >= 10;
-- case 539
SELECT b.y AS c0, b.id * 2 AS c1, b.s AS c2, (SELECT max(a.id) FROM t1 a WHERE a.k = b.k) AS sq FROM t2 b WHERE (b.s NOT LIKE '%' OR b.id >= b.id);
-- case 540
SELECT a.k, upper(a.s) FROM t1 a UNION ALL SELECT b.k, b.s FROM t2 b WHERE b.s IS NOT NULL;
-- case 541
SELECT b.y AS c0, b.k + 1 AS c1, b.s AS c2 FROM t2 b WHERE b.k < (SELECT sum(c.k) FROM t3 c);
-- case 542 hint=a,b,c
SELECT a.k AS c0, CASE WHEN a.s IS NOT NULL THEN c.k + -20 ELSE 5 END AS c1 FROM t1 a LEFT JOIN t2 b ON a.k IS NOT DISTINCT FROM b.k FULL JOIN t3 c ON c.k = a.k WHERE c.g || '-' > '';
-- case 543
SELECT substr(b.s, 2, 3) AS c0, (SELECT max(a.k) FROM t1 a) AS sq FROM t2 b WHERE b.s >= 'apple';
-- case 544
SELECT a.k AS g0, a.s AS g1, count(a.d) AS a0 FROM t1 a WHERE NOT (a.k <> a.id) GROUP BY a.k, a.s;
-- case 545
SELECT c.k AS c0, c.n AS c1 FROM t3 c WHERE c.k < (SELECT sum(a.k) FROM t1 a);
-- case 546 hint=c,a
SELECT a.s AS g0, c.g AS g1, count(a.x) AS a0, count(a.m) AS a1, min(a.x) AS a2 FROM t3 c LEFT JOIN t1 a ON c.k = a.k WHERE c.g LIKE 'a%' GROUP BY a.s, c.g HAVING count(*) >= 1;
-- case 547 hint=b,c,a
SELECT coalesce(b.y, -1.0) AS c0, b.y AS c1, b.s AS c2, a.s AS c3 FROM t2 b RIGHT JOIN t3 c ON b.k = c.k FULL JOIN t1 a ON a.k = b.k;
-- case 548 hint=c,b
SELECT b.k AS g0, max(b.d) AS a0 FROM t3 c LEFT OUTER JOIN t2 b ON c.k IS NOT DISTINCT FROM b.k AND c.g LIKE '%an%' GROUP BY b.k;
-- case 549 ordered hint=c,b
SELECT abs(c.k) AS c0, length(c.g) AS c1 FROM t3 c JOIN t2 b ON c.k IS NOT DISTINCT FROM b.k WHERE b.y > 1.5 ORDER BY 2 DESC NULLS LAST, 1 DESC NULLS LAST LIMIT 4;
-- case 550 hint=b,c,a
SELECT DISTINCT b.s || '-' AS c0, a.m AS c1, coalesce(a.id, -4) AS c2, b.y * 2.0 AS c3 FROM t2 b INNER JOIN t3 c ON b.k = c.k FULL JOIN t1 a ON a.k = c.k;
-- case 551
SELECT b.s AS g0, b.k AS g1, avg(b.id) AS a0 FROM t2 b GROUP BY b.s, b.k;
-- case 552
SELECT sum(b.y) AS a0, max(b.s) AS a1, max(b.d) AS a2 FROM t2 b WHERE b.k NOT IN (-20, -20, 0);
-- case 553
SELECT a.k, a.d FROM t1 a WHERE a.m < -0.01 INTERSECT SELECT a.k, a.d FROM t1 a;
-- case 554 hint=a,c
SELECT a.s AS g0, avg(a.x) AS a0, min(a.s) AS a1, count(a.d) AS a2 FROM t1 a FULL JOIN t3 c ON a.k = c.k GROUP BY a.s;
-- case 555
SELECT c.g || '-' AS c0, coalesce(c.n, 1) AS c1, CASE WHEN c.n IN (2, 2, 5) THEN c.n * 2 ELSE 1 END AS c2, length(c.g) AS c3 FROM t3 c WHERE c.k = (SELECT min(a.k) FROM t1 a);
-- case 556 hint=b,a
SELECT b.id AS g0, count(b.d) AS a0, sum(b.k) AS a1 FROM t2 b FULL JOIN t1 a ON b.k = a.k GROUP BY b.id;
-- case 557 hint=a,b
SELECT DISTINCT b.y * 2.0 AS c0, a.id * 2 AS c1, b.d AS c2 FROM t1 a CROSS JOIN t2 b WHERE a.m <= 0;
-- case 558 ordered hint=b,c
SELECT coalesce(b.y, -1.0) AS c0 FROM t2 b CROSS JOIN t3 c ORDER BY 1 ASC NULLS LAST LIMIT 0;
-- case 559
SELECT c.g || '-' AS c0, c.n AS c1, abs(c.k) AS c2 FROM t3 c WHERE c.k NOT IN (SELECT a.k FROM t1 a WHERE a.s NOT LIKE '%an%');
-- case 560 ordered hint=b,c,a
SELECT a.id AS g0, b.s AS g1, max(c.g) AS a0 FROM t2 b INNER JOIN t3 c ON b.k IS NOT DISTINCT FROM c.k AND c.g NOT LIKE 'a%' FULL JOIN t1 a ON a.k = b.k WHERE ((b.y = -0.0 OR a.m <> 0) AND (c.g < 'apple' AND b.d = DATE '1996-01-01')) GROUP BY a.id, b.s HAVING count(*) >= 1 ORDER BY 3 ASC NULLS LAST, 2 ASC NULLS FIRST, 1 ASC NULLS FIRST;
-- case 561
SELECT c.k AS c0, c.g AS c1, length(c.g) AS c2, abs(c.n) AS c3, CASE WHEN c.n < 3 THEN c.k * 2 ELSE 3 END AS c4 FROM t3 c;
-- case 562
SELECT b.s AS g0, b.s AS g1, avg(b.id) AS a0, min(b.y) AS a1 FROM t2 b GROUP BY b.s, b.s;
-- case 563 hint=c,a,b
SELECT replace(c.g, 'a', 'o') AS c0, abs(a.k) AS c1, a.d AS c2, c.n AS c3 FROM t3 c INNER JOIN t1 a ON c.k = a.k JOIN t2 b ON b.k = c.k WHERE a.x < CAST('NaN' AS DOUBLE);
-- case 564 hint=a,b
SELECT avg(b.y) AS a0, count(a.d) AS a1, count(b.y) AS a2 FROM t1 a RIGHT JOIN t2 b ON a.k = b.k AND a.s LIKE '%an%';
-- case 565
SELECT c.n * 2 AS c0, c.n * 2 AS c1, length(c.g) AS c2 FROM t3 c WHERE NOT EXISTS (SELECT 1 FROM t2 b WHERE b.k = c.k AND b.k NOT IN (-4));
-- case 566 ordered
SELECT a.x AS c0, a.id AS c1, CASE WHEN a.x > 1.5 THEN a.k ELSE 5 END AS c2, abs(a.x) AS c3, a.m * 2 AS c4 FROM t1 a ORDER BY 2 ASC NULLS LAST, 3 ASC NULLS LAST, 5 ASC NULLS LAST, 4 ASC NULLS LAST, 1 ASC NULLS FIRST LIMIT 5;
-- case 567 ordered hint=b,a,c
SELECT a.s AS g0, count(DISTINCT c.g) AS a0, avg(b.id) AS a1 FROM t2 b LEFT OUTER JOIN t1 a ON b.k = a.k FULL JOIN t3 c ON c.k = a.k GROUP BY a.s ORDER BY 3 DESC NULLS LAST, 1 DESC NULLS LAST, 2 DESC NULLS LAST LIMIT 0;
-- case 568 ordered hint=b,c,a
SELECT a.m AS c0 FROM t2 b CROSS JOIN t3 c LEFT JOIN t1 a ON a.k = b.k WHERE a.d BETWEEN DATE '1994-01-01' AND DATE '1996-01-01' ORDER BY 1 ASC NULLS FIRST;
-- case 569
SELECT a.k, upper(a.s) FROM t1 a EXCEPT ALL SELECT b.k, b.s FROM t2 b;
-- case 570 hint=a,c
SELECT DISTINCT trim(c.g) AS c0, c.g || '-' AS c1 FROM t1 a CROSS JOIN t3 c WHERE a.s IS NULL;
-- case 571
SELECT count(*) AS n FROM (SELECT a.k, a.d FROM t1 a WHERE (a.s LIKE '%an%' OR a.d BETWEEN DATE '1994-01-01' AND DATE '1996-01-01') UNION ALL SELECT b.k, b.d FROM t2 b WHERE b.y < CAST('NaN' AS DOUBLE)) u;
-- case 572
SELECT count(*) AS n FROM (SELECT b.k, 'apple' FROM t2 b WHERE b.k BETWEEN -4 AND -2 INTERSECT SELECT a.k, a.s FROM t1 a) u;
-- case 573
SELECT b.k AS g0, b.id AS g1, min(b.y) AS a0, sum(b.y) AS a1, avg(b.y) AS a2 FROM t2 b GROUP BY b.k, b.id;
-- case 574 ordered
SELECT c.k AS c0, (SELECT sum(b.id) FROM t2 b WHERE b.k = c.k) AS sq FROM t3 c WHERE length(c.g) > 3 ORDER BY 2 DESC NULLS FIRST, 1 ASC NULLS FIRST LIMIT 0;
-- case 575
SELECT c.k FROM t3 c WHERE c.k IS NULL UNION SELECT b.k FROM t2 b;
-- case 576
SELECT DISTINCT upper(c.g) AS c0, CASE WHEN c.g > '' THEN c.g ELSE 'other' END AS c1, c.k AS c2, c.k * 2 AS c3, replace(c.g, 'a', 'o') AS c4 FROM t3 c;
-- case 577 ordered hint=b,c
SELECT max(b.id) AS a0, max(b.s) AS a1 FROM t2 b RIGHT JOIN t3 c ON b.k = c.k AND b.k BETWEEN -2 AND 2 ORDER BY 2 ASC NULLS FIRST, 1 DESC NULLS FIRST LIMIT 2 OFFSET 3;
-- case 578 ordered
SELECT c.g AS g0, sum(c.n) AS a0, avg(c.k) AS a1, count(c.g) AS a2 FROM t3 c GROUP BY c.g ORDER BY 2 DESC NULLS FIRST, 4 DESC NULLS FIRST, 3 ASC NULLS FIRST, 1 DESC NULLS FIRST LIMIT 6 OFFSET 2;
-- case 579 hint=b,a,c
SELECT trim(a.s) AS c0, abs(a.x) AS c1, c.n + 3 AS c2, a.m AS c3 FROM t2 b INNER JOIN t1 a ON b.k = a.k JOIN t3 c ON c.k = b.k;
-- case 580 hint=c,a
SELECT c.n % 3 AS c0, a.id AS c1, c.n % 3 AS c2, a.k % 3 AS c3 FROM t3 c JOIN t1 a ON c.k IS NOT DISTINCT FROM a.k AND a.s LIKE 'a%' WHERE a.s || '-' >= '';
-- case 581
SELECT a.m AS c0, upper(a.s) AS c1, a.id + 5 AS c2, coalesce(a.x, -1.0) AS c3 FROM t1 a WHERE a.k >= (SELECT min(b.k) FROM t2 b);
-- case 582 hint=c,a
SELECT a.id AS g0, count(a.m) AS a0, count(*) AS a1, count(DISTINCT a.x) AS a2 FROM t3 c LEFT JOIN t1 a ON c.k = a.k AND c.k > 1 GROUP BY a.id;
-- case 583
SELECT sum(a.k) AS a0, max(a.d) AS a1, count(DISTINCT a.s) AS a2 FROM t1 a WHERE (a.k BETWEEN 2 AND 5 OR (a.x <> CAST('NaN' AS DOUBLE) OR a.s > 'apple'));
-- case 584
SELECT min(c.k) AS a0, sum(c.k) AS a1 FROM t3 c;
-- case 585
SELECT substr(c.g, 2, 3) AS c0, (SELECT count(b.k) FROM t2 b) AS sq FROM t3 c WHERE c.n + 0 = 1;
-- case 586 ordered hint=b,c,a
SELECT b.s || '-' AS c0 FROM t2 b LEFT JOIN t3 c ON b.k = c.k RIGHT JOIN t1 a ON a.k = b.k WHERE substr(b.s, 2, 3) < 'kiwi' ORDER BY 1 ASC NULLS FIRST LIMIT 3;
-- case 587 ordered hint=c,a,b
SELECT avg(c.n) AS a0, min(a.s) AS a1, count(DISTINCT b.id) AS a2 FROM t3 c FULL JOIN t1 a ON c.k IS NOT DISTINCT FROM a.k RIGHT JOIN t2 b ON b.k = a.k ORDER BY 3 ASC NULLS FIRST, 1 ASC NULLS FIRST, 2 ASC NULLS FIRST LIMIT 1 OFFSET 3;
-- case 588 ordered
SELECT * FROM (SELECT c.k, c.g FROM t3 c UNION ALL SELECT a.k, a.s FROM t1 a) u ORDER BY 2 ASC NULLS LAST, 1 ASC NULLS LAST LIMIT 6 OFFSET 1;
-- case 589 ordered
SELECT * FROM (SELECT b.k, b.s FROM t2 b UNION ALL SELECT c.k, c.g FROM t3 c) u ORDER BY 2 DESC NULLS FIRST, 1 DESC NULLS LAST LIMIT 2;
-- case 590 ordered hint=c,b,a
SELECT coalesce(c.n, 0) AS c0, a.id AS c1 FROM t3 c JOIN t2 b ON c.k = b.k FULL JOIN t1 a ON a.k = c.k ORDER BY 2 DESC NULLS LAST, 1 DESC NULLS FIRST;
-- case 591
SELECT lower(b.s) AS c0, b.s AS c1, b.s AS c2 FROM t2 b WHERE b.k < (SELECT min(c.k) FROM t3 c);
-- case 592
SELECT a.k, a.d FROM t1 a WHERE a.x <> a.x EXCEPT ALL SELECT b.k, b.d FROM t2 b WHERE NOT (b.s <= 'a%b');
-- case 593 hint=a,b
SELECT b.d AS c0 FROM t1 a JOIN t2 b ON a.k = b.k WHERE CASE WHEN b.id IS NOT NULL THEN b.k ELSE -4 END > -4;
-- case 594 ordered hint=a,c
SELECT DISTINCT a.d AS c0, coalesce(a.s, 'none') AS c1 FROM t1 a LEFT JOIN t3 c ON a.k = c.k AND a.d <> DATE '1996-01-01' WHERE (a.id NOT IN (3, -20) AND a.k <= 0) ORDER BY 2 DESC NULLS LAST, 1 ASC NULLS FIRST LIMIT 3;
-- case 595
SELECT c.k AS c0 FROM t3 c WHERE NOT EXISTS (SELECT 1 FROM t2 b WHERE b.k = c.k AND b.k NOT IN (-20, 5, 3, -20));
-- case 596 ordered
SELECT b.k AS c0, b.id AS c1, b.s AS c2 FROM t2 b WHERE b.k = (SELECT sum(a.k) FROM t1 a) ORDER BY 3 DESC NULLS FIRST, 2 ASC NULLS LAST, 1 ASC NULLS LAST LIMIT 1;
-- case 597 ordered
SELECT max(c.n) AS a0, sum(c.n) AS a1 FROM t3 c WHERE c.k NOT IN (-4, 2, 10, NULL) ORDER BY 2 DESC NULLS FIRST, 1 DESC NULLS LAST LIMIT 5 OFFSET 1;
-- case 598
SELECT c.k FROM t3 c WHERE c.n BETWEEN -2 AND -2 INTERSECT SELECT b.k FROM t2 b WHERE b.s LIKE '%';
-- case 599 hint=c,b,a
SELECT a.m * 2 AS c0 FROM t3 c RIGHT JOIN t2 b ON c.k = b.k JOIN t1 a ON a.k = c.k;
-- case 600 hint=a,c
SELECT coalesce(c.k, -4) AS c0 FROM t1 a JOIN t3 c ON a.k = c.k;
-- case 601 hint=a,c
SELECT max(a.k) AS a0, min(a.x) AS a1 FROM t1 a RIGHT JOIN t3 c ON a.k = c.k AND a.d < DATE '1970-01-01' WHERE abs(c.k) < a.id;
-- case 602
SELECT a.k, 'apple' FROM t1 a WHERE a.k >= 5 INTERSECT ALL SELECT b.k, b.s FROM t2 b;
-- case 603 hint=a,b,c
SELECT a.k AS g0, count(*) AS a0, count(b.d) AS a1 FROM t1 a FULL JOIN t2 b ON a.k = b.k RIGHT JOIN t3 c ON c.k = a.k WHERE b.d = DATE '2000-02-29' GROUP BY a.k HAVING count(*) > 0;
-- case 604
SELECT count(*) AS n FROM (SELECT a.k FROM t1 a WHERE a.x <= 0.0 INTERSECT ALL SELECT a.k FROM t1 a) u;
-- case 605 hint=a,b
SELECT b.k + 10 AS c0 FROM t1 a LEFT JOIN t2 b ON a.k = b.k;
-- case 606
SELECT count(DISTINCT c.g) AS a0, min(c.k) AS a1, count(DISTINCT c.g) AS a2 FROM t3 c;
-- case 607 ordered hint=c,a
SELECT c.g AS g0, max(a.x) AS a0, min(a.s) AS a1 FROM t3 c INNER JOIN t1 a ON c.k = a.k GROUP BY c.g HAVING count(*) = 0 ORDER BY 1 DESC NULLS FIRST, 2 DESC NULLS LAST, 3 ASC NULLS LAST LIMIT 5 OFFSET 2;
-- case 608 ordered
SELECT count(b.y) AS a0, count(*) AS a1, count(b.y) AS a2 FROM t2 b ORDER BY 1 DESC NULLS FIRST, 2 DESC NULLS LAST, 3 ASC NULLS LAST LIMIT 5;
-- case 609
SELECT c.k FROM t3 c EXCEPT SELECT a.k FROM t1 a;
-- case 610
SELECT b.s FROM t2 b UNION ALL SELECT c.g FROM t3 c;
-- case 611
SELECT a.k, a.d FROM t1 a EXCEPT SELECT b.k, b.d FROM t2 b WHERE CASE WHEN b.y >= 0.0 THEN b.id ELSE -4 END = 10;
-- case 612
SELECT b.k FROM t2 b WHERE b.id >= 3 INTERSECT SELECT c.k FROM t3 c;
-- case 613 hint=b,c
SELECT c.n AS g0, count(*) AS a0, avg(b.y) AS a1 FROM t2 b LEFT JOIN t3 c ON b.k IS NOT DISTINCT FROM c.k GROUP BY c.n;
-- case 614
SELECT a.x FROM t1 a WHERE a.s NOT LIKE '%an%' INTERSECT ALL SELECT a.x FROM t1 a WHERE a.k <> a.id;
-- case 615
SELECT b.d AS c0 FROM t2 b WHERE b.k >= (SELECT min(c.k) FROM t3 c);
-- case 616 hint=c,b,a
SELECT count(a.d) AS a0 FROM t3 c LEFT JOIN t2 b ON c.k = b.k LEFT JOIN t1 a ON a.k = b.k WHERE b.y = -0.0;
-- case 617
SELECT c.n AS g0, sum(c.k) AS a0, count(DISTINCT c.g) AS a1, count(*) AS a2 FROM t3 c GROUP BY c.n HAVING count(*) >= 1;
-- case 618
SELECT c.k FROM t3 c WHERE c.n NOT IN (10, -4) EXCEPT ALL SELECT b.k FROM t2 b WHERE (b.s IS NOT NULL OR b.k BETWEEN -3 AND 0);
-- case 619 ordered hint=c,a,b
SELECT DISTINCT abs(c.n) AS c0, b.id AS c1 FROM t3 c CROSS JOIN t1 a JOIN t2 b ON b.k = c.k ORDER BY 2 DESC NULLS FIRST, 1 DESC NULLS LAST;
-- case 620
SELECT b.s AS g0, b.id AS g1, min(b.y) AS a0, count(DISTINCT b.y) AS a1, sum(b.id) AS a2 FROM t2 b WHERE b.id BETWEEN -2 AND -2 GROUP BY b.s, b.id HAVING count(*) > 1;
-- case 621
SELECT b.s AS c0, b.s AS c1 FROM t2 b WHERE b.k = (SELECT min(c.k) FROM t3 c);
-- case 622 hint=c,a
SELECT a.d AS c0, trim(c.g) AS c1 FROM t3 c LEFT OUTER JOIN t1 a ON c.k = a.k WHERE a.m > -0.01;
-- case 623 ordered hint=a,c
SELECT count(a.d) AS a0, max(a.m) AS a1, max(a.x) AS a2 FROM t1 a CROSS JOIN t3 c ORDER BY 3 DESC NULLS FIRST, 2 DESC NULLS FIRST, 1 DESC NULLS FIRST;
-- case 624
SELECT c.g AS g0, c.k AS g1, min(c.g) AS a0, min(c.n) AS a1, count(c.k) AS a2 FROM t3 c WHERE c.g <= 'Apple' GROUP BY c.g, c.k;
-- case 625 ordered hint=b,a
SELECT a.x AS c0 FROM t2 b FULL JOIN t1 a ON b.k = a.k WHERE a.x <= 1.5 ORDER BY 1 ASC NULLS FIRST LIMIT 6;
-- case 626 ordered hint=b,c
SELECT b.d AS c0 FROM t2 b RIGHT JOIN t3 c ON b.k = c.k AND b.d BETWEEN DATE '1994-01-01' AND DATE '2000-02-29' WHERE (b.k IS NULL OR c.n <> -4) ORDER BY 1 ASC NULLS LAST LIMIT 6 OFFSET 3;
-- case 627
SELECT b.k * 2 AS c0 FROM t2 b WHERE b.k = (SELECT min(a.k) FROM t1 a);
-- case 628
SELECT a.s FROM t1 a WHERE a.k IN (-4, -20, 5) UNION ALL SELECT 'apple' FROM t2 b;
-- case 629 hint=c,b,a
SELECT length(b.s) AS c0, c.k * 2 AS c1 FROM t3 c JOIN t2 b ON c.k = b.k AND b.id NOT IN (-20) RIGHT JOIN t1 a ON a.k = c.k WHERE a.x >= CAST('NaN' AS DOUBLE);
-- case 630 hint=b,c
SELECT CASE WHEN b.y <= -0.0 THEN c.g ELSE 'other' END AS c0, b.y AS c1 FROM t2 b FULL JOIN t3 c ON b.k = c.k;
-- case 631
SELECT a.k, upper(a.s) FROM t1 a EXCEPT ALL SELECT c.k, upper(c.g) FROM t3 c;
-- case 632 ordered
SELECT * FROM (SELECT b.y FROM t2 b UNION SELECT a.x FROM t1 a WHERE (a.x = -0.0 OR a.s >= '')) u ORDER BY 1 ASC NULLS FIRST LIMIT 5;
-- case 633 ordered
SELECT b.s AS c0, b.s AS c1 FROM t2 b WHERE b.k NOT IN (SELECT c.k FROM t3 c) ORDER BY 1 DESC NULLS LAST, 2 DESC NULLS FIRST;
-- case 634 hint=c,a
SELECT DISTINCT a.m AS c0, c.g AS c1, a.d AS c2, CASE WHEN a.id BETWEEN 2 AND 2 THEN length(c.g) ELSE 3 END AS c3 FROM t3 c LEFT JOIN t1 a ON c.k = a.k WHERE NOT (a.x < -1.5);
-- case 635
SELECT b.k, b.d FROM t2 b INTERSECT ALL SELECT b.k, b.d FROM t2 b WHERE b.id IS NULL;
-- case 636
SELECT b.k FROM t2 b UNION SELECT c.k FROM t3 c;
-- case 637 ordered
SELECT coalesce(a.k, 3) AS c0 FROM t1 a WHERE a.k = (SELECT sum(b.k) FROM t2 b) ORDER BY 1 ASC NULLS LAST LIMIT 5;
-- case 638
SELECT a.d AS c0, a.d AS c1 FROM t1 a WHERE a.id > 0;
-- case 639
SELECT a.k FROM t1 a WHERE a.x >= a.x UNION SELECT a.k FROM t1 a;
-- case 640
SELECT a.s FROM t1 a WHERE length(a.s) >= a.id EXCEPT ALL SELECT upper(a.s) FROM t1 a;
-- case 641 hint=a,b
SELECT b.s AS c0, a.k * 2 AS c1, b.d AS c2 FROM t1 a FULL JOIN t2 b ON a.k = b.k;
-- case 642
SELECT b.k, b.d FROM t2 b WHERE b.s NOT LIKE '%an%' UNION ALL SELECT b.k, b.d FROM t2 b;
-- case 643
SELECT c.k, upper(c.g) FROM t3 c UNION ALL SELECT b.k, upper(b.s) FROM t2 b WHERE (b.id = 5 OR b.s >= 'banana');
-- case 644
SELECT CASE WHEN b.s = 'a%b' THEN b.s ELSE 'other' END AS c0, (SELECT max(c.k) FROM t3 c WHERE c.k = b.k) AS sq FROM t2 b WHERE upper(b.s) >= 'a%b';
-- case 645 hint=c,a
SELECT abs(a.id) AS c0, a.d AS c1, CASE WHEN (a.d = DATE '1994-01-01' AND a.k <> -20) THEN a.s ELSE 'other' END AS c2, abs(a.x) AS c3 FROM t3 c CROSS JOIN t1 a;
-- case 646 hint=a,c
SELECT a.d AS c0, c.g AS c1 FROM t1 a LEFT OUTER JOIN t3 c ON a.k = c.k WHERE c.k BETWEEN -4 AND -3;
-- case 647 ordered
SELECT * FROM (SELECT c.k FROM t3 c EXCEPT SELECT a.k FROM t1 a) u ORDER BY 1 DESC NULLS FIRST;
-- case 648 ordered
SELECT c.k AS c0, abs(c.k) AS c1, c.g || '-' AS c2, c.k + 1 AS c3, (SELECT count(b.k) FROM t2 b) AS sq FROM t3 c WHERE c.k >= c.k ORDER BY 4 ASC NULLS LAST, 2 DESC NULLS LAST, 3 ASC NULLS LAST, 1 DESC NULLS FIRST, 5 DESC NULLS FIRST LIMIT 1;
-- case 649 ordered hint=c,a,b
SELECT a.m AS c0 FROM t3 c LEFT OUTER JOIN t1 a ON c.k IS NOT DISTINCT FROM a.k AND a.m <= 0 FULL JOIN t2 b ON b.k = c.k ORDER BY 1 ASC NULLS FIRST LIMIT 5 OFFSET 3;
-- case 650
SELECT c.g AS g0, c.k AS g1, count(*) AS a0, count(DISTINCT c.n) AS a1 FROM t3 c WHERE NOT (c.n BETWEEN 0 AND 0) GROUP BY c.g, c.k HAVING count(*) > 0;
-- case 651 ordered
SELECT * FROM (SELECT a.k, upper(a.s) FROM t1 a WHERE a.k % 3 = -20 INTERSECT SELECT b.k, b.s FROM t2 b) u ORDER BY 1 ASC NULLS FIRST, 2 DESC NULLS FIRST LIMIT 2 OFFSET 2;
-- case 652 ordered
SELECT b.s AS c0, CASE WHEN b.id IN (-4, -20, 10) THEN b.id + -4 ELSE 2 END AS c1, b.y AS c2, b.k AS c3, b.s AS c4 FROM t2 b WHERE abs(b.k) = 5 ORDER BY 1 ASC NULLS LAST, 5 ASC NULLS FIRST, 2 DESC NULLS LAST, 3 DESC NULLS LAST, 4 ASC NULLS FIRST;
-- case 653
SELECT b.d AS c0, b.y * 2.0 AS c1, (SELECT max(c.n) FROM t3 c WHERE c.k = b.k) AS sq FROM t2 b WHERE b.y < CAST('NaN' AS DOUBLE);
-- case 654 hint=c,b
SELECT DISTINCT c.g AS c0 FROM t3 c CROSS JOIN t2 b WHERE b.id > b.id;
-- case 655 ordered hint=c,a,b
SELECT replace(c.g, 'a', 'o') AS c0, b.id AS c1, b.k AS c2 FROM t3 c LEFT OUTER JOIN t1 a ON c.k = a.k RIGHT JOIN t2 b ON b.k = c.k ORDER BY 1 DESC NULLS LAST, 2 DESC NULLS LAST, 3 ASC NULLS LAST LIMIT 0;
-- case 656
SELECT a.id AS c0, a.s || '-' AS c1, a.s AS c2, a.id AS c3 FROM t1 a WHERE a.id IS NULL;
-- case 657 hint=b,a
SELECT b.k AS g0, sum(a.k) AS a0, count(*) AS a1, count(DISTINCT a.s) AS a2 FROM t2 b INNER JOIN t1 a ON b.k = a.k WHERE b.k IS NOT NULL GROUP BY b.k;
-- case 658
SELECT avg(b.y) AS a0 FROM t2 b;
-- case 659 ordered
SELECT b.k AS c0, b.id AS c1 FROM t2 b WHERE b.k NOT IN (SELECT c.k FROM t3 c WHERE c.g NOT LIKE '%') ORDER BY 2 DESC NULLS LAST, 1 ASC NULLS FIRST LIMIT 5 OFFSET 3;
-- case 660 hint=a,b
SELECT a.s AS g0, b.s AS g1, sum(b.y) AS a0 FROM t1 a JOIN t2 b ON a.k = b.k AND b.s LIKE '%' GROUP BY a.s, b.s HAVING count(*) >= 0;
-- case 661
SELECT b.y AS c0, (SELECT max(c.k) FROM t3 c WHERE c.k = b.k) AS sq FROM t2 b WHERE b.k BETWEEN 3 AND 5;
-- case 662 ordered
SELECT * FROM (SELECT a.k FROM t1 a INTERSECT ALL SELECT a.k FROM t1 a) u ORDER BY 1 DESC NULLS LAST LIMIT 4;
-- case 663 ordered
SELECT c.g AS g0, min(c.k) AS a0, count(*) AS a1, count(DISTINCT c.n) AS a2 FROM t3 c GROUP BY c.g HAVING count(*) >= 2 ORDER BY 3 ASC NULLS FIRST, 1 ASC NULLS FIRST, 4 ASC NULLS LAST, 2 ASC NULLS LAST;
-- case 664 hint=c,b
SELECT DISTINCT upper(c.g) AS c0 FROM t3 c LEFT OUTER JOIN t2 b ON c.k = b.k;
-- case 665
SELECT b.d AS c0 FROM t2 b WHERE b.y >= -1.5;
-- case 666 hint=b,a
SELECT sum(a.m) AS a0 FROM t2 b FULL JOIN t1 a ON b.k = a.k WHERE b.s IS NOT NULL;
-- case 667
SELECT b.s AS c0, b.k + -20 AS c1, b.k AS c2 FROM t2 b WHERE b.k IN (SELECT a.k FROM t1 a WHERE a.x >= 1.5);
-- case 668 ordered
SELECT * FROM (SELECT 'apple' FROM t3 c WHERE length(c.g) <> -4 INTERSECT SELECT 'apple' FROM t3 c) u ORDER BY 1 DESC NULLS FIRST LIMIT 4 OFFSET 1;
-- case 669 hint=b,a,c
SELECT c.k % 3 AS c0 FROM t2 b LEFT OUTER JOIN t1 a ON b.k IS NOT DISTINCT FROM a.k AND a.x >= 1.5 LEFT JOIN t3 c ON c.k = a.k;
-- case 670
SELECT b.k, 'apple' FROM t2 b WHERE NOT (b.s IS NULL) UNION SELECT a.k, a.s FROM t1 a;
-- case 671 hint=b,a,c
SELECT a.id AS g0, max(b.s) AS a0 FROM t2 b INNER JOIN t1 a ON b.k = a.k LEFT JOIN t3 c ON c.k = a.k WHERE b.s NOT LIKE 'a%' GROUP BY a.id;
-- case 672 ordered hint=b,c,a
SELECT a.d AS c0, abs(b.y) AS c1 FROM t2 b JOIN t3 c ON b.k = c.k LEFT JOIN t1 a ON a.k = b.k ORDER BY 1 DESC NULLS FIRST, 2 ASC NULLS FIRST LIMIT 0 OFFSET 1;
-- case 673 hint=a,c,b
SELECT b.s AS g0, a.s AS g1, count(*) AS a0, max(b.s) AS a1, sum(b.k) AS a2 FROM t1 a INNER JOIN t3 c ON a.k = c.k LEFT JOIN t2 b ON b.k = a.k WHERE a.s LIKE '_pple' GROUP BY b.s, a.s HAVING count(*) > 0;
-- case 674
SELECT a.x FROM t1 a EXCEPT SELECT b.y FROM t2 b WHERE b.s NOT LIKE 'a%';
-- case 675
SELECT sum(b.y) AS a0, min(b.d) AS a1 FROM t2 b;
-- case 676 hint=c,b,a
SELECT a.m AS c0, coalesce(b.y, -1.0) AS c1 FROM t3 c LEFT JOIN t2 b ON c.k = b.k AND c.n IS NOT NULL RIGHT JOIN t1 a ON a.k = b.k;
-- case 677 ordered
SELECT c.n AS c0, c.n AS c1 FROM t3 c WHERE c.k = (SELECT sum(b.k) FROM t2 b) ORDER BY 2 DESC NULLS FIRST, 1 ASC NULLS LAST LIMIT 5 OFFSET 1;
-- case 678
SELECT coalesce(c.k, 5) AS c0, coalesce(c.n, -4) AS c1, abs(c.k) AS c2, (SELECT max(b.k) FROM t2 b) AS sq FROM t3 c WHERE c.n BETWEEN -2 AND -2;
-- case 679 hint=c,b,a
SELECT count(b.s) AS a0, max(a.m) AS a1, min(a.s) AS a2 FROM t3 c JOIN t2 b ON c.k = b.k FULL JOIN t1 a ON a.k = c.k;
-- case 680
SELECT count(*) AS n FROM (SELECT a.k, a.d FROM t1 a WHERE a.s LIKE '%' EXCEPT ALL SELECT a.k, a.d FROM t1 a) u;
-- case 681
SELECT a.d AS c0, CASE WHEN a.s <= 'banana' THEN a.s ELSE 'other' END AS c1 FROM t1 a WHERE a.k BETWEEN -3 AND 1;
-- case 682 hint=c,a
SELECT a.k AS g0, c.n AS g1, count(DISTINCT a.k) AS a0, count(DISTINCT a.d) AS a1 FROM t3 c LEFT OUTER JOIN t1 a ON c.k IS NOT DISTINCT FROM a.k AND a.k <> -20 WHERE NOT (c.k <= 5) GROUP BY a.k, c.n;
-- case 683
SELECT a.k FROM t1 a EXCEPT SELECT c.k FROM t3 c WHERE c.k < 5;
-- case 684 hint=c,b
SELECT min(b.s) AS a0, count(DISTINCT b.s) AS a1 FROM t3 c JOIN t2 b ON c.k IS NOT DISTINCT FROM b.k;
-- case 685 hint=a,c
SELECT c.g AS g0, c.k AS g1, max(a.m) AS a0, count(*) AS a1 FROM t1 a RIGHT JOIN t3 c ON a.k = c.k GROUP BY c.g, c.k HAVING count(*) = 1;
-- case 686
SELECT c.g AS c0, (SELECT min(a.id) FROM t1 a WHERE a.k = c.k) AS sq FROM t3 c WHERE c.k NOT IN (2, 3, -4, 2);
-- case 687 ordered hint=b,a
SELECT b.k AS g0, b.k AS g1, count(*) AS a0, count(a.m) AS a1 FROM t2 b RIGHT JOIN t1 a ON b.k IS NOT DISTINCT FROM a.k AND b.id BETWEEN 0 AND 3 GROUP BY b.k, b.k ORDER BY 3 ASC NULLS FIRST, 1 ASC NULLS LAST, 2 ASC NULLS FIRST, 4 DESC NULLS LAST LIMIT 4;
-- case 688
SELECT c.g FROM t3 c WHERE c.n IS NULL EXCEPT ALL SELECT upper(b.s) FROM t2 b;
-- case 689
SELECT count(DISTINCT a.k) AS a0, max(a.id) AS a1, avg(a.x) AS a2 FROM t1 a WHERE (a.k IN (-20, 2, 5) AND a.s IS NULL);
-- case 690
SELECT replace(c.g, 'a', 'o') AS c0 FROM t3 c WHERE c.k NOT IN (SELECT a.k FROM t1 a);
-- case 691 hint=a,b
SELECT a.k AS c0 FROM t1 a JOIN t2 b ON a.k = b.k AND b.k = -20 WHERE a.d < DATE '1995-03-15';
-- case 692 ordered
SELECT * FROM (SELECT b.k FROM t2 b EXCEPT ALL SELECT a.k FROM t1 a) u ORDER BY 1 DESC NULLS LAST;
-- case 693 ordered
SELECT * FROM (SELECT b.y FROM t2 b WHERE b.id BETWEEN -3 AND 0 UNION SELECT b.y FROM t2 b WHERE b.y > -0.0) u ORDER BY 1 DESC NULLS LAST LIMIT 6;
-- case 694 ordered
SELECT c.k * 2 AS c0 FROM t3 c WHERE c.k < (SELECT max(b.k) FROM t2 b) ORDER BY 1 DESC NULLS FIRST LIMIT 1;
-- case 695 hint=c,b
SELECT coalesce(b.id, 1) AS c0 FROM t3 c JOIN t2 b ON c.k = b.k WHERE length(b.s) <= b.k;
-- case 696 ordered hint=b,c
SELECT min(c.k) AS a0, avg(b.k) AS a1 FROM t2 b CROSS JOIN t3 c ORDER BY 2 DESC NULLS FIRST, 1 DESC NULLS LAST LIMIT 0;
-- case 697
SELECT c.k AS g0, count(c.g) AS a0, max(c.g) AS a1, max(c.k) AS a2 FROM t3 c GROUP BY c.k;
-- case 698 hint=b,a
SELECT abs(b.y) AS c0, a.m * 2 AS c1, a.m * 2 AS c2, b.d AS c3 FROM t2 b CROSS JOIN t1 a;
-- case 699 hint=a,c
SELECT c.g AS c0, c.g AS c1 FROM t1 a INNER JOIN t3 c ON a.k = c.k WHERE c.k >= a.k;
-- case 700 ordered hint=b,c,a
SELECT c.n AS c0 FROM t2 b FULL JOIN t3 c ON b.k IS NOT DISTINCT FROM c.k LEFT JOIN t1 a ON a.k = b.k WHERE b.s NOT LIKE '%' ORDER BY 1 ASC NULLS LAST;
-- case 701 ordered
SELECT count(*) AS a0 FROM t3 c ORDER BY 1 DESC NULLS LAST;
-- case 702
SELECT c.n + -20 AS c0, coalesce(c.k, -4) AS c1, c.g || '-' AS c2, (SELECT sum(b.k) FROM t2 b WHERE b.k = c.k) AS sq FROM t3 c WHERE c.k >= c.n;
-- case 703 ordered hint=a,c
SELECT max(a.k) AS a0 FROM t1 a LEFT JOIN t3 c ON a.k = c.k ORDER BY 1 ASC NULLS LAST LIMIT 6 OFFSET 2;
-- case 704 hint=a,c,b
SELECT count(*) AS a0, max(b.k) AS a1 FROM t1 a LEFT JOIN t3 c ON a.k IS NOT DISTINCT FROM c.k LEFT JOIN t2 b ON b.k = a.k;
-- case 705
SELECT coalesce(b.y, -1.0) AS c0 FROM t2 b WHERE EXISTS (SELECT 1 FROM t1 a WHERE a.k = b.k);
-- case 706 hint=a,b
SELECT a.m AS c0, coalesce(a.id, -20) AS c1 FROM t1 a RIGHT JOIN t2 b ON a.k = b.k AND b.k NOT IN (2, -20, 5, -4);
-- case 707
SELECT count(*) AS n FROM (SELECT c.k FROM t3 c WHERE c.g NOT LIKE '%an%' EXCEPT ALL SELECT a.k FROM t1 a) u;
-- case 708 ordered
SELECT avg(b.k) AS a0, count(*) AS a1 FROM t2 b ORDER BY 1 ASC NULLS FIRST, 2 DESC NULLS FIRST LIMIT 5;
-- case 709 ordered hint=b,c
SELECT abs(c.k) AS c0, b.y AS c1, c.n AS c2 FROM t2 b LEFT JOIN t3 c ON b.k = c.k WHERE ((c.k IN (-4) AND b.k > 1) AND b.id <> 0) ORDER BY 1 ASC NULLS FIRST, 3 DESC NULLS FIRST, 2 DESC NULLS FIRST LIMIT 5;
-- case 710 ordered
SELECT count(c.g) AS a0 FROM t3 c ORDER BY 1 ASC NULLS LAST LIMIT 3;
-- case 711
SELECT a.k, upper(a.s) FROM t1 a INTERSECT SELECT c.k, upper(c.g) FROM t3 c;
-- case 712
SELECT a.k AS g0, a.k AS g1, count(DISTINCT a.m) AS a0, max(a.s) AS a1 FROM t1 a GROUP BY a.k, a.k HAVING count(*) > 1;
-- case 713 ordered
SELECT a.x AS c0 FROM t1 a WHERE NOT EXISTS (SELECT 1 FROM t3 c WHERE c.k = a.k) ORDER BY 1 DESC NULLS LAST LIMIT 1;
-- case 714 hint=a,c
SELECT DISTINCT a.d AS c0 FROM t1 a LEFT JOIN t3 c ON a.k = c.k WHERE a.x <> CAST('NaN' AS DOUBLE);
-- case 715 ordered
SELECT c.n + 2 AS c0, c.k AS c1, (SELECT max(a.k) FROM t1 a) AS sq FROM t3 c WHERE c.k IS NULL ORDER BY 3 ASC NULLS FIRST, 1 DESC NULLS FIRST, 2 ASC NULLS FIRST;
-- case 716 hint=c,a
SELECT a.m * 2 AS c0, a.m * 2 AS c1, a.m AS c2 FROM t3 c LEFT JOIN t1 a ON c.k = a.k;
-- case 717 hint=c,a
SELECT a.d AS c0, CASE WHEN a.id IS NULL THEN c.n * 2 ELSE 10 END AS c1 FROM t3 c CROSS JOIN t1 a WHERE c.g IS NULL;
-- case 718 hint=b,a
SELECT a.s AS g0, a.s AS g1, min(a.m) AS a0, avg(b.y) AS a1 FROM t2 b JOIN t1 a ON b.k IS NOT DISTINCT FROM a.k GROUP BY a.s, a.s HAVING count(*) > 0;
-- case 719 ordered hint=b,c,a
SELECT a.m AS c0, b.s AS c1 FROM t2 b JOIN t3 c ON b.k IS NOT DISTINCT FROM c.k AND c.g > 'kiwi' RIGHT JOIN t1 a ON a.k = b.k WHERE b.id + 0 >= a.id ORDER BY 1 ASC NULLS FIRST, 2 ASC NULLS LAST LIMIT 4;
-- case 720
SELECT count(*) AS a0 FROM t2 b WHERE coalesce(b.id, 3) < b.id;
-- case 721
SELECT a.k + 10 AS c0 FROM t1 a WHERE a.k = (SELECT max(b.k) FROM t2 b);
-- case 722 hint=c,a
SELECT trim(a.s) AS c0, a.k AS c1 FROM t3 c RIGHT JOIN t1 a ON c.k = a.k WHERE a.id BETWEEN -4 AND 1;
-- case 723
SELECT c.k, 'apple' FROM t3 c WHERE c.k + 1 <> c.n INTERSECT ALL SELECT b.k, upper(b.s) FROM t2 b WHERE b.y <= CAST('NaN' AS DOUBLE);
-- case 724 hint=b,c
SELECT DISTINCT b.k + 5 AS c0, b.k AS c1, trim(c.g) AS c2 FROM t2 b LEFT OUTER JOIN t3 c ON b.k = c.k;
-- case 725
SELECT c.k FROM t3 c UNION ALL SELECT a.k FROM t1 a;
-- case 726 hint=a,c
SELECT a.d AS c0, a.m * 2 AS c1, a.s AS c2 FROM t1 a LEFT JOIN t3 c ON a.k = c.k;
-- case 727
SELECT a.m * 2 AS c0, a.x AS c1 FROM t1 a WHERE a.k = (SELECT sum(b.k) FROM t2 b);
-- case 728 ordered hint=c,b
SELECT lower(c.g) AS c0, substr(c.g, 2, 3) AS c1, b.s AS c2 FROM t3 c JOIN t2 b ON c.k IS NOT DISTINCT FROM b.k ORDER BY 1 ASC NULLS LAST, 2 ASC NULLS FIRST, 3 ASC NULLS LAST LIMIT 3 OFFSET 3;
-- case 729 hint=c,b
SELECT DISTINCT b.id + 2 AS c0, b.y AS c1, coalesce(c.k, -4) AS c2 FROM t3 c INNER JOIN t2 b ON c.k = b.k AND c.g IS NOT NULL;
-- case 730 hint=b,a,c
SELECT avg(a.x) AS a0, sum(a.x) AS a1, count(*) AS a2 FROM t2 b INNER JOIN t1 a ON b.k = a.k AND b.y <> 0.0 FULL JOIN t3 c ON c.k = b.k WHERE c.n BETWEEN -1 AND 2;
-- case 731
SELECT b.y FROM t2 b WHERE upper(b.s) = 'banana' EXCEPT SELECT a.x FROM t1 a WHERE a.id >= 3;
-- case 732 ordered hint=b,c
SELECT c.g AS g0, min(b.s) AS a0 FROM t2 b JOIN t3 c ON b.k = c.k GROUP BY c.g ORDER BY 1 DESC NULLS LAST, 2 DESC NULLS LAST;
-- case 733
SELECT c.g FROM t3 c INTERSECT SELECT upper(b.s) FROM t2 b WHERE (b.s = 'apple' OR b.id BETWEEN 0 AND 5);
-- case 734 ordered hint=b,a
SELECT coalesce(a.id, 5) AS c0, b.s AS c1, a.x * 2.0 AS c2 FROM t2 b JOIN t1 a ON b.k = a.k AND a.k IN (10, -20, 2, -4) WHERE a.s NOT LIKE '%an%' ORDER BY 2 ASC NULLS LAST, 1 ASC NULLS FIRST, 3 DESC NULLS LAST LIMIT 4;
-- case 735
SELECT CASE WHEN b.y = b.y THEN b.s ELSE 'other' END AS c0, b.k AS c1, coalesce(b.id, 5) AS c2, b.k AS c3, (SELECT count(a.k) FROM t1 a) AS sq FROM t2 b WHERE b.y <> 0.0;
-- case 736 ordered hint=a,b,c
SELECT a.s AS c0, coalesce(b.y, -1.0) AS c1, abs(a.x) AS c2 FROM t1 a LEFT OUTER JOIN t2 b ON a.k = b.k FULL JOIN t3 c ON c.k = a.k WHERE b.y < -0.0 ORDER BY 2 DESC NULLS LAST, 1 ASC NULLS LAST, 3 DESC NULLS LAST LIMIT 0;
-- case 737
SELECT sum(b.y) AS a0 FROM t2 b WHERE coalesce(b.k, -20) >= b.id;
-- case 738
SELECT a.d AS c0, a.m AS c1 FROM t1 a WHERE a.k >= (SELECT max(b.k) FROM t2 b);
-- case 739
SELECT count(*) AS n FROM (SELECT c.g FROM t3 c EXCEPT SELECT b.s FROM t2 b) u;
-- case 740
SELECT a.d AS c0, coalesce(a.x, -1.0) AS c1, a.x AS c2 FROM t1 a WHERE a.k >= (SELECT max(c.k) FROM t3 c);
-- case 741
SELECT c.k FROM t3 c INTERSECT ALL SELECT a.k FROM t1 a;
-- case 742 hint=c,a,b
SELECT a.s AS g0, b.s AS g1, count(b.d) AS a0, max(b.d) AS a1 FROM t3 c FULL JOIN t1 a ON c.k = a.k RIGHT JOIN t2 b ON b.k = c.k GROUP BY a.s, b.s;
-- case 743
SELECT b.s AS g0, count(DISTINCT b.id) AS a0, avg(b.id) AS a1 FROM t2 b GROUP BY b.s;
-- case 744 ordered hint=a,b,c
SELECT DISTINCT coalesce(c.g, 'none') AS c0, CASE WHEN NOT (a.id >= 5) THEN a.s ELSE 'other' END AS c1 FROM t1 a CROSS JOIN t2 b RIGHT JOIN t3 c ON c.k = b.k WHERE a.id <> b.id ORDER BY 1 DESC NULLS FIRST, 2 ASC NULLS FIRST LIMIT 0;
-- case 745
SELECT a.x AS c0, substr(a.s, 2, 3) AS c1, a.s || '-' AS c2, (SELECT max(c.k) FROM t3 c) AS sq FROM t1 a WHERE NOT (a.s NOT LIKE '%');
-- case 746 hint=c,a,b
SELECT count(DISTINCT a.x) AS a0, count(a.k) AS a1, count(*) AS a2 FROM t3 c LEFT OUTER JOIN t1 a ON c.k = a.k AND a.s IS NOT NULL FULL JOIN t2 b ON b.k = a.k WHERE a.k IN (2, 0);
-- case 747 ordered
SELECT coalesce(c.n, 2) AS c0, lower(c.g) AS c1 FROM t3 c ORDER BY 2 ASC NULLS LAST, 1 DESC NULLS FIRST LIMIT 2 OFFSET 3;
-- case 748 hint=c,b
SELECT c.g AS g0, count(*) AS a0 FROM t3 c LEFT JOIN t2 b ON c.k = b.k AND b.s NOT LIKE '%an%' GROUP BY c.g;
-- case 749 ordered
SELECT upper(c.g) AS c0, c.k AS c1, (SELECT max(b.k) FROM t2 b) AS sq FROM t3 c WHERE c.n + -20 >= c.n ORDER BY 2 ASC NULLS LAST, 3 DESC NULLS LAST, 1 DESC NULLS FIRST LIMIT 3;
-- case 750 hint=b,a
SELECT a.m * 2 AS c0, a.m * 2 AS c1, a.id AS c2, b.d AS c3 FROM t2 b CROSS JOIN t1 a WHERE b.y = 1.5;
-- case 751 hint=b,a
SELECT coalesce(b.id, -20) AS c0, b.d AS c1 FROM t2 b FULL JOIN t1 a ON b.k IS NOT DISTINCT FROM a.k;
-- case 752 ordered
SELECT abs(a.x) AS c0, (SELECT count(b.k) FROM t2 b) AS sq FROM t1 a WHERE a.x = a.x ORDER BY 1 ASC NULLS LAST, 2 ASC NULLS LAST;
-- case 753 hint=b,c
SELECT c.k + 2 AS c0, b.y AS c1, b.k * 2 AS c2, b.id AS c3 FROM t2 b JOIN t3 c ON b.k = c.k;
-- case 754 hint=c,a
SELECT count(*) AS a0, sum(c.k) AS a1, count(*) AS a2 FROM t3 c JOIN t1 a ON c.k = a.k;
-- case 755 ordered hint=a,c,b
SELECT c.k AS c0, b.d AS c1, a.k * 2 AS c2, b.d AS c3 FROM t1 a LEFT JOIN t3 c ON a.k = c.k FULL JOIN t2 b ON b.k = a.k WHERE NOT (a.id BETWEEN -4 AND 1) ORDER BY 2 ASC NULLS FIRST, 1 ASC NULLS LAST, 3 ASC NULLS FIRST, 4 DESC NULLS LAST;
-- case 756 ordered
SELECT CASE WHEN c.g LIKE '%' THEN c.g ELSE 'other' END AS c0, c.n AS c1 FROM t3 c WHERE c.k < (SELECT min(b.k) FROM t2 b) ORDER BY 2 ASC NULLS LAST, 1 DESC NULLS LAST LIMIT 0;
-- case 757 ordered
SELECT b.d AS c0, abs(b.y) AS c1, b.s AS c2, b.k AS c3 FROM t2 b WHERE b.id BETWEEN 0 AND 2 ORDER BY 3 DESC NULLS FIRST, 1 DESC NULLS FIRST, 2 ASC NULLS FIRST, 4 DESC NULLS LAST LIMIT 1;
-- case 758
SELECT c.g FROM t3 c EXCEPT SELECT a.s FROM t1 a WHERE a.id BETWEEN -2 AND 2;
-- case 759 ordered hint=c,a
SELECT a.k AS g0, count(a.d) AS a0, sum(a.m) AS a1, sum(a.m) AS a2 FROM t3 c CROSS JOIN t1 a WHERE c.n > 0 GROUP BY a.k ORDER BY 1 ASC NULLS FIRST, 3 DESC NULLS FIRST, 2 ASC NULLS FIRST, 4 ASC NULLS LAST LIMIT 6;
-- case 760
SELECT c.g FROM t3 c UNION SELECT 'apple' FROM t3 c;
-- case 761 hint=a,b
SELECT min(a.d) AS a0, avg(a.m) AS a1 FROM t1 a RIGHT JOIN t2 b ON a.k = b.k;
-- case 762
SELECT b.d AS c0, (SELECT count(a.k) FROM t1 a) AS sq FROM t2 b WHERE b.s LIKE 'a%';
-- case 763
SELECT count(*) AS n FROM (SELECT a.k, upper(a.s) FROM t1 a EXCEPT ALL SELECT b.k, 'apple' FROM t2 b) u;
-- case 764 hint=b,a,c
SELECT a.k AS g0, b.s AS g1, count(*) AS a0, count(*) AS a1 FROM t2 b FULL JOIN t1 a ON b.k = a.k AND b.id BETWEEN -2 AND 3 RIGHT JOIN t3 c ON c.k = b.k WHERE c.n <= a.k GROUP BY a.k, b.s;
-- case 765 ordered
SELECT a.id AS g0, a.k AS g1, min(a.s) AS a0, max(a.m) AS a1, count(*) AS a2 FROM t1 a WHERE a.m <> 1.5 GROUP BY a.id, a.k ORDER BY 4 ASC NULLS LAST, 2 DESC NULLS FIRST, 5 ASC NULLS FIRST, 3 DESC NULLS LAST, 1 DESC NULLS FIRST LIMIT 4 OFFSET 1;
-- case 766 ordered
SELECT * FROM (SELECT c.g FROM t3 c WHERE CASE WHEN c.k IN (-20) THEN c.n ELSE 1 END >= 2 INTERSECT ALL SELECT upper(c.g) FROM t3 c) u ORDER BY 1 DESC NULLS FIRST LIMIT 2;
-- case 767
SELECT a.k % 3 AS c0, a.d AS c1, CASE WHEN a.id BETWEEN -4 AND -2 THEN a.k + 3 ELSE 2 END AS c2, a.k AS c3 FROM t1 a WHERE a.k NOT IN (SELECT c.k FROM t3 c WHERE c.g NOT LIKE '_pple');
-- case 768 hint=c,b,a
SELECT DISTINCT c.g AS c0, b.y * 2.0 AS c1, c.n * 2 AS c2 FROM t3 c CROSS JOIN t2 b LEFT JOIN t1 a ON a.k = b.k;
-- case 769 hint=c,b
SELECT c.g AS g0, avg(b.id) AS a0 FROM t3 c LEFT OUTER JOIN t2 b ON c.k = b.k WHERE (c.g < 'kiwi' AND NOT (b.y <= -0.0)) GROUP BY c.g;
-- case 770
SELECT count(*) AS n FROM (SELECT b.s FROM t2 b EXCEPT SELECT upper(a.s) FROM t1 a) u;
-- case 771
SELECT count(*) AS n FROM (SELECT a.k, a.s FROM t1 a WHERE a.id = -20 UNION ALL SELECT b.k, upper(b.s) FROM t2 b WHERE b.k NOT IN (-4, 5, 2, -20)) u;
-- case 772
SELECT b.s AS g0, b.k AS g1, avg(b.id) AS a0, sum(b.y) AS a1 FROM t2 b GROUP BY b.s, b.k;
-- case 773 ordered hint=a,b
SELECT lower(b.s) AS c0 FROM t1 a FULL JOIN t2 b ON a.k = b.k AND a.k < 0 WHERE CASE WHEN b.y <> 0.0 THEN a.k ELSE 10 END >= 3 ORDER BY 1 DESC NULLS LAST LIMIT 6;
-- case 774 hint=b,c
SELECT b.id AS g0, c.k AS g1, avg(b.y) AS a0, min(b.y) AS a1 FROM t2 b RIGHT JOIN t3 c ON b.k = c.k GROUP BY b.id, c.k;
-- case 775
SELECT upper(a.s) FROM t1 a WHERE CASE WHEN a.k = 3 THEN a.id ELSE -4 END <> a.id EXCEPT ALL SELECT upper(a.s) FROM t1 a WHERE a.m <= 0;
-- case 776
SELECT a.s FROM t1 a WHERE a.s LIKE 'a%' EXCEPT SELECT c.g FROM t3 c;
-- case 777 ordered hint=c,a,b
SELECT abs(a.x) AS c0, b.k + 0 AS c1, abs(a.k) AS c2 FROM t3 c JOIN t1 a ON c.k IS NOT DISTINCT FROM a.k JOIN t2 b ON b.k = a.k ORDER BY 3 ASC NULLS LAST, 2 DESC NULLS FIRST, 1 DESC NULLS LAST;
-- case 778 hint=b,c
SELECT b.id AS c0, c.k AS c1, b.k AS c2 FROM t2 b CROSS JOIN t3 c WHERE b.k BETWEEN 3 AND 7;
-- case 779 ordered
SELECT b.id AS c0 FROM t2 b ORDER BY 1 DESC NULLS LAST LIMIT 5 OFFSET 2;
-- case 780 ordered
SELECT coalesce(a.id, 3) AS c0, a.id AS c1, (SELECT min(c.n) FROM t3 c WHERE c.k = a.k) AS sq FROM t1 a WHERE a.id BETWEEN 2 AND 4 ORDER BY 2 ASC NULLS FIRST, 3 ASC NULLS LAST, 1 ASC NULLS FIRST;
-- case 781
SELECT c.k, c.g FROM t3 c INTERSECT ALL SELECT a.k, upper(a.s) FROM t1 a;
-- case 782 hint=a,b
SELECT b.id AS g0, max(b.d) AS a0, count(*) AS a1 FROM t1 a INNER JOIN t2 b ON a.k IS NOT DISTINCT FROM b.k WHERE b.id BETWEEN 3 AND 7 GROUP BY b.id HAVING count(*) = 1;
-- case 783 ordered hint=b,c
SELECT c.k + 2 AS c0, coalesce(c.k, 0) AS c1, substr(c.g, 2, 3) AS c2 FROM t2 b LEFT JOIN t3 c ON b.k = c.k WHERE b.d <= DATE '1996-01-01' ORDER BY 3 ASC NULLS LAST, 1 ASC NULLS FIRST, 2 DESC NULLS LAST LIMIT 1 OFFSET 3;
-- case 784 hint=a,c,b
SELECT a.m * 2 AS c0, a.d AS c1, trim(a.s) AS c2, a.s AS c3 FROM t1 a LEFT JOIN t3 c ON a.k = c.k AND a.m = 0 FULL JOIN t2 b ON b.k = c.k WHERE a.x < -1.5;
-- case 785 ordered hint=b,c,a
SELECT DISTINCT a.d AS c0, b.s AS c1, a.k AS c2 FROM t2 b FULL JOIN t3 c ON b.k = c.k LEFT JOIN t1 a ON a.k = c.k WHERE a.m < -0.01 ORDER BY 1 DESC NULLS LAST, 2 DESC NULLS FIRST, 3 DESC NULLS FIRST LIMIT 0;
-- case 786 hint=a,c,b
SELECT a.id AS g0, c.k AS g1, max(b.y) AS a0, avg(b.y) AS a1 FROM t1 a FULL JOIN t3 c ON a.k IS NOT DISTINCT FROM c.k AND a.k BETWEEN 0 AND 3 JOIN t2 b ON b.k = c.k WHERE b.id NOT IN (-20) GROUP BY a.id, c.k HAVING count(*) >= 1;
-- case 787 ordered
SELECT a.m * 2 AS c0, upper(a.s) AS c1, (SELECT count(c.k) FROM t3 c) AS sq FROM t1 a WHERE a.id = a.id ORDER BY 3 ASC NULLS FIRST, 2 ASC NULLS FIRST, 1 ASC NULLS FIRST LIMIT 0;
-- case 788
SELECT c.n + 10 AS c0, CASE WHEN c.k IN (-4, 2, 0) THEN c.k ELSE -4 END AS c1, c.k AS c2, (SELECT min(b.k) FROM t2 b WHERE b.k = c.k) AS sq FROM t3 c WHERE c.k BETWEEN -3 AND 0;
-- case 789
SELECT b.k FROM t2 b WHERE b.k BETWEEN 3 AND 4 UNION ALL SELECT c.k FROM t3 c;
-- case 790 hint=b,a
SELECT a.k AS g0, a.k AS g1, avg(a.x) AS a0, avg(a.m) AS a1 FROM t2 b INNER JOIN t1 a ON b.k = a.k AND b.id < 2 GROUP BY a.k, a.k;
-- case 791 hint=a,b
SELECT b.k * 2 AS c0, coalesce(a.x, -1.0) AS c1 FROM t1 a JOIN t2 b ON a.k = b.k;
-- case 792 ordered hint=b,c
SELECT DISTINCT coalesce(c.n, 1) AS c0, b.d AS c1, b.d AS c2 FROM t2 b RIGHT JOIN t3 c ON b.k = c.k ORDER BY 1 DESC NULLS FIRST, 3 ASC NULLS LAST, 2 ASC NULLS FIRST;
-- case 793 hint=a,c
SELECT a.id AS c0 FROM t1 a RIGHT JOIN t3 c ON a.k = c.k WHERE c.k IN (-20, NULL);
-- case 794
SELECT c.g AS c0, abs(c.k) AS c1, c.n + 3 AS c2 FROM t3 c;
-- case 795 hint=c,a
SELECT max(a.x) AS a0 FROM t3 c INNER JOIN t1 a ON c.k = a.k AND c.g LIKE 'a%';
-- case 796 hint=c,b
SELECT b.s AS g0, b.s AS g1, max(b.y) AS a0, avg(c.n) AS a1 FROM t3 c LEFT JOIN t2 b ON c.k IS NOT DISTINCT FROM b.k GROUP BY b.s, b.s;
-- case 797 hint=a,b
SELECT a.k * 2 AS c0, a.m * 2 AS c1, a.s AS c2, a.k * 2 AS c3 FROM t1 a INNER JOIN t2 b ON a.k = b.k WHERE b.y = 0.0;
-- case 798 hint=b,a,c
SELECT min(a.d) AS a0 FROM t2 b RIGHT JOIN t1 a ON b.k = a.k AND b.id < 1 RIGHT JOIN t3 c ON c.k = b.k WHERE b.y = -1.5;
-- case 799 ordered hint=a,b
SELECT DISTINCT a.m * 2 AS c0, trim(b.s) AS c1, b.d AS c2 FROM t1 a CROSS JOIN t2 b ORDER BY 1 ASC NULLS FIRST, 3 ASC NULLS FIRST, 2 DESC NULLS FIRST LIMIT 1;
