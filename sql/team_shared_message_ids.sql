-- Message ids stored under more than one person (each copy is kept, under
-- its own user, and counted here): the team report's flag.
-- Input: view `requests` (one row per request, as sql/team_requests.sql
-- returns them), filtered to the report's window.
SELECT COUNT(*) AS message_ids
FROM (
  SELECT message_id
  FROM requests
  GROUP BY message_id
  HAVING COUNT(DISTINCT "user") > 1
) shared
