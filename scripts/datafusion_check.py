#!/usr/bin/env python3
"""Runs every sql/*.sql with Apache DataFusion over a directory of cachewise
bundles and checks that the results equal cachewise's own.

usage: datafusion_check.py BUNDLE_DIR EXPECTED_JSON

BUNDLE_DIR holds bundles (*.parquet, docs/bundle-schema.md), possibly
overlapping. EXPECTED_JSON is what cachewise computed over the same bundles
after importing them (written by `cargo test --test team datafusion`):

  {"queries": {"<file>.sql": {"key": "day"|"model"|null,
                              "sort": [column, ...],
                              "rows": [{column: value, ...}, ...]}}}

`sql/team_requests.sql` deduplicates the bundles into the view every other
query reads as `requests` (with the derived `key`, `sub` and `counted` columns their
headers describe; days are UTC). Times compare as epoch milliseconds, floats
to a relative 1e-9. Only the columns present in the expected rows are
compared. Every sql/*.sql must have an expected entry.

The team report's cache figures (queries whose spec says "over": "cache")
run over a second directory, EXPECTED_JSON's "cache_bundles": bundles of
schema 3 carrying analysis rows, whose view `analysis` is
sql/team_analysis.sql and `requests` the deduplicated requests (no key).

Exit codes: 0 equal, 1 a difference, 2 usage, 3 DataFusion missing (skip).
"""

import json
import math
import pathlib
import sys
from datetime import datetime

SQL_DIR = pathlib.Path(__file__).resolve().parent.parent / "sql"
DEDUP = "team_requests.sql"
ANALYSIS = "team_analysis.sql"
KEY_EXPR = {
    "day": "to_char(time, '%Y-%m-%d')",
    "model": "model",
    None: "''",
}


def normalise(value):
    """Epoch milliseconds for timestamps; other values unchanged."""
    if isinstance(value, datetime):
        return round(value.timestamp() * 1000)
    return value


def same(a, b):
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None:
            return a is b
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def compare(name, spec, got_rows):
    """Differences between expected and DataFusion rows, as messages."""
    want = spec["rows"]
    cols = sorted({c for r in want for c in r}) if want else []
    sort = spec.get("sort") or cols
    key = lambda r: tuple(str(normalise(r.get(c))) for c in sort)
    want = sorted(want, key=key)
    got = sorted(({c: normalise(r.get(c)) for c in cols} for r in got_rows), key=key)
    if len(want) != len(got):
        return [f"{name}: {len(got)} rows from DataFusion, {len(want)} from cachewise"]
    problems = []
    for i, (w, g) in enumerate(zip(want, got)):
        for c in cols:
            if not same(w.get(c), g.get(c)):
                problems.append(f"{name}: row {i} column {c}: DataFusion {g.get(c)!r}, cachewise {w.get(c)!r}")
    return problems[:20]


def run(bundle_dir, expected):
    try:
        from datafusion import SessionContext
    except ImportError:
        print("skip: the datafusion Python package is not installed (python3 -m pip install datafusion)")
        return 3
    ctx = SessionContext()
    ctx.register_parquet("bundles", str(bundle_dir))
    deduped = ctx.sql((SQL_DIR / DEDUP).read_text())
    ctx.register_view("deduped", deduped)
    cache = SessionContext()
    if expected.get("cache_bundles"):
        cache.register_parquet("bundles", expected["cache_bundles"])
        cache.register_view("requests", cache.sql((SQL_DIR / DEDUP).read_text()))
        cache.register_view("analysis", cache.sql((SQL_DIR / ANALYSIS).read_text()))
    queries = expected["queries"]
    problems = []
    files = sorted(p.name for p in SQL_DIR.glob("*.sql"))
    for name in files:
        spec = queries.get(name)
        if spec is None:
            problems.append(f"{name}: no expected result from cachewise (add it to tests/team.rs)")
            continue
        if name == DEDUP:
            result = ctx.sql("SELECT * FROM deduped")
        elif spec.get("over") == "cache":
            result = cache.sql((SQL_DIR / name).read_text())
        else:
            if ctx.table_exist("requests"):
                ctx.deregister_table("requests")
            key = KEY_EXPR[spec.get("key")]
            ctx.register_view("requests", ctx.sql(f"SELECT *, {key} AS key, '' AS sub, 1 AS counted FROM deduped"))
            result = ctx.sql((SQL_DIR / name).read_text())
        rows = result.to_arrow_table().to_pylist()
        found = compare(name, spec, rows)
        problems.extend(found)
        print(f"{'ok  ' if not found else 'FAIL'} {name}: {len(rows)} rows")
    for p in problems:
        print(p)
    print(f"{len(files) - len({p.split(':')[0] for p in problems})} passed, "
          f"{len({p.split(':')[0] for p in problems})} failed")
    return 1 if problems else 0


def main(argv):
    if len(argv) != 3:
        print(next(l for l in __doc__.splitlines() if l.startswith("usage:")), file=sys.stderr)
        return 2
    expected = json.loads(pathlib.Path(argv[2]).read_text())
    return run(pathlib.Path(argv[1]), expected)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
