#!/usr/bin/env python3
"""Compares each session's cost with Claude Code's own account of it (the
last `cost-state` line of its transcript, Claude Code 2.1.33x): cachewise's
`report session --json` and ccusage's `session --json`, side by side.

Usage: compare_cost_state.py TREE OURS.json CCUSAGE.json
TREE is a Claude config directory (it holds projects/). Only sessions whose
lineage is their own are compared (a fork's totals carry its parent's on).
"""
import glob
import json
import os
import sys


def claude_code_totals(tree):
    """Per session file: the last cost-state's totalCostUSD and startTime."""
    out = {}
    for path in glob.glob(os.path.join(tree, "projects", "*", "*.jsonl")):
        last = None
        for line in open(path, encoding="utf-8"):
            if '"type":"cost-state"' in line:
                last = json.loads(line)
        if last is not None:
            out[os.path.basename(path)[:-6]] = (last["totalCostUSD"], last.get("startTime"))
    return out


def main():
    tree, ours_path, peer_path = sys.argv[1:4]
    claude = claude_code_totals(tree)
    lineages = {}
    for sid, (_, start) in claude.items():
        lineages.setdefault(start, []).append(sid)
    own = {sid for sids in lineages.values() if len(sids) == 1 for sid in sids}
    ours = {r["session_id"]: r["cost_usd"] for r in json.load(open(ours_path))["rows"]}
    peer = {s["sessionId"]: s["totalCost"] for s in json.load(open(peer_path))["sessions"]}
    rows, exact_ours, exact_peer, worst_peer = [], 0, 0, (0.0, "")
    for sid in sorted(own):
        cc = claude[sid][0]
        a, b = ours.get(sid, 0.0), peer.get(sid, 0.0)
        exact_ours += abs(a - cc) < 1e-6
        exact_peer += abs(b - cc) < 1e-6
        if cc - b > worst_peer[0]:
            worst_peer = (cc - b, sid)
        rows.append((sid, cc, a, b))
    n = len(rows)
    print(f"sessions with a cost-state of their own lineage: {n}")
    print(f"  cachewise equal to Claude Code's own to the micro-dollar: {exact_ours} of {n}")
    print(f"  ccusage equal to Claude Code's own to the micro-dollar:   {exact_peer} of {n}")
    print(f"  totals: Claude Code ${sum(r[1] for r in rows):.4f}, cachewise ${sum(r[2] for r in rows):.4f}, "
          f"ccusage ${sum(r[3] for r in rows):.4f}")
    if worst_peer[1]:
        sid = worst_peer[1]
        print(f"  largest ccusage shortfall: {sid}: Claude Code ${claude[sid][0]:.6f}, "
              f"cachewise ${ours.get(sid, 0):.6f}, ccusage ${peer.get(sid, 0):.6f}")
    sys.exit(0 if exact_ours == n else 1)


if __name__ == "__main__":
    main()
