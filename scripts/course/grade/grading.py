"""One student, start to end: read the submission, decide integrity and what is not
started, build what may be built, run it on the GPU, score it. The result is a dict that
report.py writes as result.json."""
import datetime
import hashlib
import hmac
import shutil
import threading
import time

from course import rules
from course.todo_markers import code_by_block
from course.grade import build, integrity, perf, rubric as rubrics, run, submissions
from course.grade import sandbox as isolation

NOT_STARTED, INTEGRITY, BUILD_ERROR = "not started", "integrity", "build error"
NO_DEVICE, PASS, FAIL, UNREADABLE = "not graded: no CUDA device", "pass", "fail", "unreadable"
NO_NCCL = "not graded: no NCCL"
# A correctness process running longer than this is most likely a hung kernel waiting for its
# time limit; if it is only a long suite, letting others in beside it costs nothing (GpuLock).
STUCK_AFTER_S = 60
# Measurements wait for a gap in the checks until this many are waiting or one has waited
# this long; then no new check starts until every waiting measurement has run (GpuLock).
MEASUREMENT_BATCH = 6
LONGEST_MEASUREMENT_WAIT_S = 60


class GpuLock:
    """Correctness runs share the GPU (a few processes at a time); a performance measurement
    has it alone, so that no other student's kernel runs between its rounds. Handing the GPU
    to a measurement costs a drain: no new check may start until the running ones end, and
    a check process runs for seconds. So a measurement goes at once only where the GPU is
    free anyway (nothing running, no check waiting); otherwise measurements gather until
    `batch` of them wait or the first has waited `longest_wait` seconds, and then one drain
    serves them all: no new sharer starts until every waiting measurement has run. (Handing
    over for each measurement drained the GPU some 50 times a class, and never handing over
    let a steady stream of sharers keep students, and the builds behind them, waiting.) Each
    correctness process holds its own share (gpu_runner), so a drain waits for the processes
    running, not for those students' whole checks. While one of those has run past
    `patience` (a kernel that never ends, until its time limit kills it), the measurements
    could not run anyway, so new sharers are let in meanwhile instead of the whole class
    waiting for that one limit."""

    def __init__(self, sharers, patience=STUCK_AFTER_S, batch=MEASUREMENT_BATCH,
                 longest_wait=LONGEST_MEASUREMENT_WAIT_S):
        self.condition, self.sharers, self.patience = threading.Condition(), sharers, patience
        self.batch, self.longest_wait = batch, longest_wait
        self.inside, self.exclusive, self.waiting_shared = 0, False, 0
        self.draining = False  # measurements first, until none waits
        self.started = {}  # each running share's time.monotonic() at its start
        self.asked = {}  # each waiting measurement's time.monotonic() when it asked

    @property
    def waiting_alone(self):
        return len(self.asked)

    def stuck(self):
        now = time.monotonic()
        return any(now - start > self.patience for start in self.started.values())

    def measurements_first(self):
        """Whether the waiting measurements go before new sharers (called with the
        condition held)."""
        if not self.asked:
            self.draining = False
        elif (len(self.asked) >= self.batch
              or time.monotonic() - min(self.asked.values()) > self.longest_wait):
            self.draining = True
        return self.draining

    def shared(self):
        return _Hold(self, False)

    def alone(self):
        return _Hold(self, True)


class _Hold:
    def __init__(self, lock, alone):
        self.lock, self.alone = lock, alone

    def __enter__(self):
        lock = self.lock
        # Polled as well as notified: a wait or a running share turns long with time alone.
        with lock.condition:
            if self.alone:
                lock.asked[self] = time.monotonic()
                while not (not lock.exclusive and lock.inside == 0
                           and (not lock.waiting_shared or lock.measurements_first())):
                    lock.condition.wait(timeout=1.0)
                del lock.asked[self]
                lock.exclusive = True
            else:
                lock.waiting_shared += 1
                while not (not lock.exclusive and lock.inside < lock.sharers
                           and (not lock.measurements_first() or lock.stuck())):
                    lock.condition.wait(timeout=1.0)
                lock.waiting_shared -= 1
                lock.inside += 1
                lock.started[self] = time.monotonic()

    def __exit__(self, *_):
        lock = self.lock
        with lock.condition:
            if self.alone:
                lock.exclusive = False
            else:
                lock.inside -= 1
                lock.started.pop(self, None)
            lock.condition.notify_all()


