"""The performance part: the student's stage executable and the answer's, alternated on the
same GPU (each round one run of each, the answer's first, every timed run starting from a
clean L2, the executables' default), scored by the ratio of their medians. A student's run whose bandwidth
(the bytes the stage must read over its time) is above the memory's theoretical bandwidth
(bench_memory: 2 x memory clock x bus width / 8) did not read what it had to: it is flagged
and earns no performance points."""
import statistics
import time

from course import describe, report
from course.grade import sandbox as isolation


def options(description, repeat):
    extra = ["--gpus", "1"] if describe.takes_gpus(description) else []
    return ["--csv", "--repeat", str(repeat), *extra]


def one_run(sandbox, work, exe, description, repeat, log, timeout):
    """(GPU time in ms, the bandwidth of reading its 4n input bytes once in GB/s) of one
    --csv run of `exe` (the template's executable as the sandbox sees it), or None when it
    failed or did not match. Only the reads count: a stage's writes (a row operation's
    output) can land in the L2 and need not reach the memory within the time."""
    code, text = isolation.run(sandbox, [exe, *options(description, repeat)], work, log, timeout)
    row = report.csv_line(text) if code == 0 else None
    if row is None:
        return None
    typed = report.typed_csv_row(row)
    if not typed["match"] or typed["gpu_ms"] <= 0:
        return None
    return typed["gpu_ms"], 4.0 * typed["n"] / (typed["gpu_ms"] * 1e6)


def above_limit(runs, peak_gbps):
    """The fastest bandwidth among `runs` where it is above the theoretical one, else None."""
    if not peak_gbps:
        return None
    fastest = max(gbps for _, gbps in runs)
    return fastest if fastest > peak_gbps else None


def student_limit(answer_wall_s, limit):
    """Seconds a student's timed run may take: three times the answer's run just before it
    and 5 s more, at most the rubric's limit. Most of a run is the same work in both
    (process start, the input, the CPU's sum): a kernel 100 times slower than the answer's
    adds well under a second to its 21 runs. A run that hangs only under timing then holds
    the GPU alone for some 10 s, not for the rubric's whole limit."""
    return min(limit, 3.0 * answer_wall_s + 5.0)


def measure(sandbox, student_work, answer_work, stage, description, rubric, out_dir,
            peak_gbps=None):
    """{'student_ms', 'answer_ms', 'ratio'} from alternated rounds; ratio None when a run of
    the student's failed or read faster than the memory can (`peak_gbps`, None: unknown).
    `stage`: the edition registry's Stage (its template executable, seen at the sandbox's
    fixed path, is the same file in both copies)."""
    settings, timeout = rubric["performance"], rubric["limits"]["performance"]
    exe = stage.exe(template=True)
    times = {"student": [], "answer": []}
    for round_number in range(1, int(settings["rounds"]) + 1):
        limit = timeout
        for who, work in (("answer", answer_work), ("student", student_work)):
            log = out_dir / f"performance.{who}.{round_number}.log"
            started = time.monotonic()
            times[who].append(one_run(sandbox, work, exe, description,
                                      int(settings["repeat"]), log, limit))
            limit = student_limit(time.monotonic() - started, timeout)
            # A run that hung, failed or went wrong ends the measurement: a kernel that fails
            # only under timing must not hold the GPU alone for every round that is left.
            if times[who][-1] is None:
                return {"student_ms": None, "answer_ms": None, "ratio": None,
                        "detail": f"timed run {round_number} of the {who} failed, hung or "
                                  "gave a wrong result: the measurement stopped there"}
    fastest = above_limit(times["student"], peak_gbps)
    if fastest:
        return {"student_ms": None, "answer_ms": None, "ratio": None, "below_limit": True,
                "detail": f"a timed run read at {fastest:.0f} GB/s, above the memory's "
                          f"{peak_gbps:.0f} GB/s: its time is not credited"}
    student = statistics.median(ms for ms, _ in times["student"])
    answer = statistics.median(ms for ms, _ in times["answer"])
    return {"student_ms": student, "answer_ms": answer, "ratio": student / answer,
            "spread": spread([ms for ms, _ in times["answer"]]),
            "rounds": {who: [ms for ms, _ in runs] for who, runs in times.items()}}


def spread(times):
    """The slowest round over the fastest: how much one executable's time moved between
    rounds on this machine (1.0: not at all)."""
    return max(times) / min(times) if times and min(times) > 0 else 1.0
