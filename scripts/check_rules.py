"""What scripts/check.py concludes from each tool's output, and the Korean hint it prints.

Every failure gets a key: `tests.<kind>` for the GPU test suite, `<tool>` or
`<tool>.todoK` for a compute-sanitizer tool whose report points into TODO block K of the
student's file, `build` for a compile error. A stage's `hints.txt` (next to its lesson)
may give its own sentence for a key; GENERIC below covers the rest. The corpus of
known-wrong solutions (tests/mistakes/) names the key each entry must produce.
"""
import math
import pathlib
import re

from todo_markers import block_of_line

LABELS = {
    "build": "빌드",
    "tests": "GPU 테스트",
    "memcheck": "memcheck (범위 밖 접근)",
    "racecheck": "racecheck (공유 메모리 경쟁)",
    "synccheck": "synccheck (배리어 사용)",
    "initcheck": "initcheck (초기화 안 된 전역 메모리)",
}

SANITIZER_PASS = {
    "memcheck": "범위 밖 접근 없음",
    "racecheck": "경쟁(hazard) 0건",
    "synccheck": "배리어 오류 없음",
    "initcheck": "초기화 안 된 읽기 없음",
}

DEFAULT_SECTION = "흔한 실수"

# key: (hint, lesson section). Sentences point at the likely mistake, never at code.
GENERIC = {
    "build": ("컴파일 오류입니다. 로그에서 첫 번째 error 줄이 가리키는 줄부터 고치세요.", "실습 단계"),
    "tests.timeout": ("테스트가 제한 시간 안에 끝나지 않았습니다. 끝나지 않는 루프(조건이나 증가식)나 "
                      "일부 스레드만 도달하는 배리어를 찾아보세요.", DEFAULT_SECTION),
    "tests.crash": ("테스트 프로그램이 비정상 종료했습니다. 로그의 마지막 부분을 보세요.", DEFAULT_SECTION),
    "tests.mask": ("워프 함수(__shfl_*_sync, __syncwarp)를 부른 레인이 그 mask에 들어 있지 않습니다. "
                   "호출을 실행하는 모든 레인이 mask에 있어야 합니다.", DEFAULT_SECTION),
    "tests.barrier": ("블록의 일부 스레드만 도달하는 __syncthreads()가 있습니다(if 안의 배리어). 정의되지 "
                      "않은 동작이라 합이 맞아도 실패입니다. 배리어는 모든 스레드가 지나는 자리에 두세요.",
                      DEFAULT_SECTION),
    "tests.ticket": ("번호표(ticket)가 0으로 돌아오지 않았습니다. 마지막 블록을 고르는 비교와, 마지막 블록이 "
                     "번호표를 되돌려 놓는 부분을 보세요.", DEFAULT_SECTION),
    "tests.misaligned": ("16바이트로 정렬되지 않은 주소를 float4로 읽었습니다(입력이 1~3 float 어긋난 "
                         "테스트).", DEFAULT_SECTION),
    "tests.cuda_error": ("커널 실행 중 CUDA 오류가 났습니다(대개 범위 밖 접근). memcheck 줄이 위치를 "
                         "알려 줍니다.", DEFAULT_SECTION),
    "tests.poison": ("합이 10^29보다 큽니다. 아무도 값을 쓰지 않은 공유 메모리 칸을 읽었습니다(검사는 매 실행 "
                     "전에 공유 메모리를 2^100으로 채웁니다). 데이터 밖의 스레드도 자기 칸에 0을 쓰는지, 읽는 "
                     "칸이 모두 이번 블록에서 쓰였는지 보세요.", DEFAULT_SECTION),
    "tests.nan": ("합이 NaN입니다. 어떤 블록의 합이 쓰이지 않았습니다(하니스는 블록 합 칸을 NaN으로 채워 "
                  "둡니다). 결과를 쓰는 TODO 블록을 보세요.", DEFAULT_SECTION),
    "tests.block32": ("block 32에서만 틀립니다. 32 스레드 블록에는 없는 공유 메모리 칸이나 단계를 쓰고 있지 "
                      "않은지 보세요.", DEFAULT_SECTION),
    "tests.repeat": ("같은 입력으로 여러 번 더한 합이 비트 단위로 다릅니다. 덧셈 순서가 실행마다 달라지는 "
                     "코드(float atomicAdd, 경쟁 상태)가 있습니다.", DEFAULT_SECTION),
    "tests.input": ("입력 배열이 바뀌었습니다. 입력은 읽기만 해야 합니다.", DEFAULT_SECTION),
    "tests.leak": ("호스트 코드가 끝난 뒤에도 장치 메모리나 이벤트가 남아 있습니다. 할당한 것마다 cudaFree, "
                   "만든 이벤트마다 cudaEventDestroy를 부르세요.", DEFAULT_SECTION),
    "tests.exact": ("정수 입력의 합이 정확히 맞지 않습니다. 어떤 원소를 빠뜨렸거나 두 번 더했습니다. "
                    "인덱스와 경계 조건을 확인하세요.", DEFAULT_SECTION),
    "tests.argmax": ("최댓값은 맞는데 argmax(첫 번째 최댓값의 위치)가 틀립니다. 모든 워프의 후보가 빠짐없이, "
                     "순서와 상관없이 합쳐지는지(atomicMax) 보세요.", DEFAULT_SECTION),
    "tests.nan_rule": ("입력에 NaN이 있는데 결과가 NaN이 아닙니다. 이 과정의 max는 NaN을 퍼뜨립니다"
                       "(fmaxf는 NaN을 버립니다). 두 값을 고를 때 max_of를 쓰세요.", DEFAULT_SECTION),
    "tests.masked": ("-inf로 가린 값이 있는 행에서 틀립니다(결과가 NaN이거나 가린 자리가 0이 아님). -inf에서 "
                     "-inf를 빼면 NaN입니다. 아직 아무 값도 보지 않은 running max(-inf)를 옮길 때를 따로 "
                     "다루는지 보세요.", DEFAULT_SECTION),
    "tests.overflow": ("-1000~1000 logit에서만 틀립니다. exp를 부르기 전에 행의 최댓값을 빼야 exp가 1을 넘지 "
                       "않습니다(expf(1000)은 inf).", DEFAULT_SECTION),
    "tests.cancellation": ("10^4 + 잡음처럼 평균이 표준편차보다 훨씬 큰 행에서만 틀립니다. E[x^2] - E[x]^2는 거의 같은 "
                           "두 큰 수의 차라서 float에 남는 자리가 없습니다. 평균을 먼저 구하고 평균과의 거리를 "
                           "제곱하세요.", DEFAULT_SECTION),
    "tests.shards": ("샤드가 입력을 빈틈없이, 겹치지 않게 나누지 못했습니다. 샤드 g는 앞 샤드가 끝난 곳에서 "
                     "시작하고, 마지막 샤드는 n에서 끝나야 합니다.", DEFAULT_SECTION),
    "tests.device": ("어떤 GPU의 샤드 합이 그 GPU에서 돌지 않았습니다. 커널은 현재 장치에서 돌므로, GPU마다 "
                     "cudaSetDevice(part.device)를 부른 뒤 그 GPU의 일을 맡기세요.", DEFAULT_SECTION),
    "tests.nccl_usage": ("ncclAllReduce 호출의 모양이 틀립니다. GPU 하나에서는 우연히 맞는 합이 나와도, 로그의 "
                         "줄이 말하는 인자(그룹, 버퍼, 개수, 자료형, 연산, 통신자, 스트림)를 고치세요.",
                         DEFAULT_SECTION),
    "tests.nccl_error": ("NCCL 호출이 실패했습니다. 로그의 오류 줄이 호출, 파일, 줄과 NCCL의 설명을 알려 "
                         "줍니다(더 자세히는 NCCL_DEBUG=WARN).", DEFAULT_SECTION),
    "tests.wrong": ("합이 틀립니다. 인덱스 계산, 루프 조건, 경계 검사를 확인하세요.", DEFAULT_SECTION),
    "memcheck": ("배열 범위 밖을 읽거나 썼습니다. 로그가 가리키는 줄의 인덱스와 경계 검사를 보세요.",
                 DEFAULT_SECTION),
    "racecheck": ("한 스레드가 공유 메모리에 쓰고 다른 스레드가 읽는 사이에 배리어(__syncthreads 또는 "
                  "__syncwarp)가 없습니다. 경고(warning)로 보고된 경쟁도 실패입니다.", DEFAULT_SECTION),
    "synccheck": ("배리어를 잘못 썼습니다. 블록(또는 워프)의 일부 스레드만 도달하는 배리어가 있습니다.",
                  DEFAULT_SECTION),
    "initcheck": ("초기화하지 않은 전역 메모리를 읽었습니다.", DEFAULT_SECTION),
    "timeout": ("검사 도구가 제한 시간 안에 끝나지 않았습니다. 끝나지 않는 루프가 있는지 보세요.",
                DEFAULT_SECTION),
    "broken": ("검사 도구가 끝까지 돌지 못했습니다. 로그를 보세요.", DEFAULT_SECTION),
}


