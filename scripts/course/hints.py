"""Every sentence the student check prints for a failure key, in one table, and the
stage's own sentences from its hints.txt. A key is `tests.<kind>` for the GPU test suite,
`<tool>` or `<tool>.todoK` for a compute-sanitizer tool whose report points into TODO block
K of the student's file, `build` for a compile error; the lookup tries the most specific
first. The corpus of known-wrong solutions (tests/mistakes/) names the key each entry must
produce."""
import pathlib

LABELS = {
    "outside": "TODO 블록 밖",
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
    "outside": ("TODO 블록 밖은 받은 그대로여야 합니다: 강사의 채점은 블록 밖을 고친 파일을 빌드하지 않고 "
                "0점으로 처리합니다. 그 줄을 되돌리고, 필요한 코드는 모두 TODO 블록 안에 쓰세요.", "실습 단계"),
    "tests.timeout": ("테스트가 제한 시간 안에 끝나지 않았습니다. 끝나지 않는 루프(조건이나 증가식)나 "
                      "일부 스레드만 도달하는 배리어를 찾아보세요.", DEFAULT_SECTION),
    "tests.crash": ("테스트 프로그램이 비정상 종료했습니다. 로그의 마지막 부분을 보세요.", DEFAULT_SECTION),
    "tests.skipped": ("테스트가 모두 스스로 건너뛰어 아무것도 확인하지 못했습니다. 로그의 Skipped 줄 다음 줄이 까닭(GPU "
                      "수, 툴킷)을 말합니다: 그 조건을 갖춘 컴퓨터에서 다시 검사하세요.", DEFAULT_SECTION),
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
    "tests.device_work": ("블록 합이 GPU에서 온 것이 아니거나 시간이 런치를 재지 않았습니다. 하니스가 런치를 지켜봅니다: "
                          "주어진 커널을 입력 전체(n)와 요청한 블록 크기로 띄우고, 그 커널이 쓴 블록 합을 그대로 "
                          "돌려받고, 두 이벤트 사이에 런치가 있어야 합니다.", DEFAULT_SECTION),
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
                         "줄이 말하는 인자(그룹, 버퍼, 개수, 자료형, 연산, 커뮤니케이터, 스트림)를 고치세요.",
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
