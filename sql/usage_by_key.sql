-- Usage and cost per grouping key: the daily, weekly, monthly, session,
-- project and model reports (and the web pages) as one query. cachewise
-- computes the same sums in a loop over its table's slices
-- (`report::usage::sums`); the engines' test holds the two equal.
-- Input: table `requests` (the stored requests table) with three derived
-- columns: `key` (period, session_id, project or model), `sub` (the model
-- when broken down by model, else '') and `counted` (1 per request; a
-- request split into its API calls by model counts on one of its rows).
SELECT
  key,
  sub,
  SUM(counted) AS requests,
  SUM(input) AS input_tokens,
  SUM(output) AS output_tokens,
  SUM(cache_write_5m) AS cache_write_5m_tokens,
  SUM(cache_write_1h) AS cache_write_1h_tokens,
  SUM(cache_read) AS cache_read_tokens,
  SUM(cost_usd) AS cost_usd,
  MIN(time) AS first,
  MAX(time) AS last,
  MIN(project) AS project
FROM requests
GROUP BY key, sub
ORDER BY key, sub
