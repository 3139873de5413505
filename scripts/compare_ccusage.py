#!/usr/bin/env python3
"""Compares cachewise with ccusage day by day and session by session.

Usage:
  compare_ccusage.py DIR NAME

where DIR holds the four JSON reports of one corpus, run with the same
transcripts and time zone:
  NAME.cw.daily.json    cachewise --tz UTC report daily --json
  NAME.cw.session.json  cachewise --tz UTC report session --json
  NAME.cc.daily.json    ccusage claude daily --offline --json -z UTC
  NAME.cc.session.json  ccusage claude session --offline --json -z UTC

Prints both totals, then every day and every session whose cost differs by
a cent or more (or whose tokens differ), with the token classes that differ.
Token classes are compared as ccusage names them: cache writes are the sum
of cachewise's 5-minute and 1-hour writes. Python 3 standard library only.
"""
import json
import os
import sys

CLASSES = [
    ("input", "input_tokens", "inputTokens"),
    ("output", "output_tokens", "outputTokens"),
    ("cache_read", "cache_read_tokens", "cacheReadTokens"),
]


def load(path):
    with open(path) as f:
        return json.load(f)


def tokens(ours, peer):
    """The token classes that differ, as 'name cachewise-ccusage' strings."""
    out = []
    for name, a, b in CLASSES:
        if ours.get(a, 0) != peer.get(b, 0):
            out.append(f"{name} {ours.get(a, 0) - peer.get(b, 0):+d}")
    cw = ours.get("cache_write_5m_tokens", 0) + ours.get("cache_write_1h_tokens", 0)
    if cw != peer.get("cacheCreationTokens", 0):
        out.append(f"cache_write {cw - peer.get('cacheCreationTokens', 0):+d}")
    return out


def compare(kind, ours, peer):
    """Lists keys whose cost differs by >= 1 cent or whose tokens differ."""
    lines, big, total = [], 0, 0.0
    for key in sorted(set(ours) | set(peer)):
        a, b = ours.get(key, {}), peer.get(key, {})
        ca, cb = a.get("cost_usd", 0.0), b.get("totalCost", 0.0)
        diff = ca - cb
        total += diff
        tok = tokens(a, b)
        if abs(diff) >= 0.01 or tok or not a or not b:
            big += abs(diff) >= 0.01
            where = "" if a and b else (" only in ccusage" if not a else " only in cachewise")
            req = f" requests {a['requests']}" if "requests" in a else ""
            lines.append(f"  {key}: cachewise ${ca:.4f} ccusage ${cb:.4f} diff {diff:+.4f}"
                         f"{req}{where} {' '.join(tok)}")
    print(f"{kind}: {len(ours)} in cachewise, {len(peer)} in ccusage; "
          f"{big} differ by >= 1 cent; sum of differences {total:+.4f}")
    for line in lines:
        print(line)


def main():
    base, name = sys.argv[1], sys.argv[2]
    p = lambda s: os.path.join(base, f"{name}.{s}.json")
    cw_d, cc_d = load(p("cw.daily")), load(p("cc.daily"))
    cw_s, cc_s = load(p("cw.session")), load(p("cc.session"))
    ours_total = cw_d["total"]["cost_usd"]
    peer_total = cc_d["totals"]["totalCost"]
    print(f"{name}: cachewise ${ours_total:.4f} ({cw_d['total']['requests']} requests), "
          f"ccusage ${peer_total:.4f}, difference {ours_total - peer_total:+.4f}")
    print(f"  cachewise calls: {json.dumps(cw_d.get('calls', {}))}")
    if cw_d.get("unknown_models"):
        print(f"  cachewise unknown models: {cw_d['unknown_models']}")
    compare("days",
            {r["period"]: r for r in cw_d["rows"]},
            {r["date"]: r for r in cc_d["daily"]})
    compare("sessions",
            {r["session_id"]: r for r in cw_s["rows"]},
            {r["sessionId"]: r for r in cc_s["sessions"]})


if __name__ == "__main__":
    main()
