#!/usr/bin/env bash
# Side-by-side benchmark against ccusage on the 1 GiB tree:
# cold ingest + daily report, warm daily report, and after appending about
# 1 MB to 10 transcripts; then peak memory of the cold run.
#   scripts/bench.sh TREE CCUSAGE
# TREE is a Claude Code config dir of about 1 GiB (the benchmark kit's
# mkcorpus.py over the public `real` corpus: --mb 1024 --seed 1).
# CCUSAGE is the ccusage 20.0.24 binary (npm install ccusage@20.0.24).
# The append runs write to a copy of TREE, which is removed afterwards, so
# TREE stays as built and runs are comparable.
set -euo pipefail
source_tree=${1:?usage: scripts/bench.sh TREE CCUSAGE}
ccusage=${2:?usage: scripts/bench.sh TREE CCUSAGE}
here=$(cd "$(dirname "$0")/.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/cachewise-release}
cargo build --release --manifest-path "$here/Cargo.toml" >&2
cw="$CARGO_TARGET_DIR/release/cachewise"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tree=$work/tree
data=$work/data
cp -a "$source_tree" "$tree"
cat "$tree"/projects/*/*.jsonl >/dev/null # into the page cache
# The copy's gigabyte would otherwise be written back about 30 s later,
# in the middle of the timed runs (the kernel's dirty_expire), and stall
# every fsync of the store behind it.
sync
append="python3 $here/scripts/append_bench.py $tree"
run="$cw --claude-dir $tree --data-dir $data --tz UTC --quiet report daily --json"
export CLAUDE_CONFIG_DIR=$tree
echo "peak RSS, cold run:" >&2
/usr/bin/time -f "cachewise %M KB %e s" $run >/dev/null
/usr/bin/time -f "ccusage   %M KB %e s" "$ccusage" claude daily --offline -z UTC --json >/dev/null
hyperfine -N --warmup 1 --runs "${RUNS:-10}" \
  -n ccusage --prepare true "$ccusage claude daily --offline -z UTC --json" \
  -n cold --prepare "rm -rf $data" "$run" \
  -n warm --prepare true "$run" \
  -n append --prepare "$append" "$run"
