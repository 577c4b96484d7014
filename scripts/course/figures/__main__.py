"""scripts/figures.sh: write every lesson diagram, or with --check compare them with the
committed files. The code of the diagrams: course/figures/."""
import argparse
import pathlib
import sys

from course.cli import Stop, run_main
from course.registry import ROOT

USAGE_EXAMPLES = """
examples:
  scripts/figures.sh              write every figure into its stage folder
  scripts/figures.sh --check      exit 1 when a committed figure differs or is missing
  scripts/figures.sh --out DIR    write them under DIR instead (same relative paths)
"""


def render_all(out_root):
    """Draw every figure under out_root; returns the relative paths written."""
    from course.figures import INSTALL, all_figures
    try:
        import drawsvg  # noqa: F401
    except ImportError as error:
        raise Stop(f"figures.sh: error: drawsvg is not installed; install it with: {INSTALL}",
                   4) from error
    written = []
    for path, make in all_figures():
        target = pathlib.Path(out_root) / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(make().svg().encode("utf-8"))
        written.append(path)
    return written


def main(argv):
    parser = argparse.ArgumentParser(
        prog="scripts/figures.sh", description="Draw the lessons' diagrams (SVG) from the "
        "stages' index formulas.", epilog=USAGE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true",
                        help="draw into a temporary folder and compare with the committed files")
    parser.add_argument("--out", metavar="DIR", help="write under DIR instead of the repository")
    args = parser.parse_args(argv)
    if args.check:
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            stale = []
            for path in render_all(tmp):
                committed = ROOT / path
                if not committed.is_file():
                    stale.append(f"{path} is missing")
                elif committed.read_bytes() != (pathlib.Path(tmp) / path).read_bytes():
                    stale.append(f"{path} differs from what the code draws")
        for line in stale:
            print(f"figures.sh: {line}", file=sys.stderr)
        if stale:
            print("figures.sh: run scripts/figures.sh and commit the figures", file=sys.stderr)
            return 1
        print("figures.sh: every figure matches its code")
        return 0
    written = render_all(args.out or ROOT)
    print(f"figures.sh: wrote {len(written)} figures")
    return 0


if __name__ == "__main__":
    run_main(main, "figures.sh")
