-- wd02: the read-heavy query of a pgbench-style mix (weight 1): an
-- account's balance beside its branch's and its branch's tellers'.
\set aid random(1, 100000 * :scale)
SELECT a.aid, a.abalance, b.bbalance, t.tid, t.tbalance
  FROM pgbench_accounts a
  JOIN pgbench_branches b ON b.bid = a.bid
  JOIN pgbench_tellers t ON t.bid = a.bid
 WHERE a.aid = :aid;
