#!/usr/bin/env python3
"""Alternating cold runs of two (or more) cachewise binaries on one tree, so
a slow spell of a shared VM falls on both: median wall time and CPU each.
   scripts/ab.py TREE BIN_A BIN_B [...]     (N=15 pairs by default)
Each run is `report daily --json` into an emptied data dir, as the cold
run of scripts/bench.sh."""
import os, resource, shutil, statistics, subprocess, sys, tempfile

tree, bins = sys.argv[1], sys.argv[2:]
n = int(os.environ.get("N", "15"))
data = tempfile.mkdtemp()
wall = {b: [] for b in bins}
cpu = {b: [] for b in bins}
subprocess.run(f"cat {tree}/projects/*/*.jsonl >/dev/null", shell=True)  # into the page cache
for i in range(n):
    for b in bins if i % 2 == 0 else bins[::-1]:
        shutil.rmtree(data, ignore_errors=True)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = __import__("time").perf_counter()
        cmd = [b, "--claude-dir", tree, "--data-dir", data, "--tz", "UTC", "-q", "report", "daily", "--json"]
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        wall[b].append(__import__("time").perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu[b].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
shutil.rmtree(data, ignore_errors=True)
for b in bins:
    w, c = wall[b], cpu[b]
    print(f"{b}: median {statistics.median(w) * 1000:.1f} ms, min {min(w) * 1000:.1f} ms, CPU median {statistics.median(c) * 1000:.0f} ms")
