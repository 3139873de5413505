-- The cache model's class table per person: how many thread requests of
-- each cache class (hit, first, compaction, model_switch, ttl_5m, ttl_1h,
-- shape_change, version_change, microcompact, context_edit, full_rebuild), the tokens
-- they rebuilt and what their misses cost.
-- Input: view `analysis`: one row per thread request with its verdict (the
-- stored analysis table, or bundle rows of kind 'analysis' deduplicated by
-- sql/team_analysis.sql), already filtered to the report's window.
SELECT
  "user",
  class,
  COUNT(*) AS count,
  SUM(rebuilt_tokens) AS rebuilt_tokens,
  SUM(miss_cost_usd) AS miss_cost_usd
FROM analysis
GROUP BY "user", class
ORDER BY "user", class
