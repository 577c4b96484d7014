#!/usr/bin/env python3
"""GPU test of the instructors' grader: a synthetic class of 12 submissions of stage 9 is
graded by scripts/grade.sh (calibration, builds, suites, hidden seed, sanitizers,
performance), and each student's status and points are checked. Exits 77 (skipped)
without a CUDA device.

    grade_class_test.py --bin-dir BUILD/bin      (ctest runs it as gpu.grade_class)

The class: two copies of the answer (one as a .zip), three corpus entries, the untouched
template, an edit outside a TODO block, a library call, an answer hard-coded for the
default seed's input, a kernel that never ends, code that opens a socket, and a tampered
test file beside a wrong solution. The results stay in BUILD/grade-test/ to look at."""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # the package, also when run by hand
from course import registry, report  # noqa: E402
from course.grade import synthetic  # noqa: E402
import grader_run  # noqa: E402  (beside this file)

STAGE = 9
N = 1 << 24  # the default input's size (common/harness/input.h's kDefaultN)
SECRET_SEED = 4242
HANG = "  for (volatile int spin = 0; spin >= 0; spin = 0) {}"
RUBRIC = """[limits]
suite = 120
sanitizer = 120
"""


def first_input_value(seed):
    """generate_input(n, seed)[0]: std::mt19937's first output, its top 24 bits / 2^24."""
    state = [seed]
    for i in range(1, 624):
        previous = state[-1]
        state.append((1812433253 * (previous ^ (previous >> 30)) + i) & 0xFFFFFFFF)
    y = (state[0] & 0x80000000) | (state[1] & 0x7FFFFFFF)
    y = state[397] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return (y >> 8) / 16777216.0


def answer_exe(bin_dir):
    """The stage's answer executable in the build whose bin/ is `bin_dir` (its registry)."""
    return registry.load(bin_dir.parent, "grade_class_test").stage(STAGE).exe()


def cpu_sum(bin_dir, seed):
    """The CPU reference sum of the default-size input of `seed`, as the answer reports it."""
    exe = answer_exe(bin_dir)
    done = subprocess.run([str(exe), "--n", str(N), "--seed", str(seed)],
                          capture_output=True, text=True, timeout=300)
    value = report.parse_report(done.stdout)["cpu_value"]
    if value is None:
        raise SystemExit(f"{exe.name} printed no CPU sum:\n{done.stdout}{done.stderr}")
    return float(value)


def hard_coded(bin_dir):
    """The answer, but at the default size it returns a remembered sum: the default seed's
    when the input starts like it, else the sum of the one other default-size input the
    visible tests use (seed 2024). Every visible test passes; the secret seed's fails."""
    remembered = (f"(in[0] == {first_input_value(12345)!r}f ? {cpu_sum(bin_dir, 12345)!r}f : "
                  f"{cpu_sum(bin_dir, 2024)!r}f)")
    line = (f"  if (tid == 0 && n == {N}u) block_sums[blockIdx.x] = blockIdx.x == 0 ? "
            f"{remembered} : 0.0f;")
    answer = synthetic.answer(STAGE)
    marker = "// ====================== TODO 2 of 2: END"
    return answer.replace("  " + marker, line + "\n  " + marker)


def make_class(folder, bin_dir):
    answer, entries = synthetic.answer(STAGE), synthetic.corpus(STAGE)
    write = synthetic.write
    write(folder / "answer", {STAGE: answer})
    copy = write(folder.parent / "zipped" / "answer-zip", {STAGE: answer})
    with zipfile.ZipFile(folder / "answer-zip.zip", "w") as archive:
        for path in copy.rglob("*"):
            archive.write(path, str(path.relative_to(copy.parent)))
    for entry in entries[:3]:
        write(folder / f"corpus-{entry.slug}", {STAGE: entry.text})
    write(folder / "template", {STAGE: synthetic.template(STAGE)})
    write(folder / "outside-edit", {STAGE: synthetic.outside(answer)})
    write(folder / "library-call", {STAGE: synthetic.in_block(answer, 1, "  cub::WarpReduce<float> r;")})
    write(folder / "hard-coded", {STAGE: hard_coded(bin_dir)})
    write(folder / "never-ends", {STAGE: synthetic.in_block(answer, 1, HANG)})
    write(folder / "opens-socket", {STAGE: synthetic.in_block(answer, 2, "  int s = socket(2, 1, 0);")})
    write(folder / "tampered-test", {STAGE: entries[0].text},
          {"tests/gpu/stage_suite.cpp": "#include <gtest/gtest.h>\nTEST(Always, Passes) {}\n"})
    return entries[:3]


