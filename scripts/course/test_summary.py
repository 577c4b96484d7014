"""Reads ctest's JUnit file and prints what a person reads: one line per label with its
counts (and why tests were skipped), every failure in full, and one closing line.

    python3 -m course.test_summary JUNIT_XML     (scripts/ on PYTHONPATH; scripts/test.sh
                                                  calls it after ctest)

Labels come from the test names CMake gives (tests/CMakeLists.txt): host.*, harness.* and
stageNN.*, gpu.* and ranks.* (gpu), stageNN_todo.* (todo), mistakes.* (mistakes). A build with
REDUCE_SUITE_SHARDS runs each stage suite as a few shards (stageNN.shard0of4); their output's
tally lines give the test cases inside them, which the label's line adds.
"""
import collections
import re
import sys
import xml.etree.ElementTree as ElementTree

LABELS = ((r"host\.", "host"), (r"harness\.", "gpu"), (r"gpu\.", "gpu"), (r"ranks\.", "gpu"),
          (r"stage\d\d_todo\.", "todo"), (r"stage\d\d\.", "gpu"), (r"mistakes\.", "mistakes"))


def label_of(name):
    return next((label for pattern, label in LABELS if re.match(pattern, name)), "other")


TALLY = re.compile(r"^reduce-suite: (\d+) cases: (\d+) passed, (\d+) failed, (\d+) skipped$",
                   re.MULTILINE)


def shard_cases(output):
    """A shard's case counts (its tests/gpu/suite_main.cpp tally line), else None."""
    match = TALLY.search(output)
    if match is None:
        return None
    return dict(zip(("cases", "passed", "failed", "skipped"), map(int, match.groups())))


def cases_note(tally):
    """' (in 8 shards: 212 cases, 205 passed, 7 skipped)', or '' without shards."""
    if not tally["shards"]:
        return ""
    parts = [f"{tally[k]} {k}" for k in ("passed", "failed", "skipped") if tally[k]]
    return f" (in {tally['shards']} shards: {tally['cases']} cases, {', '.join(parts)})"


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
    tallies = collections.defaultdict(collections.Counter)
    for case in cases:
        name = case.get("name", "").split("  #")[0]
        label = label_of(name)
        output = case.findtext("system-out") or ""
        shard = shard_cases(output)
        if shard:
            tallies[label].update(dict(shard, shards=1))
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
        print(f"{label + ':':10} {', '.join(parts)}" + cases_note(tallies[label])
              + (f" (skipped: {why})" if why else ""))
    total = collections.Counter()
    for label_counts in counts.values():
        total.update(label_counts)
    print(f"tests: {total['passed']} passed, {total['failed']} failed, {total['skipped']} skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
