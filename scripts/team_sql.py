#!/usr/bin/env python3
"""Runs the team report's queries (sql/team_*.sql) on DuckDB, DataFusion or
Spark over cachewise bundles and prints the team report's figures as JSON,
from SQL alone: what `cachewise report team --json` says after importing
the same bundles (CI checks that it is, on all three engines).

usage: team_sql.py --engine duckdb|datafusion|spark [--tz ZONE] [--queries] BUNDLES...

BUNDLES are bundle files (docs/bundle-schema.md: one Parquet file per
person and export, overlapping freely), directories of them or globs. With
--engine spark they are passed to Spark as they are, so they can be
object-storage URLs (s3a://bucket/team/*.parquet) that the Spark
installation can read; DuckDB reads s3:// globs once its httpfs extension
is loaded; DataFusion reads local files.

The views, in order (each file's header says what it reads and returns):
  bundles   every row of every bundle, columns merged by name
  deduped   sql/team_requests.sql: one row per request, as import keeps it
  by_call   sql/team_requests_by_call.sql: responses split into API calls
  analysis  sql/team_analysis.sql: the exporters' cache verdicts, once each
  requests  by_call with `key` = the request's local day in --tz (for
            team_person_days.sql and team_model_mix.sql), then deduped
            (for team_person_cache.sql and team_shared_message_ids.sql)

The one expression that differs between engines is the local day of a
timestamp (DIALECTS below, {tz} substituted after the zone was checked);
everything else is the same text of sql/*.sql on every engine. Spark reads
"user" as a column because the session sets
spark.sql.ansi.doubleQuotedIdentifiers (Spark 3.4 and later).

Output: {"engine", "tz", "rows": [per person], "total", "window", "flags",
"person_days"} under the names `report team --json` uses; the script only
adds up the queries' rows (sums, mean, median and p90 per active day as
numpy's linear quantile, cost shares, the monthly run-rate). --queries adds
"queries": every sql/*.sql's rows (times as epoch milliseconds;
usage_by_key.sql keyed by model, as `cachewise model` runs it).

Exit codes: 0 printed, 2 usage or a query failed, 3 the engine's Python
package (or Java, for Spark) is missing.
"""

import argparse
import datetime
import decimal
import glob
import json
import os
import pathlib
import sys
import tempfile
import time

SQL_DIR = pathlib.Path(__file__).resolve().parent.parent / "sql"

# The local calendar day (YYYY-MM-DD) of the UTC timestamp column `time`
# in zone {tz}: the only SQL that is each engine's own.
DIALECTS = {
    "duckdb": "strftime(timezone('{tz}', time), '%Y-%m-%d')",
    "datafusion": "to_char(time AT TIME ZONE '{tz}', '%Y-%m-%d')",
    "spark": "date_format(from_utc_timestamp(time, '{tz}'), 'yyyy-MM-dd')",
}

DAYS_PER_MONTH = 365.25 / 12.0
TOKENS = ["input_tokens", "output_tokens", "cache_write_5m_tokens", "cache_write_1h_tokens", "cache_read_tokens"]


class Missing(Exception):
    """The engine cannot run here (package or Java missing)."""


def sql(name):
    return (SQL_DIR / name).read_text()


