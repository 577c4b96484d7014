"""What the student check (course.check) concludes from each tool's output: one verdict
per check with a failure key (course.hints holds the key's sentence). The harness and the
GPU suites name their failures themselves, `reduce-failure: <key> <details>` lines; the
rules here read those keys, the test names, the GPU values and the tools' summaries.
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
    """[(test name without the block, block label, [messages])] from gtest's JSON."""
    failed = []
    for suite in report.get("testsuites", []):
        for test in suite.get("testsuite", []):
            if not test.get("failures"):
                continue
            name, _, label = test["name"].partition("/")
            # "block32", or "block32_version3" in a suite that also runs versions
            block = re.match(r"block\d+", label)
            block = block.group(0) if block else label
            failed.append((name, block, [f.get("failure", "") for f in test["failures"]]))
    return failed


def gpu_values(messages):
    values = []
    for message in messages:
        for word in re.findall(r"GPU (\S+?),", message):
            try:
                values.append(float(word))
            except ValueError:
                pass
    return values


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


# The keys the harness and the suites print, most telling first: a lost ticket or a
# misaligned load explains the CUDA error that follows it, a shard or NCCL mistake the
# wrong totals. tests.leak stays with its test's name below, as before.
FAILURE_KEY = re.compile(r"reduce-failure: (\S+)")
KEY_PRIORITY = ("tests.ticket", "tests.misaligned", "tests.device", "tests.nccl_usage",
                "tests.shards", "tests.nccl_error", "tests.cuda_error")


def classify_suite(text, failed, source=None):
    """The failure key for a suite run whose output is `text`."""
    messages = [m for _, _, ms in failed for m in ms]
    everything = text + "\n".join(messages)
    misuse = sync_check_key(everything, source)
    if misuse:
        return misuse
    keys = set(FAILURE_KEY.findall(everything))
    named = next((key for key in KEY_PRIORITY if key in keys), None)
    if named:
        return named
    names = {name for name, _, _ in failed}
    # The row stages' tests whose failure alone names the mistake, NaN outputs or not.
    for name, key in (("MaskedValuesComeOutZero", "tests.masked"),
                      ("LogitsOfPlusMinusAThousandMatch", "tests.overflow"),
                      ("LargeOffsetNeedsTwoPassesOrWelford", "tests.cancellation")):
        if names == {name}:
            return key
    values = gpu_values(messages)
    if any(math.isfinite(v) and abs(v) >= 1e29 for v in values):
        return "tests.poison"
    if any(math.isnan(v) for v in values):
        return "tests.nan"
    # Every test of stage 15's ArgmaxSuite names the argmax, the hidden-seed one included
    # (HiddenSeedArgmax), and no test of its MaxSuite does.
    if names and all("Argmax" in name for name in names):
        return "tests.argmax"
    if failed and {block for _, block, _ in failed} == {"block32"}:
        return "tests.block32"
    for name, key in (("SameInputGivesBitIdenticalSums", "tests.repeat"),
                      ("NanAnywhereGivesNan", "tests.nan_rule"),
                      ("NanSpoilsOnlyItsRow", "tests.nan_rule"),
                      ("InputIsUnchanged", "tests.input"),
                      ("DeviceMemoryIsGivenBack", "tests.leak"),
                      ("ExactIntegerInputGivesExactSum", "tests.exact")):
        if names == {name}:
            return key
    return "tests.wrong"


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
        return Verdict("tests", True, f"{total}개 모두 통과")
    key = classify_suite(text, failed, source)
    if not failed:
        line = re.search(r"reduce-check: (\S+) at \S*?([^/\s]+:\d+)", text)
        return Verdict("tests", False, f"{total}개 모두 통과했지만 {line.group(1)} 오용 "
                       f"({line.group(2)})", key, log)
    labels = {b for _, b, _ in failed}
    blocks = sorted((b for b in labels if b.startswith("block")),
                    key=lambda b: int(b[5:]) if b[5:].isdigit() else 0)
    where = f" (block {', '.join(b[5:] for b in blocks)})" if 0 < len(blocks) < 6 else ""
    gpus = sorted(b[4:] for b in labels if re.fullmatch(r"gpus\d+", b))
    where += f" (GPU {', '.join(gpus)}개로 돌린 경우)" if gpus else ""
    return Verdict("tests", False, f"{total}개 중 {len(failed)}개 실패{where}", key, log)


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
def progress_line(number, directory, status, results):
    title = f"stage {number:02d} {directory.name[8:]}"
    if status == "not_started":
        return f"⬜ {title}: 시작 전"
    if status == "pass":
        return f"✅ {title}: 통과 (검사 {len(results)}개)"
    first = next(r for r in results if not r.ok)
    return f"❌ {title}: {LABELS[first.name]} — {first.detail}. 자세히: scripts/check.sh {number}"