class Context:
    """What every student's grading shares (cli.py fills it in): among it `stages` ({number:
    Stage} of the course's own registry: every stage's folder, answer, hints, lesson and
    allow-list), `numbers` (the graded ones) and `edition` (build.Edition: the pristine
    build's own registry, what it made and its targets as the sandbox sees them)."""

    def __init__(self, **fields):
        self.answer_work, self.expected = {}, {}
        self.noise = {}  # {stage: the timing noise calibration measured (calibrate.noise)}
        # Set by cli.context from the machine: each compiler's memory (None: the rubric's)
        # and the GPU memory's theoretical bandwidth (None: unknown, nothing flagged).
        self.build_memory_gib = self.peak_gbps = None
        # Calibration's, for a submission that `waits_for_answers`: answer_built {stage:
        # Event}, set once the answer of that stage is built (the judge of the cross-check and
        # the yardstick of a measurement), before which its GPU work does not start; and
        # answers_ready, set once the answers are graded (the timing noise is known), before
        # which it is not scored. None: nothing to wait for.
        self.answer_built = self.answers_ready = None
        self.__dict__.update(fields)
        self.logs = self.out / "students"  # each student's logs, beside their result.json
        # Each student's unpacked copy and build. The calibration's live under another
        # folder (calibrate.py), so that no student id, whatever it is, reaches them.
        self.scratch = self.work / "students" if "work" in fields else None


# ---------------------------------------------------------------------------- deciding
def stage_result(status, maximum, **extra):
    return {"status": status, "points": 0, "max": maximum, "checks": [], **extra}


def decide(ctx, number, text):
    """The stage's result when it can be decided without building, else None."""
    maximum = rubrics.maximum(ctx.rubric, number)
    if text is None:
        return stage_result(NOT_STARTED, maximum, detail="todo.cu is missing")
    violations = integrity.check(ctx.templates[number], text, ctx.stages[number])
    if violations:
        return stage_result(INTEGRITY, maximum, integrity=[v.as_dict() for v in violations],
                            detail=str(violations[0]))
    if not any(code_by_block(text).values()):
        return stage_result(NOT_STARTED, maximum, detail="every TODO block is empty")
    return None


def score(ctx, number, verdicts, performance):
    """The stage's result from its verdicts and its performance measurement."""
    table = rubrics.points(ctx.rubric, number)
    checks = [{**v.as_dict(), "points": table[v.name] if v.ok else 0, "max": table[v.name]}
              for v in verdicts]
    correct = all(v.ok for v in verdicts)
    result = stage_result(PASS if correct else FAIL, rubrics.maximum(ctx.rubric, number),
                          checks=checks)
    if correct and performance:
        # The bands widened by the noise calibration measured: a ratio counts as
        # ratio / noise, so the answer timed against itself keeps its full share.
        noise = ctx.noise.get(number, 1.0)
        ratio = performance["ratio"] / noise if performance["ratio"] else None
        share = rubrics.performance_share(ctx.rubric, ratio)
        performance = dict(performance, points=tidy(table["performance"] * share), noise=noise)
    else:
        performance = {"ratio": None, "points": 0,
                       "detail": "counts only for a correct stage" if not correct else "not run"}
    result["performance"] = {k: v for k, v in performance.items() if k != "rounds"}
    result["points"] = tidy(sum(c["points"] for c in checks) + performance["points"])
    return result


def tidy(points):
    """Points as the gradebook shows them: 100, 8.25."""
    points = round(points, 2)
    return int(points) if points == int(points) else points


# ---------------------------------------------------------------------------- grading
def grade(ctx, submission, reference=False):
    """The result of one submission. `reference`: an answer whose build is kept as the
    performance yardstick of its stages."""
    scratch = ctx.scratch / submission.student
    out = ctx.logs / submission.student
    out.mkdir(parents=True, exist_ok=True)
    folders = {n: ctx.stages[n].folder for n in ctx.numbers}
    try:
        root = submissions.unpack(submission, scratch / "unpacked")
        sources = submissions.graded_sources(root, folders.values())
    except submissions.SubmissionError as error:
        return unreadable(ctx, submission, str(error))
    result = {"student": submission.student, "digest": submissions.digest(sources),
              "submitted": submission.entry.name,
              "ignored_files": submissions.ignored_files(
                  root, build.ROOT, [s.folder for s in ctx.stages.values()]),
              "stages": {}}
    texts = {n: sources[folders[n]] for n in ctx.numbers}
    to_build = {}
    fingerprints = {n: integrity.fingerprint(t) if t else None for n, t in texts.items()}
    for number in ctx.numbers:
        decided = decide(ctx, number, texts[number])
        if decided:
            result["stages"][f"{number:02d}"] = decided
        else:
            to_build[number] = texts[number]
    if to_build:
        work = scratch / "edition"
        build.student_copy(ctx.edition, work, {folders[n]: t for n, t in to_build.items()})
        for number in to_build:
            result["stages"][f"{number:02d}"] = built_stage(
                ctx, work, number, out, reference, student_seed(
                    ctx.seed, submission.student, number, ctx.descriptions.get(number, {})),
                submission.waits_for_answers)
        if reference:
            ctx.answer_work.update({n: work for n in to_build})
        else:
            shutil.rmtree(work, ignore_errors=True)
    for number, code in fingerprints.items():
        result["stages"][f"{number:02d}"]["fingerprint"] = code
    shutil.rmtree(scratch / "unpacked", ignore_errors=True)
    return finish(ctx, result)


