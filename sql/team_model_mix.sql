-- Requests and spend per person and model: the team report's model mix.
-- Input: table `requests` (one row per request: the stored requests table,
-- or bundles deduplicated by sql/team_requests.sql) with a derived column
-- `counted` (1 per request; a request split into its API calls by model
-- counts on one of its rows, so each call's cost lands under its model).
-- A model's fast-mode requests (`speed` 'fast') are a row of their own,
-- named as every report names them: the model id, then " (fast)"
-- (report::query::model_label).
SELECT
  "user",
  model,
  SUM(counted) AS requests,
  SUM(cost_usd) AS cost_usd
FROM (
  SELECT
    "user",
    CASE WHEN speed = 'fast' THEN model || ' (fast)' ELSE model END AS model,
    counted,
    cost_usd
  FROM requests
) labelled
GROUP BY "user", model
ORDER BY "user", model
