"""Calibration, before anyone is graded: every attempt of the red-team file
(tests/grade/redteam/integrity.toml) must be stopped by the rule it names and every honest
solution there let through; the answers of the graded stages must pass every check (their
time against themselves measures the machine's timing noise, noise() below); every runtime
attempt of tests/grade/redteam/runtime.toml must come out as it says (graded once the answers
are, since their build times it); and every entry
of tests/mistakes/ must lose points with its `Expect:` key (an entry that has to change lines
outside the TODO blocks, `Outside:`, must fail integrity; an `Expect: pass` entry is what no
check catches and is left out). Otherwise the grader stops and says which. The result is kept
per course commit, rubric and seed, so a class run calibrates once; the answers' builds stay
as the performance yardstick."""
import concurrent.futures
import copy
import importlib.util
import json
import pathlib
import threading

from course import rules
from course.gpu import tool_output
from course.grade import grading, redteam, submissions
from course.grade.build import ROOT
from course.grade.progress import Progress

ANSWERS = "calibration-answers"


def apply_patch_module():
    spec = importlib.util.spec_from_file_location(
        "apply_patch", ROOT / "tests" / "mistakes" / "apply_patch.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Entry:
    """One corpus entry as a submission: its stage, its id, what it must show."""

    def __init__(self, number, folder, slug, expect, outside, text):
        self.number, self.folder, self.slug = number, folder, slug
        self.expect, self.outside, self.text = expect, outside, text
        self.student = f"calibration-{number:02d}-{slug}"


def corpus(stages):
    """The corpus entries of `stages` (the course registry's Stages) that must lose points."""
    patcher = apply_patch_module()
    entries = []
    for stage in stages:
        answer = stage.answer_source.read_text(encoding="utf-8")
        for patch in sorted((ROOT / "tests" / "mistakes" / stage.folder).glob("*.patch")):
            headers, hunks = patcher.parse(patch.read_text(encoding="utf-8"))
            if headers.get("Expect") == "pass":
                continue
            entries.append(Entry(stage.number, stage.folder, patch.stem, headers["Expect"],
                                 "Outside" in headers, patcher.apply(answer, hunks)))
    return entries


def write_submission(folder, sources):
    """A submission folder holding only stages/<name>/todo.cu files."""
    for name, text in sources.items():
        path = pathlib.Path(folder) / "stages" / name / "todo.cu"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return submissions.Submission(pathlib.Path(folder).name, folder)


def attack_submission(folder, stage, attack):
    """A runtime red-team attempt as a submission whose GPU work waits for the answers."""
    text = redteam.submission(attack, stage.answer_source.read_text(encoding="utf-8"))
    made = write_submission(pathlib.Path(folder) / redteam.student(attack), {stage.folder: text})
    made.waits_for_answers = True
    return made


def answer_sources(stages):
    """{stage folder: its answer's todo.cu} for `stages` (the course registry's Stages)."""
    return {s.folder: s.answer_source.read_text(encoding="utf-8") for s in stages}


# ---------------------------------------------------------------------------- verdicts
def answer_problems(result, numbers):
    """What keeps the answers from full marks but their timing: every check must pass and
    the performance must have been measured. Their time against themselves only measures
    the machine's noise (noise below), which widens the bands instead of failing anything."""
    problems = []
    for number in numbers:
        stage = result["stages"][f"{number:02d}"]
        correct = stage["status"] == grading.PASS
        measured = (stage.get("performance") or {}).get("ratio") is not None
        if not (correct and measured):
            problems.append(f"the answer of stage {number:02d} scored {stage['points']} of "
                            f"{stage['max']} ({stage['status']}: {failing(stage)})")
    return problems


def noise(result, numbers):
    """{stage: noise}: the answer timed against itself, as the largest of its ratio, the
    ratio's inverse and the spread of its rounds (slowest over fastest). Every student's
    ratio is divided by it before the rubric's bands read it, so the bands stand for
    differences the machine's own noise cannot make."""
    found = {}
    for number in numbers:
        performance = result["stages"][f"{number:02d}"].get("performance") or {}
        ratio = performance.get("ratio")
        if ratio:
            found[number] = max(ratio, 1.0 / ratio, performance.get("spread") or 1.0)
    return found


def failing(stage):
    keys = [c["key"] for c in stage.get("checks", []) if c.get("key")]
    ratio = (stage.get("performance") or {}).get("ratio")
    extra = [f"performance ratio {ratio:.2f}"] if ratio else []
    return ", ".join(keys + extra) or stage.get("detail", "")


def entry_problem(entry, result):
    stage = result["stages"][f"{entry.number:02d}"]
    name = f"tests/mistakes/{entry.folder}/{entry.slug}.patch"
    if entry.outside:
        return None if stage["status"] == grading.INTEGRITY else (
            f"{name} changes lines outside the TODO blocks but was not stopped by integrity")
    keys = [c["key"] for c in stage.get("checks", []) if c.get("key")]
    if stage["points"] >= stage["max"]:
        return f"{name} (Expect: {entry.expect}) lost no points"
    if not any(rules.key_matches(key, entry.expect) for key in keys):
        return (f"{name} lost points but not with its key {entry.expect} "
                f"({stage['status']}: {', '.join(keys) or stage.get('detail', '')})")
    return None


def integrity_only(ctx, entries):
    """Without a GPU: the answers and the corpus as far as integrity decides them."""
    problems = []
    answers = answer_sources(ctx.stages[n] for n in ctx.numbers)
    for number in ctx.numbers:
        decided = grading.decide(ctx, number, answers[ctx.stages[number].folder])
        if decided:
            problems.append(f"the answer of stage {number:02d} is {decided['status']}: "
                            f"{decided.get('detail', '')}")
    for entry in entries:
        decided = grading.decide(ctx, entry.number, entry.text)
        stopped = decided is not None and decided["status"] == grading.INTEGRITY
        if stopped != entry.outside:
            problems.append(f"tests/mistakes/{entry.folder}/{entry.slug}.patch: integrity "
                            f"{'stopped' if stopped else 'did not stop'} it")
    return problems


# ---------------------------------------------------------------------------- the run
def cache_key(ctx):
    commit = tool_output(["git", "-C", str(ROOT), "rev-parse", "HEAD"]) or "unknown"
    dirty = tool_output(["git", "-C", str(ROOT), "status", "--porcelain", "--", "answers",
                         "tests", "common", "stages"])
    stage_list = "-".join(f"{n:02d}" for n in ctx.numbers)
    changes = "+changes" if dirty else ""
    return f"{commit}{changes}:{ctx.rubric_digest[:16]}:{ctx.seed_digest[:16]}:{stage_list}"


def calibrate(ctx, grade_all, say):
    """Grades the answers and the corpus (grade_all(ctx, submissions, reference, on_done)
    grades a list in parallel and returns the results), saying its progress now and then;
    returns a list of problems (empty: calibrated)."""
    # The red-team file first: integrity alone decides it, with or without a GPU.
    attempts = redteam.problems(ctx.stages, set(ctx.numbers))
    if not ctx.have_device:
        return attempts + integrity_only(ctx, corpus(ctx.stages[n] for n in ctx.numbers))
    if attempts:
        return attempts
    runnable = [n for n in ctx.numbers if n in ctx.descriptions]  # not stage 18 without NCCL
    entries = corpus(ctx.stages[n] for n in runnable)
    cache_path = ctx.work / "calibration.json"
    key = cache_key(ctx)
    cached = json.loads(cache_path.read_text()) if cache_path.exists() else None
    answers_dir = ctx.work / "calibration" / "students" / ANSWERS / "edition"
    if cached and cached.get("key") == key and not cached["problems"] and answers_dir.is_dir():
        ctx.answer_work.update({n: answers_dir for n in ctx.numbers})
        ctx.expected.update({int(n): names for n, names in cached["expected"].items()})
        ctx.noise.update({int(n): v for n, v in cached.get("noise", {}).items()})
        say(f"calibration: reused ({cache_path})")
        return []
    folder = ctx.work / "calibration" / "submissions"
    ctx = copy.copy(ctx)  # the same answers and test names; builds and logs apart from the class's
    ctx.logs = ctx.work / "calibration" / "logs"
    ctx.scratch = ctx.work / "calibration" / "students"
    answer = write_submission(folder / ANSWERS,
                              answer_sources(ctx.stages[n] for n in ctx.numbers))
    attacks = redteam.runtime_entries(set(runnable))
    say(f"calibration: the answers of {len(runnable)} stage(s), {len(entries)} corpus entries "
        f"and {len(attacks)} red-team attempts")
    made = [write_submission(folder / e.student, {e.folder: e.text}) for e in entries]
    made += [attack_submission(folder, ctx.stages[a["stage"]], a) for a in attacks]
    # The answers, the corpus and the red-team attempts at once (they share the build slots
    # and the GPU lock). No corpus entry needs the answers' build, since an entry that passes
    # every check is a problem whatever its performance; a red-team attempt does (it may
    # only be caught by its measurement), so its GPU work waits for the answer's build, and
    # its score for the noise the answers' own measurement gives.
    progress = Progress(len(made) + 1, "submissions", parallel=ctx.jobs, every_s=30)
    ctx.answer_built = {n: threading.Event() for n in runnable}
    ctx.answers_ready = threading.Event()

    def done(_result):
        line = progress.step()
        if line:
            say(f"calibration: {line}")

    def grade_answers():
        try:
            graded = grade_all(ctx, [answer], True, done)[0]
            ctx.noise.update(noise(graded, runnable))
            return graded
        finally:
            for built in ctx.answer_built.values():  # also where the answer never built
                built.set()
            ctx.answers_ready.set()

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as side:
        answered = side.submit(grade_answers)
        results = grade_all(ctx, made, reference=False, on_done=done)
        result = answered.result()
    problems = answer_problems(result, runnable)
    problems += [p for e, r in zip(entries, results) if (p := entry_problem(e, r))]
    problems += [p for a, r in zip(attacks, results[len(entries):])
                 if (p := redteam.runtime_problem(a, r["stages"][f"{a['stage']:02d}"]))]
    cache_path.write_text(json.dumps({"key": key, "problems": problems,
                                      "expected": {str(n): v for n, v in ctx.expected.items()},
                                      "noise": {str(n): v for n, v in ctx.noise.items()}},
                                     indent=1) + "\n")
    return problems
