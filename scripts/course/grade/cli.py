"""scripts/grade.sh: grade a whole class on one GPU machine.

    scripts/grade.sh --submissions DIR --out DIR [--stages 7-14] [--rubric FILE]
                     [--secret-seed S | --secret-seed FILE] [--regrade ID] [--jobs N]
                     [--no-sandbox]
    scripts/grade.sh --synthetic-class 40 --stages 14 --out DIR    a made-up class, graded

DIR holds one folder, .zip or .tar.gz per student (a copy of the student edition); only
stages/stageNN_*/todo.cu is read. Results go to DIR (--out) as each student finishes;
a second run skips students already graded with the same submission, rubric and seed.
Exit code: 0 graded, 1 calibration failed (the answers or the corpus did not score as they
must), 2 bad usage, 3 no CUDA device (everything decidable without one is written),
4 a tool or the sandbox is missing or the pristine edition did not build.
"""
import argparse
import concurrent.futures
import datetime
import hashlib
import json
import os
import pathlib
import re
import secrets
import shutil
import threading
import traceback
import unicodedata

from course import check, describe, registry
from course.cli import Stop, run_main
from course.gpu import machine
from course.grade import (build, calibrate, grading, integrity, lexer, report, rubric as rubrics,
                          sandbox as isolation, submissions, synthetic)
from course.grade.progress import Progress

PROGRAM = "grade.sh"
# What a synthetic class's red-team students must come to (synthetic.make_class), in OUT.
EXPECTED = "synthetic-expected.json"
# Students whose suites and sanitizers share the GPU at once: each runs its suite, then up
# to `tool_jobs` tools at a time, each process with its own context and buffers.
GPU_STUDENTS = 6
TOOL_JOBS = 4


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise Stop(f"{PROGRAM}: error: {message} (see scripts/grade.sh --help)", 2)


def parse(argv):
    parser = Parser(prog="scripts/grade.sh", description="Grade a class (see docs/grading.md).")
    parser.add_argument("--submissions", type=pathlib.Path, help="one entry per student")
    parser.add_argument("--out", type=pathlib.Path, required=True, help="where results go")
    parser.add_argument("--stages", default=None, help="N, A-B or A,B,...: default every stage")
    parser.add_argument("--rubric", type=pathlib.Path, help="TOML or JSON; default: built in")
    parser.add_argument("--secret-seed", help="the hidden tests' seed, or a file holding it")
    parser.add_argument("--regrade", metavar="ID", type=lambda text: unicodedata.normalize("NFC", text),
                        help="grade this student again (an id starting with - as --regrade=-x)")
    parser.add_argument("--jobs", type=int, default=0, help="students built at once")
    parser.add_argument("--no-sandbox", action="store_true", help="run without isolation")
    parser.add_argument("--synthetic-class", type=int, metavar="N",
                        help="grade N made-up students (the speed measurement)")
    args = parser.parse_args(argv)
    args.numbers = stage_numbers(args.stages)
    for option, folder in (("--out", args.out), ("--submissions", args.submissions)):
        if folder is not None and inside_course(folder):
            raise Stop(f"{PROGRAM}: error: {option} {folder} is inside the course, whose files "
                       "make the pristine edition: use a folder outside it (or under build/)", 2)
    if args.synthetic_class is None and args.submissions is None:
        raise Stop(f"{PROGRAM}: error: give --submissions DIR (or --synthetic-class N)", 2)
    if args.synthetic_class is not None and args.synthetic_class < 1:
        raise Stop(f"{PROGRAM}: error: --synthetic-class needs a positive count", 2)
    if args.jobs < 0:
        raise Stop(f"{PROGRAM}: error: --jobs needs a positive count (0: half the cores)", 2)
    return args


def inside_course(folder):
    """Whether `folder` is in the course tree but not in a build folder (build/, build-*/),
    which the student edition leaves out."""
    try:
        relative = folder.resolve().relative_to(registry.ROOT)
    except ValueError:
        return False
    first = relative.parts[0] if relative.parts else ""
    return not (first == "build" or first.startswith("build-"))


