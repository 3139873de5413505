-- The deduplicated requests with each response made of API calls (rows of
-- kind 'iteration' on its kept line: an advisor call, a refused attempt
-- and its fallback) replaced by one row per call, with the call's model,
-- tokens and cost: what cachewise's team report feeds sql/team_person_days.sql
-- and sql/team_model_mix.sql, so each call's cost lands under its own model.
-- The request counts once (`counted` = 1), on its first call on its own
-- model (else its first call), which also carries its web searches
-- ($0.01 each, as pricing's WEB_SEARCH_USD); every total is unchanged.
-- A call sent twice (overlapping bundles) counts once.
-- Input: view `deduped` (sql/team_requests.sql's rows) and table `bundles`.
-- Output: the columns of `deduped` plus `counted`.
WITH calls AS (
  SELECT
    "user", message_id, request_id, source, line, iteration, model,
    input, cache_write_5m, cache_write_1h, cache_read, output, cost_usd,
    ROW_NUMBER() OVER (
      PARTITION BY "user", message_id, request_id, source, line, iteration
      ORDER BY cost_usd
    ) AS copy_rank
  FROM bundles
  WHERE kind = 'iteration'
),
split AS (
  SELECT
    d.time, d.session_id, d.thread, d.project, d.cwd, d.git_branch, d.version,
    c.model, c.input, c.cache_write_5m, c.cache_write_1h, c.cache_read,
    c.output, d.web_search, d.speed, d.inference_geo, d.is_sidechain,
    c.cost_usd, d.source, d.line, d.message_id, d.request_id, d."user",
    d.machine,
    ROW_NUMBER() OVER (
      PARTITION BY d."user", d.message_id, d.request_id
      ORDER BY CASE WHEN c.model = d.model THEN 0 ELSE 1 END, c.iteration
    ) AS call_rank
  FROM deduped d
  JOIN calls c
    ON c."user" = d."user" AND c.message_id = d.message_id
    AND c.request_id = d.request_id AND c.source = d.source AND c.line = d.line
  WHERE c.copy_rank = 1
)
SELECT
  time, session_id, thread, project, cwd, git_branch, version, model, input,
  cache_write_5m, cache_write_1h, cache_read, output, web_search, speed,
  inference_geo, is_sidechain,
  cost_usd + CASE WHEN call_rank = 1 THEN CAST(web_search AS DOUBLE) * 0.01 ELSE 0.0 END AS cost_usd,
  source, line, message_id, request_id, "user", machine,
  CASE WHEN call_rank = 1 THEN 1 ELSE 0 END AS counted
FROM split
UNION ALL
SELECT
  d.time, d.session_id, d.thread, d.project, d.cwd, d.git_branch, d.version,
  d.model, d.input, d.cache_write_5m, d.cache_write_1h, d.cache_read,
  d.output, d.web_search, d.speed, d.inference_geo, d.is_sidechain,
  d.cost_usd, d.source, d.line, d.message_id, d.request_id, d."user",
  d.machine, 1 AS counted
FROM deduped d
WHERE NOT EXISTS (
  SELECT 1 FROM calls c
  WHERE c."user" = d."user" AND c.message_id = d.message_id
    AND c.request_id = d.request_id AND c.source = d.source AND c.line = d.line
)
