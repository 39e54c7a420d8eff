-- TPC-H Q11: Important Stock Identification (spec 2.4.11), validation
-- parameter NATION = GERMANY. The spec sets FRACTION = 0.0001 / SF; these
-- tests run at SF = 0.01, so FRACTION = 0.0001 / 0.01 = 0.01.
select
    ps_partkey,
    sum(ps_supplycost * ps_availqty) as value
from
    partsupp,
    supplier,
    nation
where
    ps_suppkey = s_suppkey
    and s_nationkey = n_nationkey
    and n_name = 'GERMANY'
group by
    ps_partkey
having
    sum(ps_supplycost * ps_availqty) > (
        select
            sum(ps_supplycost * ps_availqty) * 0.01
        from
            partsupp,
            supplier,
            nation
        where
            ps_suppkey = s_suppkey
            and s_nationkey = n_nationkey
            and n_name = 'GERMANY'
    )
order by
    value desc;
