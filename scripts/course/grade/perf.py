"""The performance part: the student's stage executable and the answer's, alternated on the
same GPU (each round one run of each, every timed run starting from a clean L2, the
executables' default), scored by the ratio of their medians."""
import statistics

from course import describe, report
from course.grade import sandbox as isolation


def options(description, repeat):
    extra = ["--gpus", "1"] if describe.takes_gpus(description) else []
    return ["--csv", "--repeat", str(repeat), *extra]


def one_run(sandbox, work, exe, description, repeat, log, timeout):
    """The GPU time (ms) of one --csv run of `exe` (the template's executable as the sandbox
    sees it), or None when it failed or did not match."""
    code, text = isolation.run(sandbox, [exe, *options(description, repeat)], work, log, timeout)
    row = report.csv_line(text) if code == 0 else None
    if row is None:
        return None
    typed = report.typed_csv_row(row)
    return typed["gpu_ms"] if typed["match"] else None


def measure(sandbox, student_work, answer_work, stage, description, rubric, out_dir):
    """{'student_ms', 'answer_ms', 'ratio'} from alternated rounds; ratio None when a run of
    the student's failed. `stage`: the edition registry's Stage (its template executable,
    seen at the sandbox's fixed path, is the same file in both copies)."""
    settings, timeout = rubric["performance"], rubric["limits"]["performance"]
    exe = stage.exe(template=True)
    times = {"student": [], "answer": []}
    for round_number in range(1, int(settings["rounds"]) + 1):
        for who, work in (("student", student_work), ("answer", answer_work)):
            log = out_dir / f"performance.{who}.{round_number}.log"
            times[who].append(one_run(sandbox, work, exe, description,
                                      int(settings["repeat"]), log, timeout))
    if None in times["student"] or None in times["answer"]:
        return {"student_ms": None, "answer_ms": None, "ratio": None,
                "detail": "a timed run failed or gave a wrong result"}
    student, answer = statistics.median(times["student"]), statistics.median(times["answer"])
    return {"student_ms": student, "answer_ms": answer, "ratio": student / answer,
            "rounds": times}
