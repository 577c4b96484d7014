#!/usr/bin/env python3
"""GPU test of the instructors' grader against the red-team class: the speed measurement's
synthetic class of 40 stage-14 submissions (scripts/grade.sh --synthetic-class 40 --stages
14), which holds every red-team attempt of stage 14 (tests/grade/redteam/: the integrity
attempts, the runtime attempts that only the GPU runs can catch, honest solutions unlike the
answer), answers under names that once broke the grader and submissions refused for their
shape, filled up with answers and corpus entries. Graded from nothing (the pristine build
and calibration included, which grades the runtime attempts and the corpus first), and
checked: every red-team student as its file says, every answer with full correctness points,
every corpus entry failing with its key (one that must change lines outside the TODO blocks,
`Outside:`, stopped by integrity). Prints the wall-clock time from the start (the
issue's target: under 10 minutes on one H100). Exits 77 (skipped) without a CUDA device.

    grade_redteam_test.py --bin-dir BUILD/bin [--students 40]   (ctest: gpu.grade_redteam)

The results stay in BUILD/grade-redteam/ to look at."""
import argparse
import json
import pathlib
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # the package, also when run by hand
from course import rules  # noqa: E402
from course.grade import cli, report, synthetic  # noqa: E402
import grader_run  # noqa: E402  (beside this file)

STAGE = 14
SECRET_SEED = 1


def grade(out, students):
    command = [str(ROOT / "scripts" / "grade.sh"), "--synthetic-class", str(students),
               "--stages", str(STAGE), "--out", str(out), "--secret-seed", str(SECRET_SEED)]
    return grader_run.grade(command, out)


def mix_problems(out, expected):
    """The students of the mix: an answer passes with every correctness point, a corpus entry
    fails with its key (the class report's mix: synthetic.make_class)."""
    corpus = synthetic.corpus(STAGE)
    texts = {entry.text: entry for entry in corpus}
    answer = synthetic.answer(STAGE)
    folder = out / "synthetic-class"
    problems = []
    for result in report.load_results(out):
        student = result["student"]
        if student in expected:
            continue
        stage = result["stages"][f"{STAGE:02d}"]
        source = next((folder / student / "stages").glob("*/todo.cu")).read_text(encoding="utf-8")
        keys = [c["key"] for c in stage["checks"] if c.get("key")]
        if source == answer:
            correctness = sum(c["points"] for c in stage["checks"])
            if stage["status"] != "pass" or correctness < sum(c["max"] for c in stage["checks"]):
                problems.append(f"{student} (the answer): {stage['status']}, {stage['points']} points")
        elif source in texts and texts[source].outside:  # it must change lines outside a block
            if stage["status"] != "integrity":
                problems.append(f"{student} (corpus {texts[source].slug}, Outside:): "
                                f"{stage['status']}, not integrity")
        elif source in texts:
            entry = texts[source]
            if stage["status"] == "pass" or not any(rules.key_matches(k, entry.expect) for k in keys):
                problems.append(f"{student} (corpus {entry.slug}, Expect: {entry.expect}): "
                                f"{stage['status']}, keys {keys}")
        else:
            problems.append(f"{student}: a submission the mix does not make")
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", type=pathlib.Path, required=True)
    parser.add_argument("--students", type=int, default=40)
    args = parser.parse_args()
    grader_run.exit_without_device(args.bin_dir)
    out = args.bin_dir.parent / "grade-redteam"
    shutil.rmtree(out, ignore_errors=True)
    code, seconds = grade(out, args.students)
    if grader_run.refused(code, out):
        return 1
    expected = json.loads((out / cli.EXPECTED).read_text(encoding="utf-8"))
    results = {r["student"]: r for r in report.load_results(out)}
    failures = list(synthetic.class_problems(results, expected).values())
    failures += mix_problems(out, expected)
    if len(results) != args.students:
        failures.append(f"{len(results)} results for {args.students} students")
    for failure in failures:
        print("FAILED:", failure)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    print(f"{len(expected)} red-team students and {len(results) - len(expected)} of the mix; "
          f"{len(failures)} not as expected. Graded from the start in {seconds:.0f} s "
          f"(pristine edition {manifest.get('pristine_edition_s')} s, calibration "
          f"{manifest.get('calibration_s')} s, class {manifest.get('class_s')} s) on "
          f"{manifest.get('probe')} (results in {out})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
