#!/usr/bin/env python3
"""Which line types and fields one transcript tree has that another has not:
what a new Claude Code release changed in the format cachewise reads.

Usage: transcript_fields.py OLD_TREE NEW_TREE
Each tree is a directory holding `.jsonl` transcripts (a Claude config
directory, or its projects/). Prints the line types (`type`, with `subtype`
where there is one) and the field paths (up to four levels of objects,
`type:a.b.c`) found in only one of them, with how many lines carry each.
Names only: no value is ever printed, and message bodies, tool results and
request shapes (content) are not descended into.
Exits 1 when the new tree has a line type or field the old one has not.
"""
import collections
import json
import os
import sys

# Objects whose keys are content (message bodies, tool inputs and results,
# the system prompt and tools behind a request shape), never listed.
CONTENT = {"message", "toolUseResult", "shape", "snapshot", "content", "input", "attachment"}
DEPTH = 4


def fields(tree):
    """(line types, field paths), each a Counter of lines."""
    types, paths = collections.Counter(), collections.Counter()
    for root, _, files in os.walk(tree):
        for name in files:
            if name.endswith(".jsonl"):
                read(os.path.join(root, name), types, paths)
    return types, paths


def read(path, types, paths):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if not isinstance(obj, dict):
                continue
            kind = str(obj.get("type"))
            if "subtype" in obj:
                kind += "/" + str(obj.get("subtype"))
            types[kind] += 1
            walk(obj, kind + ":", 0, paths)


def walk(obj, prefix, depth, paths):
    for key, value in obj.items():
        path = prefix + key
        paths[path] += 1
        if isinstance(value, dict) and depth + 1 < DEPTH and key not in CONTENT:
            walk(value, path + ".", depth + 1, paths)


def safe(name):
    """A key as harmless text: no control or bidi character, at most 100."""
    shown = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in name[:100])
    return shown + ("..." if len(name) > 100 else "")


def show(title, only, counts):
    print(f"{title}: {len(only)}")
    for name in sorted(only):
        print(f"  {safe(name)} ({counts[name]} lines)")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    (old_types, old_paths), (new_types, new_paths) = fields(sys.argv[1]), fields(sys.argv[2])
    new_kinds = set(new_types) - set(old_types)
    new_fields = {p for p in set(new_paths) - set(old_paths) if p.split(":", 1)[0] not in new_kinds}
    show("line types only in the new tree", new_kinds, new_types)
    show("fields only in the new tree (of line types both have)", new_fields, new_paths)
    show("line types only in the old tree", set(old_types) - set(new_types), old_types)
    gone = {p for p in set(old_paths) - set(new_paths) if p.split(":", 1)[0] in new_types}
    show("fields only in the old tree (of line types both have)", gone, old_paths)
    sys.exit(1 if new_kinds or new_fields else 0)


if __name__ == "__main__":
    main()
