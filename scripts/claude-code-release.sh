#!/usr/bin/env bash
# A new Claude Code release, checked before users run it: installs VERSION
# (default: npm's latest) beside the pinned one, runs the real-client suite
# against it, and lists the line types and fields its transcripts have that
# BASE's (default: the pinned release's) have not
# (scripts/transcript_fields.py: names only).
#   scripts/claude-code-release.sh [VERSION [BASE]]
# Needs what the suite needs (root for a network namespace of its own,
# libfaketime, tmux) and npm's registry for the install; Claude Code itself
# only ever runs with loopback alone. It exits 1 when the suite fails or the
# transcripts have anything new; once each new line type and field has a
# rule (tests/claude_code/format.rs), the release can be pinned: write
# VERSION to tests/claude_code/CLAUDE_CODE_VERSION.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pinned=$(tr -d '[:space:]' < "$here/tests/claude_code/CLAUDE_CODE_VERSION")
version=${1:-$(npm view @anthropic-ai/claude-code version)}
base=${2:-$pinned}
for v in "$version" "$base"; do
  [[ $v =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "not a release: $v" >&2; exit 2; }
done
install() {
  local dir="$HOME/.cache/cachewise-claude-code/$1"
  "$dir/node_modules/.bin/claude" --version >/dev/null 2>&1 \
    || npm install --silent --no-audit --no-fund --prefix "$dir" "@anthropic-ai/claude-code@$1"
  echo "$dir/node_modules/.bin/claude"
}
new_bin=$(install "$version")
old_bin=$(install "$base")
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/cachewise-target}
echo "== the real-client suite against Claude Code $version (pinned: $pinned)"
suite=0
CACHEWISE_CLAUDE_CODE=required CACHEWISE_CLAUDE_CODE_BIN="$new_bin" \
  cargo test --manifest-path "$here/Cargo.toml" --test suite -- claude_code:: || suite=$?
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== what $version writes that $base does not (a 3 MB tree of each)"
tree() {
  CACHEWISE_CLAUDE_CODE_BIN="$2" "$here/scripts/claude-code-tree.sh" "$work/$1" 3 >"$work/$1.log" 2>&1 \
    || { echo "writing the $1 tree failed:" >&2; tail -20 "$work/$1.log" >&2; exit 1; }
}
tree old "$old_bin"
tree new "$new_bin"
fields=0
python3 "$here/scripts/transcript_fields.py" "$work/old" "$work/new" || fields=$?
if [ "$suite" -ne 0 ]; then
  echo "the suite failed against $version (a line type or assistant field without a rule fails it too:" >&2
  echo "tests/claude_code/format.rs)" >&2
fi
exit $((suite || fields))