class Verdict:
    """One check's verdict: `key` names the failure for the hint table (None when it passed)."""

    def __init__(self, name, ok, detail="", key=None, log=None):
        self.name, self.ok, self.detail, self.key, self.log = name, ok, detail, key, log

    def as_dict(self):
        return {"name": self.name, "ok": self.ok, "detail": self.detail, "key": self.key,
                "log": str(self.log) if self.log else None}


# ---------------------------------------------------------------------------- hints
def load_hints(stage_dir):
    """{key: (hint, section)} from stage_dir/hints.txt: `key | hint | section` lines."""
    hints = {"_lesson": str(pathlib.Path(stage_dir) / "README.md")}
    path = pathlib.Path(stage_dir) / "hints.txt"
    if not path.exists():
        return hints
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) == 3:
            hints[parts[0]] = (parts[1], parts[2])
    return hints


def lookup(hints, key):
    """The most specific sentence for key: the stage's own, then the generic one, each
    tried for racecheck.todo2, then racecheck; memcheck.timeout falls back to timeout."""
    candidates = [key]
    while "." in candidates[-1]:
        candidates.append(candidates[-1].rsplit(".", 1)[0])
    for table in (hints, GENERIC):
        for candidate in candidates:
            if candidate in table and not candidate.startswith("_"):
                return table[candidate]
    tail = key.rsplit(".", 1)[-1]
    return GENERIC.get(tail, GENERIC["broken"])


