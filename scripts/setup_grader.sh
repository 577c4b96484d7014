#!/usr/bin/env bash
# Installs what the instructors' grader needs beyond the course's build: libclang's Python
# bindings, its C++ lexer (scripts/requirements-grader.txt). Nothing to do where it is there.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if python3 -c 'import clang.cindex; clang.cindex.Index.create()' 2>/dev/null; then
  exit 0
fi
echo "Installing: libclang (scripts/requirements-grader.txt)"
# A system Python that refuses pip installs (PEP 668) is told that this one is meant.
python3 -m pip install -q -r "$root/scripts/requirements-grader.txt" 2>/dev/null ||
  python3 -m pip install -q --break-system-packages -r "$root/scripts/requirements-grader.txt"