def student_seed(secret, student, number, description):
    """The hidden-seed tests' seed for one student's stage, derived from the instructor's
    secret: another for every student and stage (the calibration's submissions included),
    so that what one run could learn of its seed says nothing about anyone else's. Never the
    public default seed (the stage's --describe says it), whose answers a kernel may have
    remembered."""
    mac = hmac.new(str(secret).encode(), f"{student}\0{number}".encode(), hashlib.sha256)
    seed = int.from_bytes(mac.digest()[:4], "big")
    return seed ^ 1 if seed == description.get("default_seed") else seed


def built_stage(ctx, work, number, out, reference, seed, wait=False):
    maximum = rubrics.maximum(ctx.rubric, number)
    stage_out = out / f"stage{number:02d}"
    stage_out.mkdir(parents=True, exist_ok=True)
    source = work / "stages" / ctx.stages[number].folder / "todo.cu"
    log = stage_out / "build.log"
    clock = Laps()
    with ctx.builds:  # the compilers get the cores; students waiting for the GPU do not
        clock.lap("build_wait")
        limits = dict(ctx.rubric["limits"])
        limits["build_memory_gib"] = ctx.build_memory_gib or limits["build_memory_gib"]
        ok, text = build.build_stage(ctx.sandbox, ctx.edition, work, number, log, limits,
                                     ctx.build_jobs)
        clock.lap("build")
    if reference:  # its build is the yardstick from now on, even while it is being graded
        if ok:
            ctx.answer_work[number] = work
        if ctx.answer_built and number in ctx.answer_built:
            ctx.answer_built[number].set()
    if not ok:
        verdict = rules.judge_build(text, source, log)
        return stage_result(BUILD_ERROR, maximum, detail=verdict.detail, log=str(log),
                            checks=[{**verdict.as_dict(), "points": 0, "max": 0}])
    if not ctx.have_device:
        return stage_result(NO_DEVICE, maximum)
    stage = ctx.edition.stage(number)
    if number not in ctx.descriptions:  # a stage the edition's build could not make (NCCL)
        return stage_result(NO_NCCL, maximum,
                            detail=f"stage {number} {stage.why_not_built or 'was not built'}")
    if wait and ctx.answer_built and number in ctx.answer_built:
        ctx.answer_built[number].wait()
    answer = work if reference else ctx.answer_work.get(number)
    clock.lap("answer_wait")
    verdicts, names = run.check_stage(gpu_runner(ctx), work, stage, source, stage_out,
                                      ctx.descriptions[number], ctx.rubric["limits"],
                                      seed, ctx.expected.get(number), ctx.tool_jobs,
                                      verifier_work=answer)
    if reference and names:
        ctx.expected.setdefault(number, names)
    performance = None
    clock.lap("checks")
    if all(v.ok for v in verdicts) and answer is not None:
        with ctx.gpu.alone():
            clock.lap("performance_wait")
            performance = perf.measure(ctx.sandbox, work, answer, stage,
                                       ctx.descriptions[number], ctx.rubric, stage_out,
                                       ctx.peak_gbps)
            clock.lap("performance")
    if wait and ctx.answers_ready is not None:
        ctx.answers_ready.wait()
    return dict(score(ctx, number, verdicts, performance), seconds=clock.laps)


class Laps:
    """Where a student's stage spent its wall-clock time (result.json's `seconds`): each
    lap's name and the seconds since the lap before, the waits for a build slot, the
    answer and the GPU among them."""

    def __init__(self):
        self.laps, self.last = {}, time.monotonic()

    def lap(self, name):
        now = time.monotonic()
        self.laps[name] = round(now - self.last, 1)
        self.last = now


def gpu_runner(ctx):
    """isolation.run for one correctness process, holding a share of the GPU while it runs."""
    def runner(command, work, log, timeout, env=None):
        with ctx.gpu.shared():
            return isolation.run(ctx.sandbox, command, work, log, timeout, env=env)
    return runner


def unreadable(ctx, submission, why):
    result = {"student": submission.student, "digest": None, "submitted": submission.entry.name,
              "ignored_files": [], "detail": why,
              "stages": {f"{n:02d}": stage_result(UNREADABLE, rubrics.maximum(ctx.rubric, n),
                                                  detail=why) for n in ctx.numbers}}
    return finish(ctx, result)


def finish(ctx, result):
    result["total"] = tidy(sum(s["points"] for s in result["stages"].values()))
    result["max"] = sum(s["max"] for s in result["stages"].values())
    result["rubric"] = ctx.rubric_digest
    result["seed"] = ctx.seed_digest
    result["graded_at"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    return result
