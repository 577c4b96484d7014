#!/usr/bin/env python3
"""Host test of the whole grader without a GPU (scripts/grade.sh, course.grade.cli): a few
submissions through integrity, 'not started', a build error (the builder is a stand-in
here: compiling CUDA is the GPU test's work) and 'not graded: no CUDA device', exit 3, the
gradebook, result.json, feedback.md, manifest.json, the resumed second run, and the
one-line errors of bad usage."""
import contextlib
import csv
import io
import json
import pathlib
import sys
import tempfile
import threading
import time
import unicodedata
import unittest
from unittest import mock

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # the package, also when run by hand
from course.cli import Stop  # noqa: E402
from course.grade import build, cli, grading, lexer, progress, sandbox, submissions, synthetic  # noqa: E402
from course.grade import run as grade_run  # noqa: E402

lexer.skip_unless_available()

BROKEN = "  float oops = ;"
REGISTRY = build.course_registry()


def fake_prepare(_sandbox, work, numbers, _limits, _jobs):
    """The edition exported, and its registry written as its configure would: not built."""
    path = pathlib.Path(work) / "pristine"
    build.export(path, numbers)
    synthetic.edition_registry(path)
    return build.Edition(path)


def fake_build(_sandbox, edition, work, number, log, _limits, _jobs):
    source = work / "stages" / edition.stage(number).folder / "todo.cu"
    lines = source.read_text().split("\n")
    if BROKEN in lines:
        text = f"{source}({lines.index(BROKEN) + 1}): error: expected an expression\n"
        pathlib.Path(log).write_text(text)
        return False, text
    return True, ""


