"""Reads ctest's JUnit file and prints what a person reads: one line per label with its
counts (and why tests were skipped), every failure in full, and one closing line.

    python3 -m course.test_summary JUNIT_XML     (scripts/ on PYTHONPATH; scripts/test.sh
                                                  calls it after ctest)

Labels come from the test names CMake gives (tests/CMakeLists.txt): host.*, harness.* and
stageNN.* and gpu.* (gpu), stageNN_todo.* (todo), mistakes.* (mistakes).
"""
import collections
import re
import sys
import xml.etree.ElementTree as ElementTree

LABELS = ((r"host\.", "host"), (r"harness\.", "gpu"), (r"gpu\.", "gpu"),
          (r"stage\d\d_todo\.", "todo"), (r"stage\d\d\.", "gpu"), (r"mistakes\.", "mistakes"))


def label_of(name):
    return next((label for pattern, label in LABELS if re.match(pattern, name)), "other")


def skip_reason(output):
    """The GTEST_SKIP message (the line after '...: Skipped'), else the output's last line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for at, line in enumerate(lines):
        if line.endswith(": Skipped") and at + 1 < len(lines):
            return lines[at + 1]
    return lines[-1] if lines else "no reason given"


def main(argv):
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    cases = ElementTree.parse(argv[0]).getroot().iter("testcase")
    counts = collections.defaultdict(collections.Counter)
    reasons = collections.defaultdict(collections.Counter)
    failures = []
    for case in cases:
        name = case.get("name", "").split("  #")[0]
        label = label_of(name)
        output = case.findtext("system-out") or ""
        if case.find("failure") is not None or case.get("status") == "fail":
            counts[label]["failed"] += 1
            failures.append((name, output))
        elif case.find("skipped") is not None or case.get("status") == "notrun":
            counts[label]["skipped"] += 1
            reasons[label][skip_reason(output)[:160]] += 1
        else:
            counts[label]["passed"] += 1
    for name, output in failures:
        print(f"\n--- FAILED {name}\n{output.rstrip()}")
    if failures:
        print()
    for label in sorted(counts):
        parts = [f"{counts[label][k]} {k}" for k in ("passed", "failed", "skipped") if counts[label][k]]
        why = "; ".join(f"{reason}" + (f" ({n})" if len(reasons[label]) > 1 else "")
                        for reason, n in reasons[label].most_common(3))
        print(f"{label + ':':10} {', '.join(parts)}" + (f" (skipped: {why})" if why else ""))
    total = collections.Counter()
    for label_counts in counts.values():
        total.update(label_counts)
    print(f"tests: {total['passed']} passed, {total['failed']} failed, {total['skipped']} skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