def hint_text(hints, key):
    hint, section = lookup(hints, key)
    lesson = hints.get("_lesson", "")
    try:
        lesson = str(pathlib.Path(lesson).resolve().relative_to(pathlib.Path.cwd()))
    except ValueError:
        pass
    return f"{hint} (강의 「{section}」: {lesson})"


def key_matches(key, expect):
    return key == expect or key.startswith(expect + ".")


def rule_files(stage_dir):
    here = pathlib.Path(__file__).resolve().parent
    return [p for p in (pathlib.Path(stage_dir) / "hints.txt", here / "check.py",
                        here / "check_rules.py") if p.exists()]


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


# Keys the harness prints as `reduce-failure: <key> <details>` (common/harness/report.h),
# most telling first: a ticket left behind or a misaligned load explains the CUDA error
# or wrong sum that follows it.
REPORTED_KEYS = ("tests.ticket", "tests.misaligned", "tests.device", "tests.nccl_usage",
                 "tests.shards", "tests.nccl_error", "tests.cuda_error")


def failure_keys(text):
    """The keys of every `reduce-failure:` line (or message) in text."""
    return set(re.findall(r"reduce-failure: ([a-z_]+\.[a-z_0-9.]+)", text))


def classify_suite(text, failed, source=None):
    """The failure key for a suite run whose output is `text`."""
    messages = [m for _, _, ms in failed for m in ms]
    everything = text + "\n".join(messages)
    misuse = sync_check_key(everything, source)
    if misuse:
        return misuse
    reported = failure_keys(everything)
    for key in REPORTED_KEYS:
        if key in reported:
            return key
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
    if names and all(name.startswith("Argmax") for name in names):
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
