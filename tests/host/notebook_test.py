#!/usr/bin/env python3
"""The Colab notebook (docs/colab.ipynb) is valid nbformat 4 and runs only the course's own
scripts, each of which exists and is executable; its build-and-check commands live in
scripts/colab.sh, which the GPU tests run (harness.Colab.*), so the notebook cannot rot."""
import json
import os
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main():
    failures = []
    notebook = json.loads((ROOT / "docs" / "colab.ipynb").read_text())
    if notebook.get("nbformat") != 4:
        failures.append("docs/colab.ipynb is not nbformat 4")
    code = ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"]
    scripts = set()
    for cell in code:
        scripts.update(re.findall(r"scripts/[\w.]+", cell))
    if "scripts/colab.sh" not in scripts:
        failures.append("no code cell runs scripts/colab.sh")
    for script in sorted(scripts):
        path = ROOT / script
        if not path.is_file() or not os.access(path, os.X_OK):
            failures.append(f"{script} (called by the notebook) is missing or not executable")
    for failure in failures:
        print(failure)
    print(f"notebook: {len(code)} code cells, scripts {sorted(scripts)}: "
          f"{'ok' if not failures else 'FAILED'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
