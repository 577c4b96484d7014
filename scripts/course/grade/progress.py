"""Progress of a long run, a line at a time: how many submissions are graded of how many, and
about how long the rest will take at the pace so far ('graded 12/40 students, about 3 min
left')."""
import time

from course.progress import Pace


def time_left(seconds):
    if seconds < 60:
        return "under a minute left"
    if seconds < 90 * 60:
        return f"about {round(seconds / 60)} min left"
    return f"about {seconds / 3600:.1f} h left"


class Progress(Pace):
    """Counts finished submissions (step(), from any thread). `parallel` are graded at once,
    so the first few finish together after one submission's time: the estimate waits until
    that many are done (or all), then takes the pace since the start (course.progress). A
    line is due at each step, or, with `every_s`, at most once in that many seconds and at
    the last."""

    def __init__(self, total, what="students", parallel=1, every_s=0.0, clock=time.monotonic):
        super().__init__(total, parallel, clock)
        self.what, self.every_s, self.said = what, every_s, None

    def line(self, now=None):
        text = f"graded {self.done}/{self.total} {self.what}"
        left = self.seconds_left(now) if self.done < self.total else None
        return text + (f", {time_left(left)}" if left is not None else "")

    def step(self):
        """One more finished: the line to say, or None while one was said under every_s ago
        (the last is always said)."""
        self.advance()
        with self.lock:
            now = self.clock()
            due = (self.said is None or now - self.said >= self.every_s
                   or self.done >= self.total)
            if not due:
                return None
            self.said = now
        return self.line(now)
