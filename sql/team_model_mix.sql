-- Requests and spend per person and model: the team report's model mix.
-- Input: table `requests` (one row per request: the stored requests table,
-- or bundles deduplicated by sql/team_requests.sql).
SELECT
  "user",
  model,
  COUNT(*) AS requests,
  SUM(cost_usd) AS cost_usd
FROM requests
GROUP BY "user", model
ORDER BY "user", model
