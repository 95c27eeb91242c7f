-- Figures read at scrape time by the /metrics collectors. Each must stay cheap on a large
-- database: it reads an index made for it, never a whole table.

-- name: MetricsOpenOrders :many
-- Orders not yet in a final status (SUCCESS, FAILED, REFUNDED), by status, from the partial
-- index orders_open_idx: the orders a stuck provider or job would pile up.
SELECT status, count(*) AS orders FROM orders
WHERE status NOT IN ('SUCCESS', 'FAILED', 'REFUNDED')
GROUP BY status ORDER BY status;
