#!/usr/bin/env python3
"""Compares each session with Claude Code's own account of it (the last
`cost-state` line of its transcript, Claude Code 2.1.33x): cachewise's
`report session --json` (tokens and cost) and ccusage's `session --json`
(tokens; ccusage 20 prices models it knows, and says which it does not).

Usage: compare_cost_state.py TREE OURS.json CCUSAGE.json
TREE is a Claude config directory (it holds projects/). Only sessions whose
lineage is their own are compared (a fork's totals carry its parent's on).
Exits 1 when cachewise differs from Claude Code on any of them.
"""
import glob
import json
import os
import sys

CLASSES = ("input", "output", "cache_write", "cache_read")


def claude_code_totals(tree):
    """Per session file: the last cost-state's cost, tokens and startTime."""
    out = {}
    for path in glob.glob(os.path.join(tree, "projects", "*", "*.jsonl")):
        last = None
        for line in open(path, encoding="utf-8"):
            if '"type":"cost-state"' in line:
                last = json.loads(line)
        if last is None:
            continue
        tokens = dict.fromkeys(CLASSES, 0)
        for u in last.get("modelUsage", {}).values():
            tokens["input"] += u.get("inputTokens", 0)
            tokens["output"] += u.get("outputTokens", 0)
            tokens["cache_write"] += u.get("cacheCreationInputTokens", 0)
            tokens["cache_read"] += u.get("cacheReadInputTokens", 0)
        out[os.path.basename(path)[:-6]] = (last["totalCostUSD"], tokens, last.get("startTime"))
    return out


def ours_of(path):
    rows = json.load(open(path))["rows"]
    return {r["session_id"]: (r["cost_usd"], {
        "input": r["input_tokens"], "output": r["output_tokens"],
        "cache_write": r["cache_write_5m_tokens"] + r["cache_write_1h_tokens"],
        "cache_read": r["cache_read_tokens"]}) for r in rows}


def peer_of(path):
    d = json.load(open(path))
    rows = d.get("session", d.get("sessions", []))
    return {s.get("period", s.get("sessionId")): (s["totalCost"], {
        "input": s["inputTokens"], "output": s["outputTokens"],
        "cache_write": s["cacheCreationTokens"], "cache_read": s["cacheReadTokens"]}) for s in rows}


def main():
    tree, ours_path, peer_path = sys.argv[1:4]
    claude = claude_code_totals(tree)
    by_start = {}
    for sid, (_, _, start) in claude.items():
        by_start.setdefault(start, []).append(sid)
    own = sorted(sid for sids in by_start.values() if len(sids) == 1 for sid in sids)
    ours, peer = ours_of(ours_path), peer_of(peer_path)
    none = (0.0, dict.fromkeys(CLASSES, 0))
    ours_exact = sum(abs(ours.get(s, none)[0] - claude[s][0]) < 1e-6 and ours.get(s, none)[1] == claude[s][1]
                     for s in own)
    peer_tokens = sum(peer.get(s, none)[1] == claude[s][1] for s in own)
    short = [s for s in own if peer.get(s, none)[1] != claude[s][1]]
    print(f"sessions of a lineage of their own: {len(own)}")
    print(f"  cachewise equal to Claude Code's cost-state (cost to the micro-dollar, every token class): "
          f"{ours_exact} of {len(own)}")
    print(f"  ccusage's tokens equal to Claude Code's cost-state: {peer_tokens} of {len(own)}")
    total = lambda m, s, k: sum(m.get(x, none)[1][k] for x in s)
    for k in CLASSES:
        print(f"  {k:>11}: Claude Code {sum(claude[s][1][k] for s in own):>12,}  cachewise {total(ours, own, k):>12,}"
              f"  ccusage {total(peer, own, k):>12,}")
    print(f"  cost: Claude Code ${sum(claude[s][0] for s in own):.4f}, cachewise "
          f"${sum(ours.get(s, none)[0] for s in own):.4f}, ccusage ${sum(peer.get(s, none)[0] for s in own):.4f}")
    if short:
        s = short[0]
        print(f"  e.g. {s}: Claude Code ${claude[s][0]:.6f} {claude[s][1]}; cachewise ${ours.get(s, none)[0]:.6f} "
              f"{ours.get(s, none)[1]}; ccusage ${peer.get(s, none)[0]:.6f} {peer.get(s, none)[1]}")
    sys.exit(0 if ours_exact == len(own) else 1)


if __name__ == "__main__":
    main()
