"""A student's stage on the GPU: its suite (the hidden-seed tests included) and the four
compute-sanitizer tools, each process run by `runner` (grading.gpu_runner: in the sandbox,
holding a share of the GPU while it runs). The verdict is the grader's own reading of the
suite's JSON report, checked against the test names the answer's suite has and the exit
code the run gave, never what the student's process prints about itself."""
import concurrent.futures
import pathlib
import json
import os
import subprocess

from course import check, describe, rules
from course.grade import sandbox as isolation

HIDDEN_MARK = "hidden"  # the fact "1" the hidden-seed tests record (tests/gpu/test_facts.h)
Verdict = rules.Verdict


def test_names(report):
    """Every test's full name in a gtest JSON report."""
    return sorted(f"{suite['name']}.{test['name']}" for suite in report.get("testsuites", [])
                  for test in suite.get("testsuite", []))


def only(report, keep):
    """The report with only the tests whose full name `keep` accepts, counts redone."""
    suites = []
    for suite in report.get("testsuites", []):
        tests = [t for t in suite.get("testsuite", []) if keep(f"{suite['name']}.{t['name']}")]
        if tests:
            suites.append(dict(suite, testsuite=tests))
    count = sum(len(s["testsuite"]) for s in suites)
    failures = sum(1 for s in suites for t in s["testsuite"] if t.get("failures"))
    return dict(report, testsuites=suites, tests=count, failures=failures)


def report_problem(report, code, expected):
    """Why the report cannot be believed, or None: the expected tests, counts that add up,
    an exit code that agrees."""
    if not isinstance(report, dict) or not isinstance(report.get("testsuites"), list):
        return "the suite's report is not a gtest JSON report"
    names = test_names(report)
    if expected is not None and names != sorted(expected):
        missing = sorted(set(expected) - set(names))
        return f"the suite's report does not list the expected tests ({len(missing)} missing)"
    failed = sum(1 for s in report["testsuites"] for t in s.get("testsuite", []) if t.get("failures"))
    if report.get("tests") != len(names) or report.get("failures", 0) != failed:
        return "the suite's report counts do not add up"
    if (code == 0) != (failed == 0):
        return f"the suite exited {code} with {failed} failed tests"
    return None


def judge_part(text, report, log, source, name, keep):
    """One verdict (GPU tests or the hidden-seed run) over the tests `keep` selects."""
    part = only(report, keep)  # report_problem has made sure the exit code agrees
    verdict = rules.judge_suite(1 if part["failures"] else 0, text, part, log, source)
    if name == "hidden":
        key = None if verdict.ok else "hidden." + verdict.key
        detail = ("비공개 입력에서 통과" if verdict.ok else "비공개 입력에서 실패")
        return Verdict("hidden", verdict.ok, detail, key, log)
    return verdict


def run_suite(runner, work, stage, source, out_dir, timeout, seed, expected):
    """(tests verdict, hidden verdict, the test names the report lists). `stage`: the
    edition registry's Stage, its paths as the sandbox sees them."""
    report_path = work / "reports" / "suite.json"
    report_path.parent.mkdir(exist_ok=True)
    report_path.unlink(missing_ok=True)
    log = out_dir / "tests.log"
    suite = stage.suite(template=True)
    inside = isolation.FIXED / "reports" / "suite.json"
    code, text = runner([suite, "--gtest_brief=1", f"--gtest_output=json:{inside}"],
                        work, log, timeout, env={"REDUCE_HIDDEN_SEED": str(seed)})
    report = read_json(report_path)
    if code is None or report is None:
        verdict = rules.judge_suite(code, text, None, log, source)
        hidden = Verdict("hidden", False, "테스트가 끝나지 않아 실행하지 못함", "hidden.not_run", log)
        return verdict, hidden, None
    problem = report_problem(report, code, expected)
    if problem:
        broken = Verdict("tests", False, problem, "tests.report", log)
        return broken, Verdict("hidden", False, problem, "hidden.not_run", log), None
    hidden_names = {f"{s['name']}.{t['name']}" for s in report["testsuites"]
                    for t in s.get("testsuite", []) if t.get(HIDDEN_MARK) == "1"}
    tests = judge_part(text, report, log, source, "tests", lambda n: n not in hidden_names)
    hidden = judge_part(text, report, log, source, "hidden", lambda n: n in hidden_names)
    return tests, hidden, test_names(report)


