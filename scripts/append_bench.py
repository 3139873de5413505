"""Appends about 100 KB of new assistant responses to each of 10 transcripts
of a benchmark tree (about 1 MB in all), as a live session would: new
message and request ids, timestamps of now. Usage: append_bench.py TREE"""
import datetime, glob, json, sys, uuid

tree = sys.argv[1]
files = sorted(glob.glob(f"{tree}/projects/*/*.jsonl"))[:10]
template = None
# A long response line (the 1 GiB tree's); today's format writes short ones
# (the content of one block each), so any response line will do there.
for least in (2000, 0):
    for f in files:
        for line in open(f, encoding="utf-8"):
            if '"type":"assistant"' in line and '"usage"' in line and len(line) > least:
                template = json.loads(line)
                break
        if template:
            break
    if template:
        break
if template is None:
    sys.exit("no assistant line with usage found")
now = datetime.datetime.now(datetime.timezone.utc)
for f in files:
    out, size = [], 0
    while size < 100_000:
        d = dict(template)
        d["message"] = dict(template["message"], id="msg_bench_" + uuid.uuid4().hex)
        d["requestId"] = "req_bench_" + uuid.uuid4().hex
        d["timestamp"] = now.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        s = json.dumps(d) + "\n"
        out.append(s)
        size += len(s)
    with open(f, "a", encoding="utf-8") as fh:
        fh.write("".join(out))