def run_grader(argv):
    """(exit code, what it printed) of scripts/grade.sh argv, built by the stand-ins."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), \
            mock.patch.object(build, "prepare", fake_prepare), \
            mock.patch.object(build, "build_stage", fake_build), \
            mock.patch.object(build, "peak_gbps", lambda _e: 3352.3), \
            mock.patch.object(build, "probe", lambda _e: (False, "No CUDA device found (test)")), \
            mock.patch.object(sandbox, "detect", lambda *_a, **_k: sandbox.Sandbox("unshare")), \
            mock.patch.object(cli, "require_tools", lambda: None):
        try:
            code = cli.main(argv)
        except Stop as stop:
            printed.write(str(stop))
            code = stop.code
    return code, printed.getvalue()


class WithoutGpu(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        base = pathlib.Path(cls.folder.name)
        cls.class_dir, cls.out = base / "class", base / "out"
        answer7, answer9 = synthetic.answer(7), synthetic.answer(9)
        synthetic.write(cls.class_dir / "ada", {7: answer7, 9: synthetic.template(9)})
        synthetic.write(cls.class_dir / "ben", {7: synthetic.outside(answer7), 9: answer9})
        synthetic.write(cls.class_dir / "cy", {7: synthetic.in_block(answer7, 1, "  cub::WarpReduce<float> r;"),
                                              9: synthetic.in_block(answer9, 1, BROKEN)})
        synthetic.write(cls.class_dir / "dee", {7: synthetic.in_block(answer7, 1, "  int s = socket(2, 1, 0);")},
                        {"tests/gpu/stage_suite.cpp": "TEST(Always, Passes) {}\n"})
        cls.args = ["--submissions", str(cls.class_dir), "--out", str(cls.out), "--stages", "7,9",
                    "--secret-seed", "4242"]
        cls.code, cls.printed = run_grader(cls.args)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def result(self, student):
        return json.loads((self.out / "students" / student / "result.json").read_text())

    def status(self, student, stage):
        return self.result(student)["stages"][stage]["status"]

    def test_exits_3_and_says_why(self):
        self.assertEqual(self.code, 3, self.printed)
        self.assertIn("not graded: no CUDA device", self.printed)
        self.assertIn("graded 4/4 students", self.printed)

    def test_statuses_are_what_could_be_decided(self):
        self.assertEqual(self.status("ada", "07"), "not graded: no CUDA device")
        self.assertEqual(self.status("ada", "09"), "not started")
        self.assertEqual(self.status("ben", "07"), "integrity")
        self.assertEqual(self.result("ben")["stages"]["07"]["integrity"][0]["rule"], "outside")
        self.assertEqual(self.status("cy", "07"), "integrity")
        self.assertEqual(self.result("cy")["stages"]["07"]["integrity"][0]["rule"], "name")
        self.assertEqual(self.status("cy", "09"), "build error")
        self.assertEqual(self.result("dee")["stages"]["07"]["integrity"][0]["rule"], "never")
        self.assertEqual(self.status("dee", "09"), "not started")  # the file is missing

    def test_a_tampered_test_file_is_listed_and_not_used(self):
        self.assertEqual(self.result("dee")["ignored_files"], ["tests/gpu/stage_suite.cpp"])

    def test_gradebook_rows_and_points(self):
        rows = list(csv.DictReader(io.StringIO((self.out / "gradebook.csv").read_text())))
        self.assertEqual([r["student"] for r in rows], ["ada", "ben", "cy", "dee"])
        self.assertTrue(all(r["total"] == "0" and r["max"] == "200" for r in rows))

    def test_feedback_and_manifest(self):
        self.assertIn("빌드 오류", (self.out / "students" / "cy" / "feedback.md").read_text())
        manifest = json.loads((self.out / "manifest.json").read_text())
        self.assertEqual(manifest["isolation"], "unshare")
        self.assertEqual(manifest["stages"], [7, 9])
        self.assertNotIn("4242", json.dumps(manifest))
        for key in ("course_commit", "rubric_digest", "device", "driver", "cuda", "date"):
            self.assertIn(key, manifest)

    def test_a_second_run_skips_what_is_graded(self):
        code, printed = run_grader(self.args)
        self.assertEqual(code, 3)
        self.assertIn("cy: already graded", printed)
        self.assertIn("dee: already graded", printed)
        self.assertNotIn("ada: already graded", printed)  # its stage 7 still needs a GPU
        code, printed = run_grader(self.args + ["--regrade", "cy"])
        self.assertNotIn("cy: already graded", printed)
        self.assertIn("dee: already graded", printed)

    def test_bad_usage_is_one_line_and_exit_2(self):
        for argv in (["--out", str(self.out)], self.args + ["--stages", "99"],
                     self.args + ["--secret-seed", "x"], self.args + ["--regrade", "nobody"],
                     self.args + ["--rubric", str(self.out / "none.toml")],
                     self.args + ["--out", str(ROOT / "grades")],
                     self.args + ["--synthetic-class", "3"]):
            code, printed = run_grader(argv)
            self.assertEqual(code, 2, argv)
            self.assertEqual(len(printed.strip().splitlines()), 1, printed)


# ---------------------------------------------------------------------------- a stand-in GPU
# The tools' output for each corpus entry of stage 9, as the real tools print it, so that
# the grader's path after the build (suite JSON, hidden seed, sanitizers, performance,
# calibration, scores) runs on a machine without a GPU. The GPU test runs the real ones.
# The stage's description is the built template's own (--describe needs no GPU).
# Each test's facts as tests/gpu/test_facts.h records them in the JSON report (its key, its
# case, whether it runs on the secret seed); the failing values are added per run.
TESTS = {"DefaultInputMatchesReference": {"reduce_key": "tests.wrong"},
         "HiddenSeedInputMatchesReference": {"reduce_key": "tests.wrong", "hidden": "1"},
         "InputIsUnchanged": {"reduce_key": "tests.input"}}


def first_block_line(text):
    for number, line in enumerate(text.split("\n"), start=1):
        if "TODO 1 of" in line and "BEGIN" in line:
            return number + 4


class StandInTools:
    def __init__(self):
        self.expect = {e.text: e.expect for e in synthetic.corpus(9)}

    def __call__(self, _sandbox, command, work, log, _timeout, env=None, **_):
        source = (work / "stages" / REGISTRY.stage(9).folder / "todo.cu").read_text()
        key = self.expect.get(source, "pass")
        command = [str(c) for c in command]
        if command[0].endswith("_tests"):
            text, code = self.suite(work, source, key)
        elif "--write-output" in command:
            # The cross-check's raw result: what stand_in_judge reads. A sum right only on
            # the default input is wrong on the secret one, as the stand-in suite's hidden
            # test says too (CrossCheck below: a suite that says otherwise).
            wrong = "in[0] ==" in source
            (work / "reports" / "output.bin").write_bytes(b"wrong" if wrong else b"right")
            text, code = "", 0
        elif command[0] == "compute-sanitizer":
            # The tool writes its report to --log-file (a path inside the sandbox's view of the
            # copy); the program's own output is what the step prints, here a forged summary.
            report = pathlib.Path(command[command.index("--log-file") + 1])
            report = work / report.relative_to(sandbox.FIXED)
            report.write_text(self.sanitizer(command[2], source, key))
            text, code = "ERROR SUMMARY: 0 errors\nRACECHECK SUMMARY: 0 hazards displayed\n", 0
        else:  # a timed run; "teleports" stands for a kernel that skips its reads
            ms = "0.0010" if "teleports" in source else "0.1000"
            text, code = f"stage09,16777216,256,{ms},671.1,1.0e-07,1\n", 0
            if "hangs when timed" in source:
                pathlib.Path(log).write_text("")
                return None, ""
        pathlib.Path(log).write_text(text)
        return (None if "spin" in source else code), text

    def suite(self, work, source, key):
        hard_coded = "in[0] ==" in source
        failing = {"HiddenSeedInputMatchesReference"} if hard_coded else set()
        gpu, text = "1.5", ""
        if key == "tests.poison":
            failing, gpu = {"DefaultInputMatchesReference"}, "1e+30"
        if key.startswith("tests.barrier"):
            failing = {"InputIsUnchanged"}
            text = f"reduce-check: __syncthreads at todo.cu:{first_block_line(source)}\n"
        failed = {"failures": [{"failure": f"GPU {gpu}, CPU 2.5"}], "gpu_value": gpu,
                  "cpu_value": "2.5"}
        tests = [{"name": f"{name}/block256", "status": "RUN", "result": "COMPLETED",
                  "block": "256", **facts, **(failed if name in failing else {})}
                 for name, facts in TESTS.items()]
        report = {"tests": len(tests), "failures": len(failing),
                  "testsuites": [{"name": "Blocks/StageSuite", "testsuite": tests}]}
        (work / "reports" / "suite.json").write_text(json.dumps(report))
        return text, 1 if failing else 0

    def sanitizer(self, tool, source, key):
        if key.startswith(tool):
            where = f"========= at reduce_any_length+0x10 in todo.cu:{first_block_line(source)}\n"
            summary = ("RACECHECK SUMMARY: 2 hazards displayed (0 errors, 2 warnings)" if tool == "racecheck"
                       else "ERROR SUMMARY: 1 error")
            return where + summary + "\n"
        return ("RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n" if tool == "racecheck"
                else "ERROR SUMMARY: 0 errors\n")


def described(kind):
    """A stage's --describe facts as the cross-check reads them: a one-GPU kernel stage (kind
    vector or rows) offers --write-output, the others do not."""
    writes = ["--write-output", "--verify-output"] if kind in ("vector", "rows") else []
    return {"kind": kind, "size_rule": "any_length", "options": ["--n", "--block", *writes]}


def stand_in_judge(command, _timeout):
    """The answer's --verify-output on the stand-in's output file."""
    written = pathlib.Path(command[command.index("--verify-output") + 1])
    return (0, "matches\n") if written.read_bytes() == b"right" else (1, "does not match\n")


class CrossCheck(unittest.TestCase):
    """The hidden verdict's second half: the student's executable writes its result for the
    secret seed in the sandbox, the answer's executable judges it outside; whatever the
    student's suite reported about itself."""
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.work = pathlib.Path(self.tmp.name) / "student"
        self.work.mkdir()
        self.judged = []

    def tearDown(self):
        self.tmp.cleanup()

    def check(self, writes, verdict_code, kind="vector"):
        def runner(command, work, log, timeout, env=None):
            pathlib.Path(log).write_text("")
            if writes:
                (work / "reports" / "output.bin").write_bytes(b"x")
            return 0, ""

        def judge(command, _timeout):
            self.judged.append(command)
            return verdict_code, "judged\n"

        exe = sandbox.FIXED / "build" / "bin" / "stage09_todo"  # as the edition's registry says
        fake = mock.Mock(exe=lambda template=False: exe)
        with mock.patch.object(grade_run, "judge_output", judge):
            return grade_run.cross_check(runner, self.work, "/answers", fake,
                                         described(kind),
                                         self.work, 10, 12345)

    def test_a_wrong_result_fails_the_hidden_verdict(self):
        verdict = self.check(writes=True, verdict_code=1)
        self.assertEqual((verdict.ok, verdict.key), (False, "hidden.tests.wrong"))
        command = self.judged[0]
        self.assertTrue(command[0].startswith("/answers/"), command)  # the answer's build judges
        self.assertEqual(command[command.index("--seed") + 1], "12345")

    def test_a_right_result_leaves_the_suites_verdict(self):
        self.assertIsNone(self.check(writes=True, verdict_code=0))
        # The default size and an awkward one at the smallest block, each judged.
        self.assertEqual(len(self.judged), 2)
        self.assertEqual(self.judged[1][self.judged[1].index("--n") + 1], "1000003")

    def test_no_result_written_is_a_crash(self):
        verdict = self.check(writes=False, verdict_code=0)
        self.assertEqual((verdict.ok, verdict.key), (False, "hidden.tests.crash"))
        self.assertEqual(self.judged, [])

    def test_a_malformed_file_is_a_crash(self):
        self.assertEqual(self.check(writes=True, verdict_code=2).key, "hidden.tests.crash")

    def test_stages_without_an_output_file_are_not_cross_checked(self):
        self.assertIsNone(self.check(writes=True, verdict_code=1, kind="multi_gpu"))
        self.assertEqual(self.judged, [])


