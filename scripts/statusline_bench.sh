#!/usr/bin/env bash
# Status-line benchmark: `cachewise statusline` beside
# `ccusage statusline` on the same stdin, for a 50 MB transcript with the
# 1 GiB tree ingested beside it. Quotes p95 from hyperfine's JSON for
#   first  - no status-line state yet (and no cached store figures)
#   steady - nothing changed since the last call
#   append - one response appended before each call
#   ccusage (its own cache on, as Claude Code would run it)
# Usage: scripts/statusline_bench.sh TREE CORPUS [CCUSAGE]
# TREE is a Claude Code config dir of about 1 GiB (the benchmark kit's
# mkcorpus.py over the public `real` corpus: --mb 1024 --seed 1); CORPUS
# is that public corpus's config dir (its transcripts make the 50 MB one);
# CCUSAGE defaults to ccusage on the PATH (20.0.24). RUNS sets the runs per command
# (default 30), MB the transcript's size (default 50), CW a cachewise binary
# to use instead of building the release one.
set -euo pipefail
tree=${1:?usage: scripts/statusline_bench.sh TREE CORPUS [CCUSAGE]}
corpus=${2:?usage: scripts/statusline_bench.sh TREE CORPUS [CCUSAGE]}
ccusage=${3:-ccusage}
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${CW:-}" ]; then
  cw=$CW
else
  export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/cachewise-release}
  cargo build --release --manifest-path "$here/Cargo.toml" >&2
  cw="$CARGO_TARGET_DIR/release/cachewise"
fi
[ -d "$tree/projects" ] || { echo "$tree: no projects/ (build the tree first)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
big=$work/root
session=5e55b0a1-0000-4000-8000-000000000050
transcript=$big/projects/-bench-statusline/$session.jsonl
mkdir -p "$(dirname "$transcript")"
# 50 MB: the real corpus's main transcripts, cloned with fresh ids, in one
# session, timestamps moved to end now.
python3 - "$corpus/projects" "$transcript" "$session" "${MB:-50}" <<'PY'
import glob, os, re, sys, datetime
src, out, session, mb = sys.argv[1], sys.argv[2], sys.argv[3].encode(), int(sys.argv[4])
files = [f for f in sorted(glob.glob(os.path.join(src, "*", "*.jsonl")))]
blob = b"".join(open(f, "rb").read() for f in files)
lines = [l for l in blob.split(b"\n") if l.strip()]
ts = re.compile(rb'"timestamp":"[^"]*"')
sid = re.compile(rb'"sessionId":"[^"]*"')
ids = re.compile(rb'"(msg_|req_)([A-Za-z0-9]+)"')
target, size, n, body = mb * 1024 * 1024, 0, 0, []
while size < target:
    for l in lines:
        n += 1
        l = sid.sub(b'"sessionId":"' + session + b'"', l)
        l = ids.sub(lambda m: b'"' + m.group(1) + m.group(2) + b"x%d" % (n // 1000) + b'"', l)
        body.append(l)
        size += len(l) + 1
        if size >= target:
            break
now = datetime.datetime.now(datetime.timezone.utc)
start = now - datetime.timedelta(seconds=2 * len(body))
with open(out, "wb") as f:
    for i, l in enumerate(body):
        t = (start + datetime.timedelta(seconds=2 * i)).strftime("%Y-%m-%dT%H:%M:%S.000Z").encode()
        f.write(ts.sub(b'"timestamp":"' + t + b'"', l) + b"\n")
PY
tail -n 3 "$transcript" > "$work/append.jsonl"
ls -l "$transcript" >&2
data=$work/data
export CLAUDE_CONFIG_DIR=$tree,$big
"$cw" --data-dir "$data" --quiet ingest >&2
printf '{"session_id":"%s","transcript_path":"%s","model":{"id":"claude-opus-4-6","display_name":"Opus"},"workspace":{"current_dir":"/tmp"},"cost":{"total_cost_usd":1.0},"rate_limits":{"five_hour":{"used_percentage":40,"resets_at":%s}}}' \
  "$session" "$transcript" "$(( $(date +%s) + 3600 ))" > "$work/in.json"
cat "$tree"/projects/*/*.jsonl "$transcript" >/dev/null # into the page cache
line="$cw --data-dir $data statusline < $work/in.json"
"$cw" --data-dir "$data" statusline < "$work/in.json"
"$ccusage" statusline --offline < "$work/in.json" || true
hyperfine --warmup 2 --runs "${RUNS:-30}" --export-json "$work/h.json" \
  -n first --prepare "rm -rf $data/statusline" "$line" \
  -n steady --prepare true "$line" \
  -n append --prepare "cat $work/append.jsonl >> $transcript" "$line" \
  -n ccusage --prepare true "$ccusage statusline --offline < $work/in.json"
python3 - "$work/h.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    t = sorted(r["times"])
    p95 = t[min(len(t) - 1, int(round(0.95 * (len(t) - 1))))]
    print(f'{r["command"]:<8} mean {r["mean"] * 1000:8.1f} ms   p95 {p95 * 1000:8.1f} ms   ({len(t)} runs)')
PY
