#!/usr/bin/env python3
"""Writes the invented Claude Code transcript tree under tree/ (next to this
script). Every figure, id and text is made up; running it again gives the
same bytes."""
import json, os
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
PROJ = os.path.join(HERE, "tree", "projects", "-home-alice-proj")
SONNET = "claude-sonnet-4-5-20250929"
OPUS = "claude-opus-4-1-20250805"
HAIKU = "claude-haiku-4-5-20251001"
CWD = "/home/alice/proj"
VERSION = "2.0.40"

def ts(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"

def usage(inp, w5, w1h, read, out, calls=None):
    u = {"input_tokens": inp, "cache_creation_input_tokens": w5 + w1h,
         "cache_read_input_tokens": read,
         "cache_creation": {"ephemeral_5m_input_tokens": w5, "ephemeral_1h_input_tokens": w1h},
         "output_tokens": out, "service_tier": "standard"}
    if calls is not None:
        u["iterations"] = calls
    return u

class Session:
    def __init__(self, sid, tag, agent=None):
        self.sid, self.tag, self.agent = sid, tag, agent
        self.lines, self.parent, self.n = [], None, 0

    def _base(self, kind, t, uid):
        d = {"parentUuid": self.parent, "isSidechain": self.agent is not None,
             "userType": "external", "cwd": CWD, "sessionId": self.sid,
             "version": VERSION, "gitBranch": "main"}
        if self.agent:
            d["agentId"] = self.agent
        d.update({"type": kind, "uuid": uid, "timestamp": ts(t)})
        self.parent = uid
        return d

    def _add(self, d):
        # key order as Claude Code writes it: type, uuid, timestamp last
        order = [k for k in d if k not in ("type", "uuid", "timestamp")] + ["type", "uuid", "timestamp"]
        self.lines.append({k: d[k] for k in order})

    def _uid(self, kind, i=0):
        return f"{self.tag}{kind}{self.n:03d}{i:02d}-5e1f-4a2b-8c3d-0e1f2a3b4c5d"

    def user(self, t, text):
        self.n += 1
        d = self._base("user", t, self._uid("d"))
        d["message"] = {"role": "user", "content": text}
        self._add(d)

    def assistant(self, t, texts, u, model=SONNET):
        """One response: one line per text block, the same message id and
        request id; earlier lines carry a small running output count."""
        self.n += 1
        mid = f"msg_01{self.tag.upper()}{self.n:02d}DemoAliceInvented"
        rid = f"req_011C{self.tag.upper()}{self.n:02d}DemoAliceInvented"
        for i, text in enumerate(texts):
            last = i + 1 == len(texts)
            lu = dict(u)
            if not last:
                lu = {k: v for k, v in u.items() if k != "iterations"}
                lu["output_tokens"] = 1 + i
            d = self._base("assistant", t + timedelta(milliseconds=400 * i), self._uid("a", i))
            d["message"] = {"model": model, "id": mid, "type": "message", "role": "assistant",
                            "content": [{"type": "text", "text": text}],
                            "stop_reason": "end_turn" if last else None, "stop_sequence": None,
                            "usage": lu}
            d["requestId"] = rid
            self._add(d)

    def compact(self, t, pre):
        self.n += 1
        d = self._base("system", t, self._uid("c"))
        d.update({"subtype": "compact_boundary", "content": "Conversation compacted",
                  "isMeta": False, "level": "info",
                  "compactMetadata": {"trigger": "manual", "preTokens": pre}})
        self._add(d)
        self.parent = None

    def write(self, rel):
        path = os.path.join(PROJ, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", newline="\n") as f:
            for d in self.lines:
                f.write(json.dumps(d, separators=(",", ":")) + "\n")

M = timedelta(minutes=1)
S = timedelta(seconds=1)

# Session A, 2026-02-16: a morning of work, an idle gap of 1 h 35 min (the
# 5-minute cache is gone: the prefix is written again), a manual /compact,
# one Opus answer, and a sub-agent.
A = "3f1c2b7a-5d4e-4c1a-9b2f-0a1b2c3d4e5f"
a = Session(A, "aa")
t = datetime(2026, 2, 16, 9, 0, 12, tzinfo=timezone.utc)
a.user(t, "Hello, please look at the README of this demo project.")
a.assistant(t + 58 * S, ["Sure, reading it now.", "The README describes a demo."], usage(3, 14210, 0, 0, 212))
a.user(t + 2 * M, "Add a section about installation.")
a.assistant(t + 2 * M + 8 * S, ["Added an installation section."], usage(5, 1820, 0, 14210, 388))
a.user(t + 5 * M, "Thanks. Now list the files in src.")
a.assistant(t + 5 * M + 9 * S, ["Listing the files.", "There are three files in src."], usage(4, 960, 0, 16030, 175))
a.user(t + 9 * M, "Explain what main does, briefly.")
a.assistant(t + 9 * M + 12 * S, ["It prints a greeting."], usage(6, 640, 0, 16990, 301))
# idle gap: 09:09 -> 10:44
t2 = datetime(2026, 2, 16, 10, 44, 3, tzinfo=timezone.utc)
a.user(t2, "Back again. Could you rename the greeting function?")
a.assistant(t2 + 11 * S, ["Renamed it to say_hello."], usage(3, 18015, 0, 0, 264))
a.user(t2 + 3 * M, "Please review the change with more care.")
a.assistant(t2 + 3 * M + 20 * S, ["Reviewed: the rename is consistent.", "No other callers exist."], usage(8, 0, 1210, 18015, 640), model=OPUS)
a.user(t2 + 6 * M, "Ask a helper to count the lines of code.")
a.assistant(t2 + 6 * M + 7 * S, ["Starting a helper agent."], usage(5, 520, 0, 19225, 140))
a.assistant(t2 + 8 * M, ["The helper counted 42 lines."], usage(4, 380, 0, 19745, 96))
a.compact(t2 + 10 * M, 90000)
a.user(t2 + 11 * M, "Continue with the changelog entry.")
a.assistant(t2 + 11 * M + 14 * S, ["Wrote a changelog entry."], usage(3, 6120, 0, 9870, 233))
a.write(f"{A}.jsonl")

sub = Session(A, "ab", agent="a7f3e21")
ts0 = t2 + 6 * M + 20 * S
sub.user(ts0, "Count the lines of code in src.")
sub.assistant(ts0 + 4 * S, ["Counting."], usage(3, 4410, 0, 0, 58), model=HAIKU)
sub.assistant(ts0 + 15 * S, ["Forty-two lines in all."], usage(2, 210, 0, 4410, 31), model=HAIKU)
sub.assistant(ts0 + 25 * S, ["Done."], usage(2, 90, 0, 4620, 12), model=HAIKU)
sub.write(f"{A}/subagents/agent-a7f3e21.jsonl")

# Session B, 2026-02-17 morning: one answer made of two API calls
# (usage.iterations, as Claude Code 2.1 logs it).
B = "8e2d4c6f-1a3b-4d5e-8f70-9a8b7c6d5e4f"
b = Session(B, "bb")
t = datetime(2026, 2, 17, 8, 30, 45, tzinfo=timezone.utc)
b.user(t, "Good morning. Please write a test for say_hello.")
b.assistant(t + 9 * S, ["Writing a test."], usage(3, 13980, 0, 0, 198))
b.user(t + 3 * M, "Run it, please.")
b.assistant(t + 3 * M + 6 * S, ["It passes."], usage(4, 410, 0, 13980, 87))
b.user(t + 5 * M, "Add a second test for an empty name.")
calls = [
    {"type": "message", "input_tokens": 2, "cache_creation_input_tokens": 700,
     "cache_read_input_tokens": 14390, "output_tokens": 120,
     "cache_creation": {"ephemeral_5m_input_tokens": 700, "ephemeral_1h_input_tokens": 0}},
    {"type": "message", "input_tokens": 1, "cache_creation_input_tokens": 0,
     "cache_read_input_tokens": 15090, "output_tokens": 160,
     "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}},
]
b.assistant(t + 5 * M + 18 * S, ["Added a second test.", "Both tests pass."], usage(3, 700, 0, 29480, 280, calls))
b.user(t + 8 * M, "Format the code.")
b.assistant(t + 8 * M + 5 * S, ["Formatted."], usage(5, 330, 0, 15090, 45))
b.user(t + 12 * M, "Commit message suggestion?")
b.assistant(t + 12 * M + 7 * S, ["Suggested: add tests for say_hello."], usage(4, 260, 0, 15420, 61))
b.user(t + 14 * M, "Thank you, that is all.")
b.assistant(t + 14 * M + 4 * S, ["You are welcome."], usage(3, 120, 0, 15680, 22))
b.write(f"{B}.jsonl")

# Session C, 2026-02-17 afternoon: a short one with 1-hour cache writes.
C = "c0ffee00-2b4d-4e6f-a1b3-c5d7e9f10203"
c = Session(C, "cc")
t = datetime(2026, 2, 17, 15, 2, 0, tzinfo=timezone.utc)
c.user(t, "Summarise the project in one sentence.")
c.assistant(t + 8 * S, ["A small demo that greets people."], usage(3, 0, 12500, 0, 74))
c.user(t + 2 * M, "Suggest one improvement.")
c.assistant(t + 2 * M + 10 * S, ["Add a command line flag for the name.", "It is a small change."], usage(4, 0, 380, 12500, 150))
c.user(t + 4 * M, "Do it.")
c.assistant(t + 4 * M + 16 * S, ["Added the flag."], usage(5, 0, 900, 12880, 410))
c.user(t + 7 * M, "Update the README too.")
c.assistant(t + 7 * M + 9 * S, ["Updated the README."], usage(4, 0, 520, 13780, 205))
c.user(t + 9 * M, "Great, stop here.")
c.assistant(t + 9 * M + 3 * S, ["Stopping."], usage(3, 0, 60, 14300, 9))
c.assistant(t + 9 * M + 8 * S, ["Session wrapped up."], usage(3, 0, 40, 14360, 14))
c.write(f"{C}.jsonl")