def stage_numbers(text):
    """The stages --stages names: N, A-B (the stages in the range) or a comma list, among
    those the course's registry has."""
    known_stages = build.course_registry()
    if text is None:
        return known_stages.numbers()
    requested, singles = set(), set()
    for part in text.split(","):
        match = re.fullmatch(r"\s*(\d{1,2})\s*(?:-\s*(\d{1,2})\s*)?", part)
        if not match:
            raise Stop(f"{PROGRAM}: error: --stages takes N, A-B or A,B, not '{text}'", 2)
        first, last = int(match.group(1)), int(match.group(2) or match.group(1))
        requested.update(range(first, last + 1))
        if match.group(2) is None:
            singles.add(first)
    known = sorted(n for n in requested if known_stages.get(n))
    if not known or any(not known_stages.get(n) for n in singles):
        raise Stop(f"{PROGRAM}: error: --stages {text}: the stages are "
                   f"{known_stages.listing()}", 2)
    return known


def secret_seed(given, out):
    """The seed: as given, read from a file, or made once and kept in out/.secret_seed."""
    kept = out / ".secret_seed"
    if given is None:
        if not kept.exists():
            kept.write_text(str(secrets.randbelow(2**32 - 1) + 1) + "\n")
            kept.chmod(0o600)
        given = str(kept)
    text = pathlib.Path(given).read_text().strip() if pathlib.Path(given).is_file() else given
    if not re.fullmatch(r"\d{1,10}", text) or int(text) >= 2**32:
        raise Stop(f"{PROGRAM}: error: --secret-seed takes a number from 0 to 4294967295 or "
                   "a file holding one", 2)
    return int(text)


def seed_digest(seed):
    """What the results keep of the seed: enough to tell two seeds apart, too slow to make
    to search all 2^32 seeds for it."""
    return hashlib.pbkdf2_hmac("sha256", str(seed).encode(), b"reduce-grade", 200_000).hex()


def require_tools():
    for tool in ("cmake", "nvcc"):
        if not shutil.which(tool):
            raise Stop(f"{PROGRAM}: error: {tool} not found; the grader builds the submissions "
                       "with CMake and the CUDA toolkit (put nvcc on PATH)", 4)
    try:
        lexer.tokens("int x;")
    except lexer.Missing as missing:
        raise Stop(f"{PROGRAM}: error: {missing}", 4) from None


