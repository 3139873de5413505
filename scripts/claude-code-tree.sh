#!/usr/bin/env bash
# A benchmark tree in today's transcript format: the real Claude Code (the
# release tests/claude_code/CLAUDE_CODE_VERSION pins, or
# CACHEWISE_CLAUDE_CODE_BIN) of two people runs scripted sessions, each
# person against a fake API of their own (the test suite's), until the
# transcripts hold MB megabytes (default 200), and they
# are kept under OUT/projects, a Claude config directory:
#   scripts/claude-code-tree.sh OUT [MB]
#   scripts/bench.sh OUT CCUSAGE
# Needs what the suite needs: root (a network namespace of its own),
# libfaketime, and the client installed as .ci/run installs it.
set -euo pipefail
out=$(realpath -m "${1:?usage: scripts/claude-code-tree.sh OUT [MB]}")
mb=${2:-200}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/cachewise-target}
CACHEWISE_TREE_OUT="$out" CACHEWISE_TREE_MB="$mb" CACHEWISE_CLAUDE_CODE=required \
  cargo test --manifest-path "$here/Cargo.toml" --test suite -- --ignored --exact claude_code::tree::claude_code_bench_tree --nocapture