def local_files(paths):
    """Local bundle files named by paths, directories or globs."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            out.extend(sorted(glob.glob(os.path.join(p, "*.parquet"))))
        elif glob.has_magic(p):
            out.extend(sorted(glob.glob(p)))
        else:
            out.append(p)
    if not out:
        print(f"no bundle files in {' '.join(paths)}", file=sys.stderr)
        raise SystemExit(2)
    return out


class DuckDB:
    def __init__(self, paths):
        try:
            import duckdb
        except ImportError as e:
            raise Missing("the duckdb Python package is not installed (python3 -m pip install duckdb)") from e
        self.con = duckdb.connect()
        # Globs and s3:// URLs are DuckDB's to expand; a directory means its files.
        paths = [os.path.join(p, "*.parquet") if os.path.isdir(p) else p for p in paths]
        listed = ", ".join("'" + p.replace("'", "''") + "'" for p in paths)
        self.con.execute(f"CREATE VIEW bundles AS SELECT * FROM read_parquet([{listed}], union_by_name = true)")

    def view(self, name, text):
        self.con.execute(f"CREATE OR REPLACE VIEW {name} AS {text}")

    def rows(self, text):
        cur = self.con.execute(text)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    def columns(self):
        return {r[0] for r in self.con.execute("DESCRIBE bundles").fetchall()}


class DataFusion:
    def __init__(self, paths):
        try:
            from datafusion import SessionContext
        except ImportError as e:
            raise Missing("the datafusion Python package is not installed (python3 -m pip install datafusion)") from e
        self.ctx = SessionContext()
        # DataFusion's own reader takes one directory, file or glob and
        # merges the files' schemas (bundles of older schemas lack columns);
        # several are linked into one directory for it.
        path = paths[0]
        if len(paths) > 1:
            self.links = tempfile.TemporaryDirectory(prefix="team_sql-")
            path = self.links.name
            for k, f in enumerate(local_files(paths)):
                os.symlink(os.path.abspath(f), os.path.join(path, f"{k:06}.parquet"))
        self.ctx.register_parquet("bundles", str(path))

    def view(self, name, text):
        if self.ctx.table_exist(name):
            self.ctx.deregister_table(name)
        self.ctx.register_view(name, self.ctx.sql(text))

    def rows(self, text):
        return self.ctx.sql(text).to_arrow_table().to_pylist()

    def columns(self):
        return set(self.ctx.table("bundles").schema().names)


class Spark:
    def __init__(self, paths, master="local[2]"):
        try:
            from pyspark.sql import SparkSession
        except ImportError as e:
            raise Missing("the pyspark Python package is not installed (python3 -m pip install pyspark)") from e
        try:
            self.spark = self.session(SparkSession, master)
        except Exception as e:  # Java missing or too old: py4j says so in many ways
            raise Missing(f"Spark could not start (is Java 17 or later installed?): {e}") from e
        self.spark.sparkContext.setLogLevel("ERROR")
        self.spark.read.option("mergeSchema", "true").parquet(*paths).createOrReplaceTempView("bundles")

    @staticmethod
    def session(SparkSession, master):
        """One session for every query. Small shuffles, no UI, no Hive: the
        queries' results are a few thousand rows. Anything else (the s3a
        filesystem, credentials, memory) comes from the installation's
        spark-defaults.conf or PYSPARK_SUBMIT_ARGS."""
        b = SparkSession.builder.appName("cachewise team_sql").master(master)
        for k, v in {
            "spark.sql.ansi.doubleQuotedIdentifiers": "true",
            "spark.sql.session.timeZone": "UTC",
            "spark.sql.shuffle.partitions": "2",
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.catalogImplementation": "in-memory",
            # A short job: the quick JIT tier and one GC thread start sooner.
            "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
        }.items():
            b = b.config(k, v)
        return b.getOrCreate()

    def view(self, name, text):
        # Cached: every query reads the same few views, and recomputing the
        # deduplication's windows per query is what a Spark run spends.
        self.spark.sql(text).cache().createOrReplaceTempView(name)

    def rows(self, text):
        return [r.asDict() for r in self.spark.sql(text).collect()]

    def columns(self):
        return set(self.spark.table("bundles").columns)


ENGINES = {"duckdb": DuckDB, "datafusion": DataFusion, "spark": Spark}


def plain(value):
    """A JSON value: epoch milliseconds for times (Spark's are naive local
    times, which .timestamp() reads back as such), integers for Spark's
    decimal(20,0) (its type for Parquet's uint64), ISO text for dates."""
    if isinstance(value, datetime.datetime):
        return round(value.timestamp() * 1000)
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def run(engine, day, queries):
    """Every sql/*.sql's rows (plain values), by file name."""
    have = engine.columns()
    out = {}
    engine.view("deduped", sql("team_requests.sql"))
    out["team_requests.sql"] = engine.rows("SELECT * FROM deduped") if queries else []
    # Bundles of schema 1 have no calls, of schema 1-2 no cache verdicts.
    by_call = sql("team_requests_by_call.sql") if "iteration" in have else "SELECT *, 1 AS counted FROM deduped"
    engine.view("by_call", by_call)
    if queries:
        out["team_requests_by_call.sql"] = engine.rows("SELECT * FROM by_call")
        engine.view("requests", "SELECT *, model AS key, '' AS sub FROM by_call")
        out["usage_by_key.sql"] = engine.rows(sql("usage_by_key.sql"))
    engine.view("requests", f"SELECT *, {day} AS key, '' AS sub FROM by_call")
    for name in ["team_person_days.sql", "team_model_mix.sql"]:
        out[name] = engine.rows(sql(name))
    engine.view("requests", "SELECT * FROM deduped")
    out["team_shared_message_ids.sql"] = engine.rows(sql("team_shared_message_ids.sql"))
    if "class" in have:
        engine.view("analysis", sql("team_analysis.sql"))
        if queries:
            out["team_analysis.sql"] = engine.rows("SELECT * FROM analysis")
        for name in ["team_cache_classes.sql", "team_person_cache.sql"]:
            out[name] = engine.rows(sql(name))
    else:
        engine.view("analysis", "SELECT \"user\", '' AS class, 0.0 AS miss_cost_usd FROM deduped WHERE 1 = 0")
        out["team_person_cache.sql"] = engine.rows(sql("team_person_cache.sql"))
    return {k: [{c: plain(v) for c, v in r.items()} for r in rows] for k, rows in out.items()}


def quantile(values, q):
    """numpy's default (linear between closest ranks), as the report's; 0 for none."""
    v = sorted(values)
    if not v:
        return 0.0
    h = (len(v) - 1) * q
    lo, hi = int(h // 1), int(-(-h // 1))
    return v[lo] + (h - lo) * (v[hi] - v[lo])


def figures(days, models, tokens, lost):
    """The figures a person's row and the total share (report::team::Figures)."""
    cost = sum(d["cost_usd"] for d in days)
    prompt = sum(tokens[k] for k in TOKENS if k != "output_tokens")
    models = [dict(m, cost_share=m["cost_usd"] / cost if cost > 0 else 0.0) for m in models]
    models.sort(key=lambda m: (-m["cost_usd"], m["model"]))
    costs = [d["cost_usd"] for d in days]
    return {
        "active_days": len(days),
        "requests": sum(d["requests"] for d in days),
        "cost_usd": cost,
        "cost_per_active_day_mean_usd": cost / len(days) if days else 0.0,
        "cost_per_active_day_median_usd": quantile(costs, 0.5),
        "cost_per_active_day_p90_usd": quantile(costs, 0.9),
        **tokens,
        "cache_hit_ratio": tokens["cache_read_tokens"] / prompt if prompt > 0 else None,
        "idle_cost_usd": lost[0],
        "edit_cost_usd": lost[1],
        "models": models,
    }


def report(out):
    """The team report's figures from the queries' rows."""
    days = [{"user": d["user"], "day": d["key"], "requests": d["requests"], "cost_usd": d["cost_usd"]}
            for d in sorted(out["team_person_days.sql"], key=lambda d: (d["user"], d["key"]))]
    mix = out["team_model_mix.sql"]
    cache = {r["user"]: r for r in out["team_person_cache.sql"]}
    analysed = {r["user"] for r in out.get("team_cache_classes.sql", [])}
    on_days = sorted(d["day"] for d in days)
    window = {"first_day": on_days[0] if days else None, "last_day": on_days[-1] if days else None, "days": 0}
    if days:
        first, last = (datetime.date.fromisoformat(on_days[k]) for k in (0, -1))
        window["days"] = (last - first).days + 1
    month = lambda cost: cost / window["days"] * DAYS_PER_MONTH if window["days"] else 0.0
    rows = []
    for user in sorted({d["user"] for d in days}):
        c = cache.get(user, {})
        tokens = {k: c.get(k) or 0 for k in TOKENS}
        # Without analysis rows (bundles of schema 1-2) the cache cost is unknown, not 0.
        lost = (c.get("idle_cost_usd"), c.get("edit_cost_usd")) if user in analysed else (None, None)
        models = [{k: m[k] for k in ("model", "requests", "cost_usd")} for m in mix if m["user"] == user]
        f = figures([d for d in days if d["user"] == user], models, tokens, lost)
        rows.append({"user": user, **f, "monthly_projection_usd": month(f["cost_usd"])})
    by_model = {}
    for m in mix:
        t = by_model.setdefault(m["model"], {"model": m["model"], "requests": 0, "cost_usd": 0.0})
        t["requests"] += m["requests"]
        t["cost_usd"] += m["cost_usd"]
    tokens = {k: sum(r[k] for r in rows) for k in TOKENS}
    lost = [None if any(r[k] is None for r in rows) else sum(r[k] for r in rows)
            for k in ("idle_cost_usd", "edit_cost_usd")]
    total = {"people": len(rows), **figures(days, list(by_model.values()), tokens, lost)}
    total["monthly_projection_per_seat_usd"] = month(total["cost_usd"]) / len(rows) if rows else 0.0
    shared = out["team_shared_message_ids.sql"][0]["message_ids"]
    return {"rows": rows, "total": total, "window": window,
            "flags": {"message_ids_under_several_users": shared}, "person_days": days}


def zone(tz):
    """--tz checked against the zone database before it enters SQL text."""
    import zoneinfo
    if len(tz) > 64 or not all(ch.isalnum() or ch in "/_+-" for ch in tz):
        raise argparse.ArgumentTypeError(f"not a time zone name: {tz!r}")
    try:
        zoneinfo.ZoneInfo(tz)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as e:
        raise argparse.ArgumentTypeError(f"unknown time zone {tz!r}") from e
    return tz


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--engine", required=True, choices=sorted(ENGINES))
    p.add_argument("--tz", type=zone, default="UTC", help="days are local to this zone (the report's --tz)")
    p.add_argument("--queries", action="store_true", help="also print every sql/*.sql's rows")
    p.add_argument("--master", default="local[2]", help="Spark master (default local[2]; spark only)")
    p.add_argument("bundles", nargs="+", metavar="BUNDLES")
    a = p.parse_args(argv)
    start = time.monotonic()
    try:
        engine = Spark(a.bundles, a.master) if a.engine == "spark" else ENGINES[a.engine](a.bundles)
    except Missing as e:
        print(f"skip: {e}", file=sys.stderr)
        return 3
    except Exception as e:  # no such file, not Parquet: the engine's own words
        print(f"{a.engine}: cannot read {' '.join(a.bundles)}: {e}", file=sys.stderr)
        return 2
    ready = time.monotonic()
    try:
        out = run(engine, DIALECTS[a.engine].format(tz=a.tz), a.queries)
    except Exception as e:  # the engine's own error names the query's problem
        print(f"{a.engine}: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    done = time.monotonic()
    print(f"team_sql: {a.engine} ready after {ready - start:.1f} s, queries {done - ready:.1f} s", file=sys.stderr)
    result = {"engine": a.engine, "tz": a.tz, **report(out)}
    if a.queries:
        result["queries"] = out
    json.dump(result, sys.stdout, indent=1, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