# ---------------------------------------------------------------------------- set-up
def build_memory_gib(limit, compilers):
    """Each compiler's memory limit: the rubric's, or less, so that `compilers` of them at
    once (students building at a time x compile jobs each) fit in 80% of this machine's
    memory."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / (1 << 30)
    return min(limit, 0.8 * total / max(1, compilers))


def context(args, say):
    out = args.out.resolve()
    work = out / ".work"
    work.mkdir(parents=True, exist_ok=True)
    rubric = load_rubric(args.rubric)
    seed = secret_seed(args.secret_seed, out)
    sandbox = isolation.detect(work / "probe", args.no_sandbox, hidden=[registry.ROOT, out])
    if sandbox is None:
        raise Stop(f"{PROGRAM}: error: no sandbox: install bubblewrap (apt install bubblewrap) "
                   "or let util-linux unshare make namespaces, or pass --no-sandbox to run the "
                   "submissions without isolation", 4)
    say(f"isolation: {sandbox.describe()}")
    cores = os.cpu_count() or 2
    jobs = args.jobs or max(1, cores // 2)
    checking = min(jobs, GPU_STUDENTS)
    # Every stage of the course's registry (the feedback of a result kept from an earlier
    # run may name one this run does not grade); the graded ones' rules must know their facts.
    stages = {s.number: s for s in build.course_registry().stages}
    for number in args.numbers:
        try:
            integrity.facts_of(stages[number])
        except ValueError as error:
            raise Stop(f"{PROGRAM}: error: {error}", 4) from None
    listed = ", ".join(f"{n:02d}" for n in args.numbers)
    say(f"building the pristine student edition (stages {listed})")
    edition = build.prepare(sandbox, work, args.numbers, rubric["limits"], cores)
    found, device = build.probe(edition)
    say(f"device: {device}")
    ctx = grading.Context(
        out=out, work=work, rubric=rubric, rubric_digest=rubrics.digest(rubric), seed=seed,
        seed_digest=seed_digest(seed), sandbox=sandbox, stages=stages,
        edition=edition, numbers=args.numbers, have_device=found, device=device, jobs=jobs,
        build_jobs=2, tool_jobs=TOOL_JOBS, checking=checking,
        gpu=grading.GpuLock(checking * TOOL_JOBS),
        builds=threading.BoundedSemaphore(jobs),
        templates={n: edition.template(n) for n in args.numbers})
    ctx.build_memory_gib = build_memory_gib(rubric["limits"]["build_memory_gib"], jobs * 2)
    ctx.peak_gbps = build.peak_gbps(edition) if found else None
    ctx.descriptions = descriptions(edition, args.numbers) if found else {}
    if found:
        check.sanitizer_path(PROGRAM)
    return ctx


def load_rubric(path):
    try:
        return rubrics.load(path)
    except rubrics.RubricError as error:
        raise Stop(f"{PROGRAM}: error: {error}", 2) from None


def descriptions(edition, numbers):
    """What each stage's executable is, from the pristine template's --describe (the plan
    lies outside the TODO blocks, so every student's is the same)."""
    found = {}
    for number in numbers:
        if not edition.has_suite(number):
            continue  # not made by this build (stage 18 without NCCL): 'not graded: no NCCL'
        found[number] = describe.describe_or_stop(edition.local_exe(number), PROGRAM)
    return found


def manifest(ctx, args):
    return {**machine(), "course_commit": calibrate.cache_key(ctx).split(":")[0],
            "rubric": str(args.rubric) if args.rubric else "default (scripts/course/grade/"
            "default_rubric.toml)", "rubric_digest": ctx.rubric_digest,
            "secret_seed_digest": ctx.seed_digest, "stages": ctx.numbers,
            "isolation": ctx.sandbox.kind, "isolation_detail": ctx.sandbox.describe(),
            "probe": ctx.device, "cuda_device": ctx.have_device,
            "memory_peak_gbps": ctx.peak_gbps,
            "timing_noise": {f"{n:02d}": round(v, 3) for n, v in ctx.noise.items()},
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}


# ---------------------------------------------------------------------------- grading
def grade_one(ctx, submission, reference):
    try:
        return grading.grade(ctx, submission, reference)
    except Exception as error:  # a grader bug must not stop the class: say so in the result
        (ctx.work / "errors").mkdir(exist_ok=True)
        (ctx.work / "errors" / f"{submission.student}.txt").write_text(traceback.format_exc())
        detail = f"grader error: {type(error).__name__}: {error}"
        result = grading.unreadable(ctx, submission, detail)
        for stage in result["stages"].values():
            stage["status"] = "grader error"
        return result


def grade_all(ctx, entries, reference=False, on_done=None):
    """Every entry graded in parallel; results in the entries' order. ctx.jobs students
    build at once; more are in flight, so that the builds go on while students who have
    built wait for the GPU (their checks or their performance turn)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=ctx.jobs + 2 * ctx.checking) as pool:
        futures = {pool.submit(grade_one, ctx, entry, reference): i for i, entry in enumerate(entries)}
        results = [None] * len(entries)
        for future in concurrent.futures.as_completed(futures):
            results[futures[future]] = future.result()
            if on_done:
                on_done(results[futures[future]])
    return results


def already_graded(ctx, submission):
    """Whether out/students/<id>/result.json is for this very submission, rubric and seed."""
    path = report.student_dir(ctx.out, submission.student) / "result.json"
    if not path.exists():
        return False
    saved = report.load_results(ctx.out)
    saved = next((r for r in saved if r["student"] == submission.student), None)
    if not saved or saved.get("rubric") != ctx.rubric_digest or saved.get("seed") != ctx.seed_digest:
        return False
    if any(s["status"] in (grading.NO_DEVICE, "grader error") for s in saved["stages"].values()):
        return False
    try:
        root = submissions.unpack(submission, ctx.work / "peek" / submission.student)
        sources = submissions.graded_sources(root, [ctx.stages[n].folder for n in ctx.numbers])
    except submissions.SubmissionError:
        return False
    finally:
        shutil.rmtree(ctx.work / "peek" / submission.student, ignore_errors=True)
    return saved.get("digest") == submissions.digest(sources)


def mark_flags(ctx):
    """Adds to every result.json the students it shares TODO blocks with, per stage."""
    results = report.load_results(ctx.out)
    answers = {n: integrity.fingerprint(ctx.stages[n].answer_source.read_text(encoding="utf-8"))
               for n in ctx.numbers}
    for result in results:
        result["flags"] = []
    by_student = {r["student"]: r for r in results}
    for number in ctx.numbers:
        key = f"{number:02d}"
        prints = {r["student"]: r["stages"].get(key, {}).get("fingerprint") for r in results}
        for student, flags in integrity.flags(prints, answers[number]).items():
            by_student[student]["flags"] += [f"stage {key}: {flag}" for flag in flags]
    for result in results:
        report.write_student(ctx.out, result, ctx.stages)


def summary_line(result):
    stages_text = ", ".join(f"{k} {s['status']}" for k, s in sorted(result["stages"].items()))
    return f"{result['student']}: {result['total']} / {result['max']} ({stages_text})"


def choose(ctx, entries, regrade, say):
    chosen = []
    for entry in entries:
        if entry.student != regrade and already_graded(ctx, entry):
            say(f"{entry.student}: already graded (same submission), skipped")
        else:
            chosen.append(entry)
    return chosen


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    args = parse(argv)
    require_tools()

    def say(line):
        print(line, flush=True)

    args.out.mkdir(parents=True, exist_ok=True)
    if args.synthetic_class:
        if args.submissions is None:
            args.submissions = args.out / "synthetic-class"
            shutil.rmtree(args.submissions, ignore_errors=True)
        elif args.submissions.exists() and any(args.submissions.iterdir()):
            raise Stop(f"{PROGRAM}: error: --synthetic-class writes the class into --submissions "
                       f"{args.submissions}, which is not empty", 2)
        try:
            expected = synthetic.make_class(args.submissions, args.synthetic_class, args.numbers)
        except ValueError as error:
            raise Stop(f"{PROGRAM}: error: --synthetic-class: {error}", 2) from None
        (args.out / EXPECTED).write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n",
                                         encoding="utf-8")
    if not args.submissions.is_dir():
        raise Stop(f"{PROGRAM}: error: --submissions {args.submissions} is not a folder", 2)
    try:
        entries = submissions.find(args.submissions)
    except submissions.SubmissionError as error:
        raise Stop(f"{PROGRAM}: error: {error}", 2) from None
    if not entries:
        raise Stop(f"{PROGRAM}: error: {args.submissions} holds no submissions (a folder, .zip "
                   "or .tar.gz per student)", 2)
    if args.regrade and args.regrade not in {e.student for e in entries}:
        raise Stop(f"{PROGRAM}: error: --regrade {args.regrade}: no such student in the "
                   "submissions", 2)
    clock = [datetime.datetime.now()]

    def lap():
        clock.append(datetime.datetime.now())
        return round((clock[-1] - clock[-2]).total_seconds(), 1)

    ctx = context(args, say)
    times = {"pristine_edition_s": lap()}
    report.write_manifest(ctx.out, manifest(ctx, args))
    problems = calibrate.calibrate(ctx, grade_all, say)
    times["calibration_s"] = lap()
    if problems:
        raise Stop("\n".join([f"{PROGRAM}: calibration failed; nobody was graded:"]
                             + [f"  {p}" for p in problems]), 1)
    chosen = choose(ctx, entries, args.regrade, say)
    say(f"grading {len(chosen)} of {len(entries)} submissions, {ctx.jobs} at a time")
    progress = Progress(len(chosen), "students", parallel=ctx.jobs)

    def done(result):
        report.write_student(ctx.out, result, ctx.stages)
        report.write_gradebook(ctx.out, ctx.numbers)
        line = progress.step()
        say(summary_line(result) + (f"; {line}" if line else ""))

    grade_all(ctx, chosen, on_done=done)
    mark_flags(ctx)
    report.write_gradebook(ctx.out, ctx.numbers)
    report.write_class_report(ctx.out, ctx.numbers, ctx.stages)
    times["class_s"] = seconds = lap()
    report.write_manifest(ctx.out, {**manifest(ctx, args), "graded": len(chosen), **times})
    rate = len(chosen) * len(ctx.numbers) / (seconds / 60) if seconds > 0 else 0
    say(f"graded {len(chosen)} submissions x {len(ctx.numbers)} stage(s) in {seconds:.0f} s "
        f"({rate:.1f} stage-submissions per minute; before it, the pristine edition took "
        f"{times['pristine_edition_s']:.0f} s and calibration {times['calibration_s']:.0f} s); "
        f"see {ctx.out / 'class_report.md'}")
    if not ctx.have_device:
        say(f"{ctx.device}: stages that build are marked '{grading.NO_DEVICE}'")
        return 3
    if args.synthetic_class:
        say_redteam(ctx.out, say)
    return 0


def say_redteam(out, say):
    """The synthetic class's red-team students against what make_class expected of them."""
    expected = json.loads((out / EXPECTED).read_text(encoding="utf-8"))
    results = {r["student"]: r for r in report.load_results(out)}
    problems = synthetic.class_problems(results, expected)
    say(f"red-team class: {len(expected) - len(problems)} of {len(expected)} students graded "
        "as expected" + ("" if problems else " ✅"))
    for problem in problems.values():
        say(f"  {problem}")


if __name__ == "__main__":
    run_main(main, PROGRAM)