def cross_check(runner, work, verifier_work, stage, description, out_dir, timeout, seed):
    """The hidden input judged where no student code runs, or None where it passes (or the
    stage has no output file: stage 05, stage 18). The student's executable, in the sandbox,
    writes its raw result for the secret seed and computes no reference; the answer's
    executable (`verifier_work`'s build, no student code) reads that file and judges it
    against the CPU on its own. The suite's JSON is written in the student's process; this
    verdict is not."""
    if verifier_work is None or "--write-output" not in description.get("options", []):
        return None
    log = out_dir / "cross_check.log"
    for shape in cross_check_shapes(description):
        verdict = cross_check_one(runner, work, verifier_work, stage, shape, log, timeout, seed)
        if verdict:
            return verdict
    return None


def cross_check_shapes(description):
    """The sizes the cross-check runs: the default, and an awkward one at the smallest block
    (a whole number of blocks where the stage needs one)."""
    if description["kind"] == "rows":
        return [[], ["--rows", "1000", "--cols", "33", "--block", "32"]]
    n = "1000000" if describe.whole_blocks(description) else "1000003"
    return [[], ["--n", n, "--block", "32"]]


def cross_check_one(runner, work, verifier_work, stage, shape, log, timeout, seed):
    written = work / "reports" / "output.bin"
    written.parent.mkdir(exist_ok=True)
    written.unlink(missing_ok=True)
    exe = stage.exe(template=True)
    options = ["--seed", str(seed), *shape]
    code, _ = runner([exe, *options, "--write-output",
                      str(isolation.FIXED / "reports" / "output.bin")], work, log, timeout)
    if code != 0 or not written.is_file():
        return Verdict("hidden", False, "비공개 입력의 결과를 내지 못함", "hidden.tests.crash", log)
    verifier = pathlib.Path(verifier_work) / pathlib.Path(exe).relative_to(isolation.FIXED)
    code, text = judge_output([str(verifier), *options, "--verify-output", str(written)], timeout)
    with log.open("a", encoding="utf-8") as out:
        out.write(text)
    if code == 0:
        return None
    if code == 1:
        return Verdict("hidden", False, "비공개 입력에서 틀림 (채점기의 기준값과 다름)",
                       "hidden.tests.wrong", log)
    return Verdict("hidden", False, "비공개 입력의 결과 파일이 올바르지 않음", "hidden.tests.crash", log)


def judge_output(command, timeout):
    """(exit code, output) of the answer's executable judging a written output: trusted
    code, run outside the sandbox, on the CPU alone."""
    try:
        judged = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    except (OSError, subprocess.TimeoutExpired) as error:
        raise RuntimeError(f"the answer's executable could not judge an output: {error}") from error
    return judged.returncode, judged.stdout + judged.stderr


def read_json(path):
    try:
        return json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        return None


def run_sanitizers(runner, work, stage, source, out_dir, description, timeout, jobs):
    """The four tools over the student check's edge-case runs, in parallel."""
    exe = stage.exe(template=True)
    configs = check.sanitizer_configs(description)
    options = ["--report-api-errors", "no"] if describe.takes_gpus(description) else []

    def sandboxed(command, log, limit):
        return runner(command, work, log, limit)

    def report_file(name):  # written inside the sandbox's view of the copy, read from outside
        (work / "reports").mkdir(exist_ok=True)
        return isolation.FIXED / "reports" / name, work / "reports" / name

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(check.run_sanitizer, tool, exe, source, configs, out_dir, options,
                               sandboxed, timeout, report_file) for tool in check.SANITIZERS]
        return [future.result() for future in futures]


def check_stage(runner, work, stage, source, out_dir, description, limits, seed, expected, jobs,
                verifier_work=None):
    """Every correctness verdict of one built stage: tests, hidden (the suite's hidden-seed
    tests and, where a verifier is given, the cross-check), then the four tools (skipped
    when the suite did not finish: they would hang the same way)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    tests, hidden, names = run_suite(runner, work, stage, source, out_dir, limits["suite"],
                                     seed, expected)
    if hidden.ok and tests.key != "tests.timeout":
        hidden = cross_check(runner, work, verifier_work, stage, description, out_dir,
                             limits["suite"], seed) or hidden
    if tests.key == "tests.timeout":
        skipped = [Verdict(tool, False, "테스트가 끝나지 않아 건너뜀", f"{tool}.not_run")
                   for tool in check.SANITIZERS]
        return [tests, hidden, *skipped], names
    tools = run_sanitizers(runner, work, stage, source, out_dir, description,
                           limits["sanitizer"], jobs)
    return [tests, hidden, *tools], names
