-- One row per request from any set of bundles, as cachewise's import keeps
-- it: requests are (user, message_id, request_id); of several copies the one
-- with the most output wins (ties: the first by source, then line) and the
-- request's time is its earliest copy's; a sidechain-only copy of a message
-- that the same user also has on the main thread under another request id
-- is a replay and is dropped.
-- Input: table `bundles`: bundle files read as one table (docs/bundle-schema.md).
-- Output: the columns of the stored requests table.
WITH r AS (
  SELECT * FROM bundles WHERE kind = 'request'
),
ranked AS (
  SELECT
    r.*,
    ROW_NUMBER() OVER (
      PARTITION BY "user", message_id, request_id
      ORDER BY output DESC, source, line
    ) AS copy_rank,
    MIN(time) OVER (PARTITION BY "user", message_id, request_id) AS first_time,
    MAX(CASE WHEN is_sidechain THEN 0 ELSE 1 END)
      OVER (PARTITION BY "user", message_id, request_id) AS main_here,
    MAX(CASE WHEN is_sidechain THEN 0 ELSE 1 END)
      OVER (PARTITION BY "user", message_id) AS main_anywhere
  FROM r
)
SELECT
  first_time AS time, session_id, thread, project, cwd, git_branch, version,
  model, input, cache_write_5m, cache_write_1h, cache_read, output,
  web_search, speed, inference_geo, is_sidechain, cost_usd, source, line,
  message_id, request_id, "user", machine
FROM ranked
WHERE copy_rank = 1 AND (main_here = 1 OR main_anywhere = 0)