def grade(folder, out, rubric):
    command = [str(ROOT / "scripts" / "grade.sh"), "--submissions", str(folder), "--out", str(out),
               "--stages", str(STAGE), "--secret-seed", str(SECRET_SEED), "--rubric", str(rubric)]
    return grader_run.grade(command, out)[0]


class Checks:
    def __init__(self, out):
        self.out, self.failures = out, []

    def stage(self, student):
        path = self.out / "students" / student / "result.json"
        return json.loads(path.read_text())["stages"][f"{STAGE:02d}"]

    def expect(self, student, condition, what):
        if not condition:
            self.failures.append(f"{student}: expected {what}; got {json.dumps(self.stage(student))[:600]}")

    def status_points(self, student, status, points):
        stage = self.stage(student)
        self.expect(student, stage["status"] == status and stage["points"] == points,
                    f"{status} with {points} points")

    def check_ok(self, student, name, ok=True):
        checks = {c["name"]: c for c in self.stage(student)["checks"]}
        self.expect(student, name in checks and checks[name]["ok"] == ok, f"check {name} ok={ok}")

    def rule(self, student, rule):
        first = self.stage(student).get("integrity", [{}])[0].get("rule")
        self.expect(student, first == rule, f"integrity rule {rule}")

    def keys(self, student):
        return [c["key"] for c in self.stage(student)["checks"] if c.get("key")]


def assert_class(out, entries):
    checks = Checks(out)
    for student in ("answer", "answer-zip"):
        stage = checks.stage(student)
        checks.expect(student, stage["status"] == "pass" and stage["points"] >= 94,
                      "pass with at least 94 points (85 for correctness, 9 or 15 for speed)")
    for entry in entries:
        student = f"corpus-{entry.slug}"
        keys = checks.keys(student)
        checks.expect(student, checks.stage(student)["status"] == "fail" and checks.stage(student)["points"] < 85
                      and any(k == entry.expect or k.startswith(entry.expect + ".") for k in keys),
                      f"fail with key {entry.expect}")
    checks.status_points("template", "not started", 0)
    checks.status_points("outside-edit", "integrity", 0)
    checks.status_points("library-call", "integrity", 0)
    checks.rule("library-call", "name")
    checks.status_points("opens-socket", "integrity", 0)
    checks.rule("opens-socket", "never")
    checks.status_points("hard-coded", "fail", 70)  # all but the hidden run and speed
    checks.check_ok("hard-coded", "tests")
    checks.check_ok("hard-coded", "hidden", ok=False)
    checks.status_points("never-ends", "fail", 0)
    checks.expect("never-ends", "tests.timeout" in checks.keys("never-ends"), "key tests.timeout")
    tampered = json.loads((out / "students" / "tampered-test" / "result.json").read_text())
    checks.expect("tampered-test", tampered["ignored_files"] == ["tests/gpu/stage_suite.cpp"],
                  "the tampered test listed as ignored")
    checks.expect("tampered-test", checks.stage("tampered-test")["status"] == "fail"
                  and any(k.startswith(entries[0].expect) for k in checks.keys("tampered-test")),
                  f"fail with key {entries[0].expect} (its own suite not used)")
    for name in ("gradebook.csv", "class_report.md", "manifest.json"):
        if not (out / name).exists():
            checks.failures.append(f"{name} was not written")
    feedback = (out / "students" / "hard-coded" / "feedback.md").read_text()
    if str(SECRET_SEED) in feedback:
        checks.failures.append("feedback.md names the secret seed")
    return checks.failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", type=pathlib.Path, required=True)
    args = parser.parse_args()
    # The stages, the answers and the grader's own registry: those of the build under test.
    grader_run.exit_without_device(args.bin_dir)
    base = args.bin_dir.parent / "grade-test"
    shutil.rmtree(base, ignore_errors=True)
    folder, out = base / "class", base / "out"
    folder.mkdir(parents=True)
    entries = make_class(folder, args.bin_dir)
    (base / "rubric.toml").write_text(RUBRIC)
    code = grade(folder, out, base / "rubric.toml")
    if grader_run.refused(code, out):
        return 1
    failures = assert_class(out, entries)
    for failure in failures:
        print("FAILED:", failure)
    print(f"{12 - len(failures)} of 12 students as expected (results in {out})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
