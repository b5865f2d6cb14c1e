-- ddl
CREATE TABLE warehouse (
  w_id INTEGER NOT NULL PRIMARY KEY,
  w_name VARCHAR(10) NOT NULL,
  w_street_1 VARCHAR(20) NOT NULL,
  w_street_2 VARCHAR(20) NOT NULL,
  w_city VARCHAR(20) NOT NULL,
  w_state CHAR(2) NOT NULL,
  w_zip CHAR(9) NOT NULL,
  w_tax NUMERIC(4,4) NOT NULL,
  w_ytd NUMERIC(12,2) NOT NULL
);
CREATE TABLE district (
  d_id INTEGER NOT NULL,
  d_w_id INTEGER NOT NULL,
  d_name VARCHAR(10) NOT NULL,
  d_street_1 VARCHAR(20) NOT NULL,
  d_street_2 VARCHAR(20) NOT NULL,
  d_city VARCHAR(20) NOT NULL,
  d_state CHAR(2) NOT NULL,
  d_zip CHAR(9) NOT NULL,
  d_tax NUMERIC(4,4) NOT NULL,
  d_ytd NUMERIC(12,2) NOT NULL,
  d_next_o_id INTEGER NOT NULL,
  PRIMARY KEY (d_w_id, d_id)
);
CREATE TABLE customer (
  c_id INTEGER NOT NULL,
  c_d_id INTEGER NOT NULL,
  c_w_id INTEGER NOT NULL,
  c_first VARCHAR(16) NOT NULL,
  c_middle CHAR(2) NOT NULL,
  c_last VARCHAR(16) NOT NULL,
  c_street_1 VARCHAR(20) NOT NULL,
  c_street_2 VARCHAR(20) NOT NULL,
  c_city VARCHAR(20) NOT NULL,
  c_state CHAR(2) NOT NULL,
  c_zip CHAR(9) NOT NULL,
  c_phone CHAR(16) NOT NULL,
  c_since DATETIME(6) NOT NULL, -- mariadb-10.11
  c_since timestamptz NOT NULL, -- postgresql-15
  c_since TEXT NOT NULL, -- sqlite
  c_credit CHAR(2) NOT NULL,
  c_credit_lim NUMERIC(12,2) NOT NULL,
  c_discount NUMERIC(4,4) NOT NULL,
  c_balance NUMERIC(12,2) NOT NULL,
  c_ytd_payment NUMERIC(12,2) NOT NULL,
  c_payment_cnt INTEGER NOT NULL,
  c_delivery_cnt INTEGER NOT NULL,
  c_data VARCHAR(500) NOT NULL,
  PRIMARY KEY (c_w_id, c_d_id, c_id)
);
CREATE INDEX customer_last ON customer (c_w_id, c_d_id, c_last, c_first);
CREATE TABLE history (
  h_c_id INTEGER NOT NULL,
  h_c_d_id INTEGER NOT NULL,
  h_c_w_id INTEGER NOT NULL,
  h_d_id INTEGER NOT NULL,
  h_w_id INTEGER NOT NULL,
  h_date DATETIME(6) NOT NULL, -- mariadb-10.11
  h_date timestamptz NOT NULL, -- postgresql-15
  h_date TEXT NOT NULL, -- sqlite
  h_amount NUMERIC(6,2) NOT NULL,
  h_data VARCHAR(24) NOT NULL
);
CREATE INDEX history_customer ON history (h_c_w_id, h_c_d_id, h_c_id);
CREATE TABLE new_order (
  no_o_id INTEGER NOT NULL,
  no_d_id INTEGER NOT NULL,
  no_w_id INTEGER NOT NULL,
  PRIMARY KEY (no_w_id, no_d_id, no_o_id)
);
CREATE TABLE orders (
  o_id INTEGER NOT NULL,
  o_d_id INTEGER NOT NULL,
  o_w_id INTEGER NOT NULL,
  o_c_id INTEGER NOT NULL,
  o_entry_d DATETIME(6) NOT NULL, -- mariadb-10.11
  o_entry_d timestamptz NOT NULL, -- postgresql-15
  o_entry_d TEXT NOT NULL, -- sqlite
  o_carrier_id INTEGER,
  o_ol_cnt INTEGER NOT NULL,
  o_all_local INTEGER NOT NULL,
  PRIMARY KEY (o_w_id, o_d_id, o_id)
);
CREATE INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id);
CREATE TABLE order_line (
  ol_o_id INTEGER NOT NULL,
  ol_d_id INTEGER NOT NULL,
  ol_w_id INTEGER NOT NULL,
  ol_number INTEGER NOT NULL,
  ol_i_id INTEGER NOT NULL,
  ol_supply_w_id INTEGER NOT NULL,
  ol_delivery_d DATETIME(6), -- mariadb-10.11
  ol_delivery_d timestamptz, -- postgresql-15
  ol_delivery_d TEXT, -- sqlite
  ol_quantity INTEGER NOT NULL,
  ol_amount NUMERIC(6,2) NOT NULL,
  ol_dist_info CHAR(24) NOT NULL,
  PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)
);
CREATE TABLE item (
  i_id INTEGER NOT NULL PRIMARY KEY,
  i_im_id INTEGER NOT NULL,
  i_name VARCHAR(24) NOT NULL,
  i_price NUMERIC(5,2) NOT NULL,
  i_data VARCHAR(50) NOT NULL
);
CREATE TABLE stock (
  s_i_id INTEGER NOT NULL,
  s_w_id INTEGER NOT NULL,
  s_quantity INTEGER NOT NULL,
  s_dist_01 CHAR(24) NOT NULL,
  s_dist_02 CHAR(24) NOT NULL,
  s_dist_03 CHAR(24) NOT NULL,
  s_dist_04 CHAR(24) NOT NULL,
  s_dist_05 CHAR(24) NOT NULL,
  s_dist_06 CHAR(24) NOT NULL,
  s_dist_07 CHAR(24) NOT NULL,
  s_dist_08 CHAR(24) NOT NULL,
  s_dist_09 CHAR(24) NOT NULL,
  s_dist_10 CHAR(24) NOT NULL,
  s_ytd INTEGER NOT NULL,
  s_order_cnt INTEGER NOT NULL,
  s_remote_cnt INTEGER NOT NULL,
  s_data VARCHAR(50) NOT NULL,
  PRIMARY KEY (s_w_id, s_i_id)
);
CREATE TABLE tpcc_nurand (c_last INTEGER NOT NULL, c_id INTEGER NOT NULL, ol_i_id INTEGER NOT NULL);
-- drop
DROP TABLE IF EXISTS item;
DROP TABLE IF EXISTS warehouse;
DROP TABLE IF EXISTS district;
DROP TABLE IF EXISTS customer;
DROP TABLE IF EXISTS history;
DROP TABLE IF EXISTS orders;
DROP TABLE IF EXISTS new_order;
DROP TABLE IF EXISTS order_line;
DROP TABLE IF EXISTS stock;
DROP TABLE IF EXISTS tpcc_nurand;
-- analyze
ANALYZE TABLE item; -- mariadb-10.11
ANALYZE item; -- postgresql-15, sqlite
ANALYZE TABLE warehouse; -- mariadb-10.11
ANALYZE warehouse; -- postgresql-15, sqlite
ANALYZE TABLE district; -- mariadb-10.11
ANALYZE district; -- postgresql-15, sqlite
ANALYZE TABLE customer; -- mariadb-10.11
ANALYZE customer; -- postgresql-15, sqlite
ANALYZE TABLE history; -- mariadb-10.11
ANALYZE history; -- postgresql-15, sqlite
ANALYZE TABLE orders; -- mariadb-10.11
ANALYZE orders; -- postgresql-15, sqlite
ANALYZE TABLE new_order; -- mariadb-10.11
ANALYZE new_order; -- postgresql-15, sqlite
ANALYZE TABLE order_line; -- mariadb-10.11
ANALYZE order_line; -- postgresql-15, sqlite
ANALYZE TABLE stock; -- mariadb-10.11
ANALYZE stock; -- postgresql-15, sqlite
ANALYZE TABLE tpcc_nurand; -- mariadb-10.11
ANALYZE tpcc_nurand; -- postgresql-15, sqlite
-- noWarehouse
/* txnbench op=new-order */ SELECT w_tax FROM warehouse WHERE w_id = $1;
-- noDistrict
/* txnbench op=new-order */ UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2; -- mariadb-10.11
/* txnbench op=new-order */ UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2 RETURNING d_next_o_id - 1, d_tax; -- postgresql-15, sqlite
-- noCustomer
/* txnbench op=new-order */ SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3;
-- noOrder
/* txnbench op=new-order */ INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP(6), NULL, $5, $6); -- mariadb-10.11
/* txnbench op=new-order */ INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES ($1, $2, $3, $4, now(), NULL, $5, $6); -- postgresql-15
/* txnbench op=new-order */ INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES ($1, $2, $3, $4, (strftime('%Y-%m-%dT%H:%M:%fZ','now')), NULL, $5, $6); -- sqlite
-- noNewOrder
/* txnbench op=new-order */ INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3);
-- noItem
/* txnbench op=new-order */ SELECT i_price, i_name, i_data FROM item WHERE i_id = $1;
-- noStock
/* txnbench op=new-order */ UPDATE stock SET s_quantity = CASE WHEN s_quantity >= $3 + 10 THEN s_quantity - $3 ELSE s_quantity - $3 + 91 END, s_ytd = s_ytd + $3, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + $4 WHERE s_w_id = $1 AND s_i_id = $2; -- mariadb-10.11
/* txnbench op=new-order */ UPDATE stock SET s_quantity = CASE WHEN s_quantity >= $3 + 10 THEN s_quantity - $3 ELSE s_quantity - $3 + 91 END, s_ytd = s_ytd + $3, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + $4 WHERE s_w_id = $1 AND s_i_id = $2 RETURNING s_quantity, s_data, s_dist_%02d; -- postgresql-15, sqlite
-- noLine
/* txnbench op=new-order */ INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES ($1, $2, $3, $4, $5, $6, NULL, $7, $8, $9);
-- payWarehouse
/* txnbench op=payment */ UPDATE warehouse SET w_ytd = w_ytd + $2 WHERE w_id = $1; -- mariadb-10.11
/* txnbench op=payment */ UPDATE warehouse SET w_ytd = w_ytd + $2 WHERE w_id = $1 RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip; -- postgresql-15, sqlite
-- payDistrict
/* txnbench op=payment */ UPDATE district SET d_ytd = d_ytd + $3 WHERE d_w_id = $1 AND d_id = $2; -- mariadb-10.11
/* txnbench op=payment */ UPDATE district SET d_ytd = d_ytd + $3 WHERE d_w_id = $1 AND d_id = $2 RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip; -- postgresql-15, sqlite
-- payByName
/* txnbench op=payment */ SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first;
-- payCustomer
/* txnbench op=payment */ UPDATE customer SET c_balance = c_balance - $4, c_ytd_payment = c_ytd_payment + $4, c_payment_cnt = c_payment_cnt + 1, c_data = CASE WHEN c_credit = 'BC' THEN substr(CONCAT($5, c_data), 1, 500) ELSE c_data END WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3; -- mariadb-10.11
/* txnbench op=payment */ UPDATE customer SET c_balance = c_balance - $4, c_ytd_payment = c_ytd_payment + $4, c_payment_cnt = c_payment_cnt + 1, c_data = CASE WHEN c_credit = 'BC' THEN substr(CAST($5 AS TEXT) || c_data, 1, 500) ELSE c_data END WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3 RETURNING c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance; -- postgresql-15, sqlite
-- payHistory
/* txnbench op=payment */ INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES ($1, $2, $3, $4, $5, CURRENT_TIMESTAMP(6), $6, $7); -- mariadb-10.11
/* txnbench op=payment */ INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES ($1, $2, $3, $4, $5, now(), $6, $7); -- postgresql-15
/* txnbench op=payment */ INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES ($1, $2, $3, $4, $5, (strftime('%Y-%m-%dT%H:%M:%fZ','now')), $6, $7); -- sqlite
-- osByName
/* txnbench op=order-status */ SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first;
-- osCustomer
/* txnbench op=order-status */ SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3;
-- osOrder
/* txnbench op=order-status */ SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3 ORDER BY o_id DESC LIMIT 1;
-- osLines
/* txnbench op=order-status */ SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3;
-- dlOldest
/* txnbench op=delivery */ SELECT coalesce(min(no_o_id), 0) FROM new_order WHERE no_w_id = $1 AND no_d_id = $2;
-- dlDelete
/* txnbench op=delivery */ DELETE FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 AND no_o_id = $3;
-- dlOrder
/* txnbench op=delivery */ UPDATE orders SET o_carrier_id = $4 WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3; -- mariadb-10.11
/* txnbench op=delivery */ UPDATE orders SET o_carrier_id = $4 WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3 RETURNING o_c_id; -- postgresql-15, sqlite
-- dlLines
/* txnbench op=delivery */ UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP(6) WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3; -- mariadb-10.11
/* txnbench op=delivery */ UPDATE order_line SET ol_delivery_d = now() WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3; -- postgresql-15
/* txnbench op=delivery */ UPDATE order_line SET ol_delivery_d = (strftime('%Y-%m-%dT%H:%M:%fZ','now')) WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3; -- sqlite
-- dlCustomer
/* txnbench op=delivery */ UPDATE customer SET c_balance = c_balance + (SELECT coalesce(sum(ol_amount), 0) FROM order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3), c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $4;
-- reads (mariadb-10.11)
/* txnbench op=delivery */ SELECT o_c_id FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3;
/* txnbench op=new-order */ SELECT d_next_o_id - 1, d_tax FROM district WHERE d_w_id = $1 AND d_id = $2;
/* txnbench op=new-order */ SELECT s_quantity, s_data, s_dist_%02d FROM stock WHERE s_w_id = $1 AND s_i_id = $2;
/* txnbench op=payment */ SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3;
/* txnbench op=payment */ SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = $1 AND d_id = $2;
/* txnbench op=payment */ SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = $1;
-- reads (postgresql-15)
;
-- reads (sqlite)
;
-- slDistrict
/* txnbench op=stock-level */ SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2;
-- slCount
/* txnbench op=stock-level */ SELECT count(DISTINCT s_i_id) FROM order_line JOIN stock ON s_w_id = ol_w_id AND s_i_id = ol_i_id WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id < $3 AND ol_o_id >= $3 - 20 AND s_quantity < $4;
-- 3.3.2.1 W_YTD = sum(D_YTD)
SELECT count(*) FROM warehouse LEFT JOIN (SELECT d_w_id, sum(d_ytd) AS s FROM district GROUP BY d_w_id) AS d ON d.d_w_id = w_id WHERE d.s IS NULL OR abs(w_ytd - d.s) >= 0.005;
-- 3.3.2.2 D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)
SELECT count(*) FROM district LEFT JOIN (SELECT o_w_id, o_d_id, max(o_id) AS m FROM orders GROUP BY o_w_id, o_d_id) AS o ON o.o_w_id = d_w_id AND o.o_d_id = d_id LEFT JOIN (SELECT no_w_id, no_d_id, max(no_o_id) AS m FROM new_order GROUP BY no_w_id, no_d_id) AS n ON n.no_w_id = d_w_id AND n.no_d_id = d_id WHERE o.m IS NULL OR d_next_o_id - 1 <> o.m OR (n.m IS NOT NULL AND n.m <> o.m);
-- 3.3.2.3 max(NO_O_ID) - min(NO_O_ID) + 1 = new orders
SELECT count(*) FROM (SELECT max(no_o_id) - min(no_o_id) + 1 AS span, count(*) AS n FROM new_order GROUP BY no_w_id, no_d_id) AS x WHERE span <> n;
-- 3.3.2.4 sum(O_OL_CNT) = order lines
SELECT count(*) FROM (SELECT o_w_id, o_d_id, sum(o_ol_cnt) AS s FROM orders GROUP BY o_w_id, o_d_id) AS o LEFT JOIN (SELECT ol_w_id, ol_d_id, count(*) AS n FROM order_line GROUP BY ol_w_id, ol_d_id) AS l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id WHERE l.n IS NULL OR l.n <> o.s;
-- 3.3.2.5 O_CARRIER_ID null iff a new order
SELECT count(*) FROM orders LEFT JOIN new_order ON no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id WHERE (o_carrier_id IS NULL AND no_o_id IS NULL) OR (o_carrier_id IS NOT NULL AND no_o_id IS NOT NULL);
-- 3.3.2.6 O_OL_CNT = its order lines
SELECT count(*) FROM orders LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, count(*) AS n FROM order_line GROUP BY ol_w_id, ol_d_id, ol_o_id) AS l ON l.ol_w_id = o_w_id AND l.ol_d_id = o_d_id AND l.ol_o_id = o_id WHERE l.n IS NULL OR l.n <> o_ol_cnt;
-- 3.3.2.7 OL_DELIVERY_D null iff O_CARRIER_ID null
SELECT count(*) FROM order_line JOIN orders ON o_w_id = ol_w_id AND o_d_id = ol_d_id AND o_id = ol_o_id WHERE (ol_delivery_d IS NULL AND o_carrier_id IS NOT NULL) OR (ol_delivery_d IS NOT NULL AND o_carrier_id IS NULL);
-- 3.3.2.8 W_YTD = sum(H_AMOUNT)
SELECT count(*) FROM warehouse LEFT JOIN (SELECT h_w_id, sum(h_amount) AS s FROM history GROUP BY h_w_id) AS h ON h.h_w_id = w_id WHERE abs(w_ytd - coalesce(h.s, 0)) >= 0.005;
-- 3.3.2.9 D_YTD = sum(H_AMOUNT)
SELECT count(*) FROM district LEFT JOIN (SELECT h_w_id, h_d_id, sum(h_amount) AS s FROM history GROUP BY h_w_id, h_d_id) AS h ON h.h_w_id = d_w_id AND h.h_d_id = d_id WHERE abs(d_ytd - coalesce(h.s, 0)) >= 0.005;
-- 3.3.2.10 C_BALANCE = delivered OL_AMOUNT - H_AMOUNT
SELECT count(*) FROM (SELECT w, d, c FROM (SELECT c_w_id AS w, c_d_id AS d, c_id AS c, c_balance AS x FROM customer UNION ALL SELECT o_w_id, o_d_id, o_c_id, -ol_amount FROM orders JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id WHERE ol_delivery_d IS NOT NULL UNION ALL SELECT h_c_w_id, h_c_d_id, h_c_id, h_amount FROM history) AS u GROUP BY w, d, c HAVING abs(sum(x)) >= 0.005) AS v;
-- 3.3.2.11 orders - new orders = delivered at load
SELECT count(*) FROM (SELECT o_w_id, o_d_id, count(*) AS n FROM orders GROUP BY o_w_id, o_d_id) AS o LEFT JOIN (SELECT no_w_id, no_d_id, count(*) AS n FROM new_order GROUP BY no_w_id, no_d_id) AS n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id WHERE o.n - coalesce(n.n, 0) <> $1;
-- 3.3.2.12 C_BALANCE + C_YTD_PAYMENT = delivered OL_AMOUNT
SELECT count(*) FROM (SELECT w, d, c FROM (SELECT c_w_id AS w, c_d_id AS d, c_id AS c, c_balance + c_ytd_payment AS x FROM customer UNION ALL SELECT o_w_id, o_d_id, o_c_id, -ol_amount FROM orders JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id WHERE ol_delivery_d IS NOT NULL) AS u GROUP BY w, d, c HAVING abs(sum(x)) >= 0.005) AS v;