def grade_with_stand_ins(class_dir, out):
    """Grades stage 9 of `class_dir` into `out` on the stand-in GPU and tools; returns (exit
    code or the Stop's line, what was printed)."""
    description = REGISTRY.stage(9).description(template=True)
    with mock.patch.object(build, "probe", lambda _e: (True, "Stand-in GPU")), \
            mock.patch.object(cli, "descriptions", lambda _e, numbers: {9: description}), \
            mock.patch.object(cli.check, "sanitizer_path", lambda *_: "compute-sanitizer"), \
            mock.patch.object(sandbox, "run", StandInTools()), \
            mock.patch.object(grade_run, "judge_output", stand_in_judge), \
            mock.patch.object(build, "prepare", fake_prepare), \
            mock.patch.object(build, "build_stage", fake_build), \
            mock.patch.object(build, "peak_gbps", lambda _e: 3352.3), \
            mock.patch.object(sandbox, "detect", lambda *_a, **_k: sandbox.Sandbox("unshare")), \
            mock.patch.object(cli, "require_tools", lambda: None), \
            contextlib.redirect_stdout(io.StringIO()) as printed:
        try:
            code = cli.main(["--submissions", str(class_dir), "--out", str(out),
                             "--stages", "9", "--secret-seed", "7"])
        except Stop as stop:
            code = f"{stop.code}: {stop}"
    return code, printed.getvalue()


