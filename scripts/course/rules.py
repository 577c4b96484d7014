"""What the student check (course.check) concludes from each tool's output: one verdict
per check with a failure key (course.hints holds the key's sentence). The harness names its
failures itself, `reduce-failure: <key> <details>` lines; each GPU test records in the
suite's JSON report the key it stands for, its case and its failing values
(tests/gpu/test_facts.h). The rules here read those, and the tools' summaries.
"""
import math
import pathlib
import re

from course.hints import LABELS, SANITIZER_PASS
from course.todo_markers import block_of_line


class Verdict:
    """One check's verdict: `key` names the failure for the hint table (None when it passed)."""

    def __init__(self, name, ok, detail="", key=None, log=None):
        self.name, self.ok, self.detail, self.key, self.log = name, ok, detail, key, log

    def as_dict(self):
        return {"name": self.name, "ok": self.ok, "detail": self.detail, "key": self.key,
                "log": str(self.log) if self.log else None}


def key_matches(key, expect):
    return key == expect or key.startswith(expect + ".")


def rule_files(stage_dir):
    """The files whose change makes an earlier verdict stale (the progress table's cache)."""
    here = pathlib.Path(__file__).resolve().parent
    return [p for p in (pathlib.Path(stage_dir) / "hints.txt", here / "check.py",
                        here / "rules.py", here / "hints.py") if p.exists()]


# ---------------------------------------------------------------------------- tests
def failed_tests(report):
    """The failed tests' objects in gtest's JSON report: the name, the failures and the
    facts the test recorded (tests/gpu/test_facts.h), which are string-valued keys."""
    return [test for suite in report.get("testsuites", []) for test in suite.get("testsuite", [])
            if test.get("failures")]


def skipped_count(report):
    """How many tests of gtest's JSON report skipped themselves (GTEST_SKIP: no second GPU,
    a toolkit that cannot watch launches): they ran no check."""
    return sum(1 for suite in report.get("testsuites", []) for test in suite.get("testsuite", [])
               if test.get("result") == "SKIPPED")


def test_key(test):
    """The failure key a failed test stands for. A test that recorded none (a suite built
    before the tests recorded their facts) is taken for a wrong value."""
    return test.get("reduce_key") or "tests.wrong"


def gpu_values(failed):
    """Every GPU value of the failed tests' failing comparisons, as numbers."""
    values = []
    for test in failed:
        for word in str(test.get("gpu_value", "")).split():
            try:
                values.append(float(word))
            except ValueError:  # an argmax that found no index says "none"
                pass
    return values


def failed_blocks(failed):
    """The block sizes of the failed tests, as numbers (None for a test that has none)."""
    return {int(t["block"]) if str(t.get("block", "")).isdigit() else None for t in failed}


def order_drift(failed):
    """A sum whose order follows the blocks' arrival: bits that differ between runs at
    several block sizes, and a value out of tolerance at one size at most. The arrival-order
    error grows with the number of blocks, so the largest grid (block 32) sometimes drifts
    past the tree's tolerance too (seen on the H100 in 3 of 6 runs of stage 14's
    float_atomic_zeroed); a race or a wrong index fails values at many sizes."""
    repeat = [t for t in failed if test_key(t) == "tests.repeat"]
    others = [t for t in failed if test_key(t) == "tests.wrong"]
    if len(repeat) + len(others) != len(failed):
        return False
    return len(failed_blocks(repeat)) >= 2 and len(failed_blocks(others)) <= 1


def sync_check_key(text, source):
    """`tests.barrier` or `tests.mask` (with `.todoK` where it points into TODO block K)
    when common/harness/sync_checks.cuh reported a barrier or warp intrinsic misused; else None."""
    match = re.search(r"reduce-check: (\S+) at (\S+):(\d+)", text)
    if not match:
        return None
    key = "tests.barrier" if match.group(1) == "__syncthreads" else "tests.mask"
    if source and pathlib.Path(match.group(2)).name == pathlib.Path(source).name:
        source_text = pathlib.Path(source).read_text(encoding="utf-8", errors="replace")
        block = block_of_line(source_text, int(match.group(3)))
        key += f".todo{block}" if block else ""
    return key


