-- Spend per person-day: the rows behind the team report's active days and
-- its median and p90 spend per active day.
-- Input: table `requests` (one row per request: the stored requests table,
-- or bundles deduplicated by sql/team_requests.sql) with a derived column
-- `key`, the request's local calendar day (YYYY-MM-DD), and `counted` (1
-- per request; a request split into its API calls counts on one row).
SELECT
  "user",
  key,
  SUM(counted) AS requests,
  SUM(cost_usd) AS cost_usd
FROM requests
GROUP BY "user", key
ORDER BY "user", key
