"""The pace of a long run, shared by the benchmark's and the grader's progress lines: the
steps planned and done (each with a weight: a run at 2^30 costs more than one at 2^10), and
how long the rest will take at the pace so far. Each caller words its own line
(course.gpu.Progress, course.grade.progress.Progress)."""
import threading
import time


class Pace:
    """Steps planned and done, from any thread. With `parallel` steps under way at once, the
    first few finish together after one step's time, so no estimate is made until that
    many are done."""

    def __init__(self, total=0, parallel=1, clock=time.monotonic):
        self.clock, self.start, self.parallel = clock, clock(), max(1, parallel)
        self.total, self.total_work = total, float(total)
        self.done, self.done_work = 0, 0.0
        self.lock = threading.Lock()

    def plan(self, count, work=None):
        """Adds `count` steps (of `work` in all; `count` by default) to what the run will do."""
        with self.lock:
            self.total += count
            self.total_work += count if work is None else work

    def advance(self, count=1, work=None):
        with self.lock:
            self.done += count
            self.done_work += count if work is None else work

    def elapsed(self, now=None):
        return (self.clock() if now is None else now) - self.start

    def seconds_left(self, now=None):
        """The rest at the pace so far; None before there is a pace to go by."""
        if self.done_work <= 0 or self.done < min(self.parallel, self.total):
            return None
        remaining = max(self.total_work - self.done_work, 0.0)
        return self.elapsed(now) / self.done_work * remaining