# The keys the harness prints and the tests record, most telling first: a lost ticket or a
# misaligned load explains the CUDA error that follows it, a shard or NCCL mistake the
# wrong totals. The other keys the tests record count only when they fail alone, below.
FAILURE_KEY = re.compile(r"reduce-failure: (\S+)")
KEY_PRIORITY = ("tests.ticket", "tests.misaligned", "tests.device", "tests.nccl_usage",
                "tests.shards", "tests.nccl_error", "tests.cuda_error")
# The row stages' keys whose test, failing alone, names the mistake even when its outputs
# are NaN (as an overflow's are).
ALONE_BEFORE_VALUES = ("tests.masked", "tests.overflow", "tests.cancellation")
# A GPU value this large holds the 2^100 that common/harness/shared_poison.h leaves in
# shared memory: a value read before anything was written there.
POISON = 1e29


def classify_suite(text, failed, source=None):
    """The failure key for a suite run whose output is `text` and whose failed tests are
    `failed` (failed_tests)."""
    # The harness prints its lines on the process's output; the failures' messages are
    # for people.
    misuse = sync_check_key(text, source)
    if misuse:
        return misuse
    kinds = {test_key(test) for test in failed}
    keys = set(FAILURE_KEY.findall(text)) | kinds
    named = next((key for key in KEY_PRIORITY if key in keys), None)
    if named:
        return named
    alone = next(iter(kinds)) if len(kinds) == 1 else None
    if alone in ALONE_BEFORE_VALUES:
        return alone
    values = gpu_values(failed)
    if any(math.isfinite(v) and abs(v) >= POISON for v in values):
        return "tests.poison"
    if any(math.isnan(v) for v in values):
        return "tests.nan"
    # Every test of stage 15's ArgmaxSuite stands for the argmax, the hidden-seed one
    # included, so a wrong argmax keeps its key at block 32 too.
    if alone == "tests.argmax":
        return alone
    if failed_blocks(failed) == {32}:
        return "tests.block32"
    if order_drift(failed):
        return "tests.repeat"
    # tests.repeat, tests.nan_rule, tests.input, tests.leak, tests.exact: one kind of test
    # failing alone names the mistake; any mix of kinds is a wrong value.
    return alone or "tests.wrong"


def judge_suite(code, text, report, log, source=None):
    if code is None:
        return Verdict("tests", False, "제한 시간 안에 끝나지 않음 (멈춘 커널)", "tests.timeout", log)
    if report is None:
        key = classify_suite(text, [], source)
        key = "tests.crash" if key == "tests.wrong" else key
        return Verdict("tests", False, f"테스트 프로그램이 도중에 멈춤 (exit {code})", key, log)
    total = report.get("tests", 0)
    failed = failed_tests(report)
    misuse = sync_check_key(text, source)
    if code == 0 and not failed and not misuse:
        skipped = skipped_count(report)
        if skipped and skipped >= total:
            return Verdict("tests", False, f"{total}개가 모두 건너뜀: 이 컴퓨터에서는 테스트가 하나도 "
                           "돌지 않음", "tests.skipped", log)
        if skipped:
            return Verdict("tests", True, f"{total - skipped}개 통과, {skipped}개는 이 컴퓨터에서 "
                           "돌 수 없어 건너뜀")
        return Verdict("tests", True, f"{total}개 모두 통과")
    key = classify_suite(text, failed, source)
    if not failed:
        line = re.search(r"reduce-check: (\S+) at \S*?([^/\s]+:\d+)", text)
        if line is None:  # a failing exit with every test passed and nothing misused
            key = "tests.crash" if key == "tests.wrong" else key  # as a report-less run
            return Verdict("tests", False, f"{total}개 모두 통과했지만 테스트 프로그램이 exit "
                           f"{code}로 끝남", key, log)
        return Verdict("tests", False, f"{total}개 모두 통과했지만 {line.group(1)} 오용 "
                       f"({line.group(2)})", key, log)
    return Verdict("tests", False, f"{total}개 중 {len(failed)}개 실패{where_failed(failed)}",
                   key, log)


