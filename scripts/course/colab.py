"""scripts/colab.sh: the commands of the course's Colab notebook (docs/colab.ipynb), kept
in one script that a GPU test runs too, so the notebook cannot fall behind the course.

  scripts/colab.sh [N]     build for this machine's GPU only, run your template for
                           stage N (default 7) and the student check on it

On a fresh clone the first configure takes the GPU's compute capability (CUDAARCHS), so
only one architecture is compiled: about a minute on Colab's two cores instead of five.
Exit code: 0 the commands ran (an unfilled template failing its check is expected),
2 bad stage number, 3 no NVIDIA GPU, 4 build error.
"""
import os
import re
import subprocess
import sys

from course import build, registry
from course.cli import Stop, run_main


def stage_word(argv):
    """The stage number as given (7 by default); exit 2 for anything that is not one, before
    a GPU is looked for."""
    word = argv[0] if argv else "7"
    if not re.fullmatch(r"\d{1,2}", word):
        raise Stop(f"colab.sh: error: there is no stage '{word}'; give a stage number such as 7", 2)
    return word


def stage_of(word):
    """The registry's Stage; the build is configured first, for this GPU only (CUDAARCHS,
    set before)."""
    return build.registry("colab.sh").stage(int(word), "colab.sh")


def compute_capability():
    try:
        done = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                              capture_output=True, text=True)
    except OSError:
        return None
    first = (done.stdout.splitlines() or [""])[0].strip()
    return first if re.fullmatch(r"\d+\.\d+", first) else None


def course_module(module, *args):
    return subprocess.run([sys.executable, "-m", f"course.{module}", *args],
                          cwd=registry.ROOT).returncode


def main(argv):
    number = stage_word(argv)
    cap = compute_capability()
    if cap is None:
        raise Stop("colab.sh: NVIDIA GPU를 찾지 못했습니다. Colab 메뉴에서 런타임 → 런타임 유형 변경 → T4 GPU"
                   "(Runtime > Change runtime type > T4 GPU)를 고른 뒤 이 셀을 다시 실행하세요.", 3)
    if not os.environ.get("CUDAARCHS"):
        os.environ["CUDAARCHS"] = cap.replace(".", "")
    print(f"GPU compute capability {cap}: building for CUDAARCHS={os.environ['CUDAARCHS']} only",
          flush=True)
    stage = stage_of(number)
    run = course_module("run", "--todo", number)
    print(flush=True)
    check = course_module("check", number)
    # 0 or 1 (a template that is not finished fails) mean both commands ran.
    for code in (run, check):
        if code > 1:
            return code
    print()
    print(f"colab.sh: ready. Edit stages/{stage.folder}/todo.cu, then run scripts/check.sh "
          f"{number} again.")
    return 0


if __name__ == "__main__":
    run_main(main, "colab.sh")