class WithStandInGpu(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        base = pathlib.Path(cls.folder.name)
        answer, entries = synthetic.answer(9), synthetic.corpus(9)
        synthetic.write(base / "class" / "right", {9: answer})
        synthetic.write(base / "class" / "racy", {9: entries[0].text})
        marker = "  // ====================== TODO 2 of 2: END"
        synthetic.write(base / "class" / "remembers", {9: answer.replace(
            marker, "  if (n == 16777216u) block_sums[0] = in[0] == 0.5f ? 1.0f : 2.0f;\n" + marker)})
        synthetic.write(base / "class" / "hangs", {9: synthetic.in_block(
            answer, 1, "  for (volatile int spin = 0; spin >= 0; spin = 0) {}")})
        synthetic.write(base / "class" / "fast", {9: synthetic.in_block(
            answer, 1, "  // teleports")})
        synthetic.write(base / "class" / "timed-hang", {9: synthetic.in_block(
            answer, 1, "  // hangs when timed")})
        cls.out = base / "out"
        cls.code, cls.printed = grade_with_stand_ins(base / "class", cls.out)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def stage(self, student):
        return json.loads((self.out / "students" / student / "result.json").read_text())["stages"]["09"]

    def test_calibrates_then_grades_with_exit_0(self):
        self.assertEqual(self.code, 0, self.printed)
        self.assertIn("calibration: the answers of 1 stage(s), 4 corpus entries and 0 red-team "
                      "attempts", self.printed)

    def test_progress_is_a_line_per_student(self):
        lines = [l for l in self.printed.splitlines() if "students" in l and "graded " in l]
        self.assertEqual(len(lines), 6, self.printed)
        self.assertTrue(lines[-1].endswith("graded 6/6 students"), lines[-1])
        self.assertIn("calibration: graded 5/5 submissions", self.printed)

    def test_points_follow_the_checks(self):
        right = self.stage("right")
        self.assertEqual((right["status"], right["points"]), ("pass", 100))
        self.assertEqual(right["performance"]["ratio"], 1.0)
        racy = self.stage("racy")
        self.assertEqual((racy["status"], racy["points"]), ("fail", 75))
        self.assertIn("racecheck.todo1", [c["key"] for c in racy["checks"]])
        remembers = self.stage("remembers")
        self.assertEqual((remembers["status"], remembers["points"]), ("fail", 70))
        self.assertEqual([c["key"] for c in remembers["checks"] if c["key"]], ["hidden.tests.wrong"])
        fast = self.stage("fast")  # 4 x 2^24 bytes in 1 us: 67 TB/s, 20 times the memory's
        self.assertEqual((fast["status"], fast["points"]), ("pass", 85))
        self.assertIn("not credited", fast["performance"]["detail"])
        timed = self.stage("timed-hang")  # correct, but its first timed run never ends
        self.assertEqual((timed["status"], timed["points"]), ("pass", 85))
        self.assertIn("timed run 1 of the student", timed["performance"]["detail"])
        logs = sorted(p.name for p in (self.out / "students" / "timed-hang" / "stage09").glob("performance.*"))
        # The answer runs first in each round; the student's hung run ended the measurement.
        self.assertEqual(logs, ["performance.answer.1.log", "performance.student.1.log"])
        hangs = self.stage("hangs")
        self.assertEqual((hangs["status"], hangs["points"]), ("fail", 0))
        self.assertEqual(hangs["checks"][0]["key"], "tests.timeout")

    def test_expected_tests_are_required(self):
        from course.grade import run
        report = {"tests": 1, "failures": 0, "testsuites": [{"name": "S", "testsuite": [{"name": "a"}]}]}
        self.assertIsNone(run.report_problem(report, 0, ["S.a"]))
        self.assertIn("expected tests", run.report_problem(report, 0, ["S.a", "S.b"]))
        self.assertIn("exited 1", run.report_problem(report, 1, ["S.a"]))
        self.assertIn("add up", run.report_problem(dict(report, tests=3), 0, None))

    def test_class_report_and_flags(self):
        text = (self.out / "class_report.md").read_text()
        self.assertIn("pass rate: 3 / 6 (50%)", text)
        self.assertIn("fast: stage 09: same TODO blocks as right", text)  # a comment hides nothing
        self.assertIn("hidden.tests.wrong", text)
        self.assertIn("TODO blocks identical to the answer", text)


class AnyStudentId(unittest.TestCase):
    """Ids in Hangul, with spaces, a leading dash, or the name of the grader's own folders
    are graded under their own names, each apart."""
    IDS = ("김민수", "이지은", "Ada Lovelace", "-dash", "calibration-answers", "pristine", "logs")

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        base = pathlib.Path(cls.folder.name)
        answer, racy = synthetic.answer(9), synthetic.corpus(9)[0].text
        for student in cls.IDS:
            # The NFD form of a Hangul name, as macOS writes it, must come out NFC.
            entry = unicodedata.normalize("NFD", student)
            synthetic.write(base / "class" / entry, {9: racy if student == "-dash" else answer})
        cls.out = base / "out"
        cls.code, cls.printed = grade_with_stand_ins(base / "class", cls.out)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def test_each_id_is_graded_under_its_own_name(self):
        self.assertEqual(self.code, 0, self.printed)
        with open(self.out / "gradebook.csv", newline="", encoding="utf-8") as table:
            rows = {row["student"]: row for row in csv.DictReader(table)}
        self.assertEqual(sorted(rows), sorted(self.IDS))
        for student in self.IDS:
            result = json.loads((self.out / "students" / student / "result.json").read_text())
            self.assertEqual(result["student"], student)
            expected = ("fail", 75) if student == "-dash" else ("pass", 100)
            stage = result["stages"]["09"]
            self.assertEqual((stage["status"], stage["points"]), expected, student)

    def test_each_student_and_stage_has_its_own_hidden_seed(self):
        facts = {"default_seed": 12345}
        seeds = {(student, number): grading.student_seed(7, student, number, facts)
                 for student in self.IDS for number in (7, 9)}
        self.assertEqual(len(set(seeds.values())), len(seeds))
        self.assertEqual(seeds[("김민수", 9)], grading.student_seed(7, "김민수", 9, facts))
        self.assertNotEqual(seeds[("김민수", 9)], grading.student_seed(8, "김민수", 9, facts))
        self.assertNotIn(12345, seeds.values())

    def test_one_id_twice_is_refused_not_merged(self):
        with tempfile.TemporaryDirectory() as folder:
            base = pathlib.Path(folder)
            (base / "김민수").mkdir()
            (base / unicodedata.normalize("NFD", "김민수")).mkdir()
            with self.assertRaises(submissions.SubmissionError) as caught:
                submissions.find(base)
            self.assertIn("rename one", str(caught.exception))

    def test_a_file_that_is_not_utf8_is_unreadable_not_repaired(self):
        with tempfile.TemporaryDirectory() as folder:
            root = pathlib.Path(folder)
            name = REGISTRY.stage(9).folder
            (root / "stages" / name).mkdir(parents=True)
            (root / "stages" / name / "todo.cu").write_bytes(b"int x; // \xff\n")
            with self.assertRaises(submissions.SubmissionError) as caught:
                submissions.graded_sources(root, [name])
            self.assertIn("not UTF-8", str(caught.exception))


class StepOutput(unittest.TestCase):
    """A step's output reaches its log capped, with a note; a full folder keeps little more;
    the step sees none of the grader's own variables."""

    def run_step(self, folder, code, env=None):
        box = sandbox.Sandbox("none")
        work = pathlib.Path(folder) / "work"
        work.mkdir(exist_ok=True)
        log = pathlib.Path(folder) / "logs" / "step.log"
        log.parent.mkdir(exist_ok=True)
        with mock.patch.dict("os.environ", {"REDUCE_GRADER_SECRET": "42"}):
            done = sandbox.run(box, [sys.executable, "-c", code], work, log, 60, env=env)
        return done, log

    def test_a_flood_of_output_is_capped_with_a_note(self):
        with tempfile.TemporaryDirectory() as folder:
            (code, text), log = self.run_step(folder, "print('x' * (3 << 20))")
            self.assertEqual(code, 0)
            self.assertLess(log.stat().st_size, sandbox.LOG_BYTES + 4096)
            self.assertIn("more bytes of output left out", text)
            (pathlib.Path(folder) / "logs" / "earlier.log").write_bytes(b"x" * sandbox.FOLDER_LOG_BYTES)
            (code, text), log = self.run_step(folder, "print('y' * (1 << 20))")
            self.assertLess(log.stat().st_size, sandbox.LOG_FLOOR + 4096)

    def test_the_step_sees_a_minimal_environment(self):
        with tempfile.TemporaryDirectory() as folder:
            (code, text), _ = self.run_step(
                folder, "import os; print(sorted(os.environ))", env={"REDUCE_HIDDEN_SEED": "7"})
            self.assertEqual(code, 0)
            self.assertNotIn("REDUCE_GRADER_SECRET", text)
            self.assertIn("REDUCE_HIDDEN_SEED", text)
            self.assertIn("PATH", text)


class EditionRegistry(unittest.TestCase):
    """The pristine edition's facts come from its own build's stages.json, its targets seen
    at the sandbox's fixed path; a stage that build could not make has no suite."""

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        path = pathlib.Path(cls.folder.name) / "pristine"
        build.export(path, [17, 18])
        registry_file = synthetic.edition_registry(path)
        data = json.loads(registry_file.read_text())
        for entry in data["stages"]:  # as a configure without NCCL writes stage 18
            if entry["number"] == 18:
                entry["built"], entry["why_not_built"] = False, "needs NCCL (test)"
                entry["targets"].pop("template_tests")
        registry_file.write_text(json.dumps(data))
        cls.edition = build.Edition(path)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def test_only_the_exported_stages_with_their_template_targets(self):
        self.assertEqual(self.edition.registry.numbers(), [17, 18])
        self.assertEqual(self.edition.folders[17], REGISTRY.stage(17).folder)
        self.assertTrue(self.edition.registry.student_edition)
        self.assertFalse(self.edition.stage(17).has_target("answer"))

    def test_targets_and_paths_are_the_registrys_seen_at_the_fixed_path(self):
        ours = REGISTRY.stage(17)
        self.assertEqual(build.targets(self.edition, 17),
                         [ours.target("template"), ours.target("template_tests")])
        fixed = sandbox.FIXED / "build"
        self.assertEqual(self.edition.stage(17).suite(template=True),
                         fixed / ours.suite(template=True).relative_to(REGISTRY.build_dir))
        self.assertEqual(self.edition.local_exe(17), self.edition.path / "build"
                         / ours.exe(template=True).relative_to(REGISTRY.build_dir))

    def test_a_stage_the_build_could_not_make_has_no_suite(self):
        self.assertTrue(self.edition.has_suite(17))
        self.assertFalse(self.edition.has_suite(18))
        self.assertEqual(build.targets(self.edition, 18), [REGISTRY.stage(18).target("template")])
        self.assertEqual(cli.descriptions(self.edition, [18]), {})

    def test_a_stage_the_edition_lacks_is_a_stop(self):
        with self.assertRaises(Stop) as caught:
            self.edition.stage(9)
        self.assertEqual(caught.exception.code, 2)


class Progress(unittest.TestCase):
    def test_the_estimate_waits_for_the_first_round_then_follows_the_pace(self):
        now = [0.0]
        counting = progress.Progress(40, parallel=4, clock=lambda: now[0])
        lines = []
        for _ in range(4):
            now[0] += 15  # four at a time, a minute each: 4 a minute
            lines.append(counting.step())
        self.assertEqual(lines[0], "graded 1/40 students")
        self.assertEqual(lines[3], "graded 4/40 students, about 9 min left")
        for _ in range(36):
            now[0] += 15
            line = counting.step()
        self.assertEqual(line, "graded 40/40 students")

    def test_every_s_keeps_it_to_a_line_now_and_then(self):
        now = [0.0]
        counting = progress.Progress(10, "submissions", every_s=30, clock=lambda: now[0])
        said = []
        for _ in range(10):
            now[0] += 10
            said.append(counting.step())
        self.assertEqual([l is not None for l in said],
                         [True, False, False, True, False, False, True, False, False, True])
        self.assertEqual(said[-1], "graded 10/10 submissions")
        self.assertEqual(progress.time_left(30), "under a minute left")
        self.assertEqual(progress.time_left(7200), "about 2.0 h left")


class GpuLockOrder(unittest.TestCase):
    """A performance measurement takes a gap in the checks, or, once enough of them wait or
    one has waited too long, goes before sharers that come after it, with the others
    waiting beside it."""

    def holder_then_measurement(self, lock, order, holder):
        """Starts a sharer named `holder` that keeps its share until the returned event is
        set, then a measurement that waits behind it; returns (threads, release)."""
        first_in, release = threading.Event(), threading.Event()

        def hold():
            with lock.shared():
                order.append(holder)
                first_in.set()
                release.wait(10)

        def measure():
            with lock.alone():
                order.append("alone")

        threads = [threading.Thread(target=hold)]
        threads[0].start()
        first_in.wait(5)
        threads.append(threading.Thread(target=measure))
        threads[-1].start()
        while not lock.waiting_alone:
            time.sleep(0.01)
        return threads, release

    @staticmethod
    def sharer(lock, order, name):
        def share():
            with lock.shared():
                order.append(name)
        thread = threading.Thread(target=share)
        thread.start()
        return thread

    def test_a_due_measurement_goes_before_later_sharers(self):
        lock, order = grading.GpuLock(2, batch=1), []
        threads, release = self.holder_then_measurement(lock, order, "early")
        threads += [self.sharer(lock, order, f"late{i}") for i in range(3)]
        time.sleep(0.1)
        self.assertEqual(order, ["early"])  # the late sharers wait behind the measurement
        release.set()
        for thread in threads:
            thread.join(5)
        self.assertEqual(order[:2], ["early", "alone"])
        self.assertEqual(sorted(order[2:]), ["late0", "late1", "late2"])

    def test_a_measurement_not_yet_due_waits_for_a_gap(self):
        """One waiting measurement does not drain the GPU: later sharers go in beside the
        running one; the measurement goes once none is running or waiting."""
        lock, order = grading.GpuLock(2, batch=3, longest_wait=60), []
        threads, release = self.holder_then_measurement(lock, order, "early")
        for i in range(3):
            late = self.sharer(lock, order, f"late{i}")
            late.join(5)
            threads.append(late)
        self.assertEqual(order, ["early", "late0", "late1", "late2"])
        release.set()
        for thread in threads:
            thread.join(5)
        self.assertEqual(order[-1], "alone")

    def test_a_measurement_that_waited_too_long_goes_before_later_sharers(self):
        lock, order = grading.GpuLock(2, batch=3, longest_wait=0.2), []
        threads, release = self.holder_then_measurement(lock, order, "early")
        time.sleep(0.4)
        threads.append(self.sharer(lock, order, "late"))
        time.sleep(0.2)
        self.assertEqual(order, ["early"])  # the late sharer waits behind the measurement
        release.set()
        for thread in threads:
            thread.join(5)
        self.assertEqual(order, ["early", "alone", "late"])

    def test_a_full_batch_runs_before_later_sharers(self):
        """Once `batch` measurements wait, one drain serves them all, back to back."""
        lock, order = grading.GpuLock(3, batch=2, longest_wait=60), []
        threads, release = self.holder_then_measurement(lock, order, "early")

        def measure():
            with lock.alone():
                order.append("alone")
        threads.append(threading.Thread(target=measure))
        threads[-1].start()
        while lock.waiting_alone < 2:
            time.sleep(0.01)
        threads += [self.sharer(lock, order, f"late{i}") for i in range(2)]
        time.sleep(0.2)
        self.assertEqual(order, ["early"])
        release.set()
        for thread in threads:
            thread.join(5)
        self.assertEqual(order[:3], ["early", "alone", "alone"])
        self.assertEqual(sorted(order[3:]), ["late0", "late1"])

    def test_a_stuck_sharer_lets_later_sharers_in(self):
        """A share held past the lock's patience (a hung kernel) does not stop every other
        check: later sharers get in while the measurement waits for it; once it ends, the
        measurement goes as soon as they are done."""
        lock, order = grading.GpuLock(3, patience=0.2, batch=1), []
        threads, release = self.holder_then_measurement(lock, order, "stuck")
        threads.append(self.sharer(lock, order, "late"))
        time.sleep(0.1)
        self.assertEqual(order, ["stuck"])  # not stuck yet: the late sharer waits
        deadline = time.monotonic() + 5
        while "late" not in order and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(order, ["stuck", "late"])  # in beside the stuck one
        release.set()
        for thread in threads:
            thread.join(5)
        self.assertEqual(order, ["stuck", "late", "alone"])

    def test_each_correctness_process_holds_its_own_share(self):
        """A student's check takes a share per process, so a measurement that asks between
        two of them goes next instead of waiting for the whole check."""
        ctx = grading.Context(out=pathlib.Path("/nonexistent"), gpu=grading.GpuLock(2),
                              sandbox="the sandbox")
        seen = []

        def fake_run(box, command, work, log, timeout, env=None):
            seen.append((box, command, ctx.gpu.inside, env))
            return 0, ""

        with mock.patch.object(grading.isolation, "run", fake_run):
            runner = grading.gpu_runner(ctx)
            runner(["suite"], "work", "log", 5, env={"A": "1"})
            self.assertEqual(ctx.gpu.inside, 0)
            runner(["tool"], "work", "log", 5)
        self.assertEqual(seen, [("the sandbox", ["suite"], 1, {"A": "1"}),
                                ("the sandbox", ["tool"], 1, None)])


if __name__ == "__main__":
    unittest.main()
