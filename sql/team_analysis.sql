-- One row per thread request's cache verdict from any set of bundles: the
-- rows of kind 'analysis' (bundle schema 3, computed on each person's
-- machine), copies of one row (a bundle imported twice) counted once.
-- Overlapping exports of one person are analyzed again by cachewise's
-- import; over such bundles this keeps the copy with the most output.
-- Input: table `bundles`: bundle files read as one table (docs/bundle-schema.md).
-- Output: the columns of the stored analysis table, without the what-if ones.
WITH a AS (
  SELECT * FROM bundles WHERE kind = 'analysis'
),
ranked AS (
  SELECT
    a.*,
    ROW_NUMBER() OVER (
      PARTITION BY "user", session_id, thread, message_id, time, model
      ORDER BY output DESC
    ) AS copy_rank
  FROM a
)
SELECT
  "user", session_id, thread, project, cwd, time, model, version, message_id,
  input, cache_write_5m, cache_write_1h, cache_read, output, web_search,
  class, rewind, gap_s, ttl_s, ttl_after_s, expected_prefix, lost_tokens,
  rebuilt_tokens, miss_cost_usd, lineage_first_read, rate_input, rate_output,
  rate_read_multiplier, actual_usd, last_main, resume_premium_usd,
  idle_compact_fixed_usd, idle_compact_per_token_usd
FROM ranked
WHERE copy_rank = 1