def where_failed(failed):
    """The failed cases for the verdict's detail, from the tests' recorded facts: their
    blocks when few enough to be worth naming, " (block 32, 64)", and their GPU counts."""
    blocks = sorted(b for b in failed_blocks(failed) if b is not None)
    where = f" (block {', '.join(map(str, blocks))})" if 0 < len(blocks) < 6 else ""
    gpus = sorted({int(t["gpus"]) for t in failed if str(t.get("gpus", "")).isdigit()})
    where += f" (GPU {', '.join(map(str, gpus))}개로 돌린 경우)" if gpus else ""
    return where


# ---------------------------------------------------------------------------- sanitizers
def report_locations(text, source):
    """(line, TODO block) for every report line that points into the student's file, in
    the order the tool printed them. The tools print the file's base name."""
    name = pathlib.Path(source).name
    source_text = pathlib.Path(source).read_text(encoding="utf-8", errors="replace")
    found = []
    for match in re.finditer(r" in (?:\S*/)?([^/\s:]+):(\d+)", text):
        if match.group(1) == name:
            line = int(match.group(2))
            found.append((line, block_of_line(source_text, line)))
    return found


def sanitizer_count(tool, text):
    if tool == "racecheck":
        match = re.search(r"RACECHECK SUMMARY: (\d+) hazards? displayed", text)
    else:
        match = re.search(r"ERROR SUMMARY: (\d+) errors?", text)
    return int(match.group(1)) if match else None


def judge_sanitizer(tool, code, text, source, label, log):
    if code is None:
        return Verdict(tool, False, f"제한 시간 안에 끝나지 않음 ({label})", f"{tool}.timeout", log)
    count = sanitizer_count(tool, text)
    if count is None:
        return Verdict(tool, False, f"도구가 요약을 내지 못함 ({label})", f"{tool}.broken", log)
    if count == 0:
        return Verdict(tool, True, SANITIZER_PASS[tool])
    locations = report_locations(text, source)
    blocks = [b for _, b in locations if b is not None]
    block = (min(blocks) if tool == "racecheck" else blocks[0]) if blocks else None
    where = ""
    if locations:
        line = next((ln for ln, b in locations if b == block), locations[0][0])
        where = f", {pathlib.Path(source).name}:{line}" + (f" (TODO {block})" if block else "")
    unit = "건" if tool != "racecheck" else "건의 경쟁"
    key = f"{tool}.todo{block}" if block else tool
    return Verdict(tool, False, f"{count}{unit} ({label}{where})", key, log)


# ---------------------------------------------------------------------------- build
def judge_build(text, source, log):
    name = re.escape(pathlib.Path(source).name)
    match = re.search(name + r"\((\d+)\): error: (.*)", text)
    detail = f"{match.group(1)}번째 줄: {match.group(2).strip()}" if match else "컴파일 실패"
    return Verdict("build", False, detail, "build", log)


# ---------------------------------------------------------------------------- progress
def progress_line(number, folder, status, results):
    """One stage's row of the progress table; `folder` is its folder's name, printed whole
    (stage07_interleaved)."""
    if status == "not_started":
        return f"⬜ {folder}: 시작 전"
    if status == "pass":
        return f"✅ {folder}: 통과 (검사 {len(results)}개)"
    first = next(r for r in results if not r.ok)
    return f"❌ {folder}: {LABELS[first.name]} — {first.detail}. 자세히: scripts/check.sh {number}"
