"""The lessons' diagrams, drawn from the same index formulas the stages' answers use (each
module names the answer lines it mirrors) and written as SVG into the stage folders, so the
student edition ships each stage's figures with its lesson. scripts/figures.sh regenerates
them; scripts/figures.sh --check (and the host test tests/host/figures_test.py) fails when a
committed figure differs from what the code draws."""
import importlib
import pathlib

# One module per family of diagrams; each has figures(): [(path, make), ...].
MODULES = ("shared_memory", "warp", "grid", "merge", "multi_gpu")

INSTALL = "python3 -m pip install -r scripts/requirements-figures.txt"


def all_figures():
    """Every figure of the stages this copy has: (path relative to the repository root,
    function that draws it). A partial student edition (export_student.sh --stages) lacks
    the later stage folders, and with them their figures."""
    from course.registry import ROOT
    found = []
    for name in MODULES:
        found.extend(importlib.import_module(f"{__name__}.{name}").figures())
    paths = [path for path, _ in found]
    assert len(paths) == len(set(paths)), "two figures share a path"
    return sorted((path, make) for path, make in found
                  if (ROOT / pathlib.PurePosixPath(path).parts[0] /
                      pathlib.PurePosixPath(path).parts[1]).is_dir())
