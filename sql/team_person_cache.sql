-- The team report's cache figures per person: the requests' own tokens,
-- the cache hit ratio (cache reads over the whole prompt; null without
-- prompt tokens), the idle cost (misses after the 5-minute or 1-hour cache
-- expired) and the edit cost (misses within the TTL: microcompact,
-- context_edit, full_rebuild, shape_change).
-- Input: view `requests` (one row per request, as sql/team_requests.sql
-- returns them) and view `analysis` (as sql/team_cache_classes.sql reads
-- it), both filtered to the report's window.
WITH tokens AS (
  SELECT
    "user",
    SUM(input) AS input_tokens,
    SUM(output) AS output_tokens,
    SUM(cache_write_5m) AS cache_write_5m_tokens,
    SUM(cache_write_1h) AS cache_write_1h_tokens,
    SUM(cache_read) AS cache_read_tokens
  FROM requests
  GROUP BY "user"
),
lost AS (
  SELECT
    "user" AS lost_user,
    SUM(CASE WHEN class IN ('ttl_5m', 'ttl_1h') THEN miss_cost_usd ELSE 0.0 END) AS idle_cost_usd,
    SUM(CASE WHEN class IN ('shape_change', 'microcompact', 'context_edit', 'full_rebuild') THEN miss_cost_usd ELSE 0.0 END)
      AS edit_cost_usd
  FROM analysis
  GROUP BY "user"
)
SELECT
  "user",
  input_tokens,
  output_tokens,
  cache_write_5m_tokens,
  cache_write_1h_tokens,
  cache_read_tokens,
  CASE
    WHEN input_tokens + cache_write_5m_tokens + cache_write_1h_tokens + cache_read_tokens > 0
    THEN CAST(cache_read_tokens AS DOUBLE)
      / CAST(input_tokens + cache_write_5m_tokens + cache_write_1h_tokens + cache_read_tokens AS DOUBLE)
  END AS cache_hit_ratio,
  COALESCE(idle_cost_usd, 0.0) AS idle_cost_usd,
  COALESCE(edit_cost_usd, 0.0) AS edit_cost_usd
FROM tokens LEFT JOIN lost ON tokens."user" = lost.lost_user
ORDER BY "user"
