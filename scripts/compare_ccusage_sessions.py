#!/usr/bin/env python3
"""Compares `cachewise report session --json` with `ccusage claude session
--offline --json` session by session: tokens exactly, cost to the cent.

Usage: compare_ccusage_sessions.py OURS.json CCUSAGE.json
Exits 1 and lists the differences when any session differs.
"""
import json
import sys


def main():
    ours = {r["session_id"]: r for r in json.load(open(sys.argv[1]))["rows"]}
    peer = {s["sessionId"]: s for s in json.load(open(sys.argv[2]))["sessions"]}
    diffs = []
    for sid in sorted(set(ours) | set(peer)):
        a, b = ours.get(sid), peer.get(sid)
        if a is None or b is None:
            diffs.append(f"{sid}: only in {'ccusage' if a is None else 'cachewise'}")
            continue
        pairs = [
            ("input", a["input_tokens"], b["inputTokens"]),
            ("output", a["output_tokens"], b["outputTokens"]),
            ("cache_write", a["cache_write_5m_tokens"] + a["cache_write_1h_tokens"], b["cacheCreationTokens"]),
            ("cache_read", a["cache_read_tokens"], b["cacheReadTokens"]),
            ("cost_cents", round(a["cost_usd"] * 100), round(b["totalCost"] * 100)),
        ]
        for name, x, y in pairs:
            if x != y:
                diffs.append(f"{sid}: {name} cachewise={x} ccusage={y}")
    total_ours = sum(r["cost_usd"] for r in ours.values())
    total_peer = sum(s["totalCost"] for s in peer.values())
    print(f"sessions: cachewise {len(ours)}, ccusage {len(peer)}; "
          f"total cost: cachewise ${total_ours:.2f}, ccusage ${total_peer:.2f}; differences: {len(diffs)}")
    for d in diffs:
        print("  " + d)
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
