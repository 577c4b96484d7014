"""What the grader writes: per student result.json and a Korean feedback.md (from the
stages' hints, hidden-seed details left out), and for the class gradebook.csv,
class_report.md (a chart per stage) and manifest.json. Each student's files are written as
soon as that student is graded; the class files are rewritten from every result.json."""
import collections
import csv
import json
import pathlib
import statistics

from course import hints as hint_table
from course.grade import grading

STATUS_KO = {grading.PASS: "통과", grading.FAIL: "실패", grading.INTEGRITY: "무결성 위반 (실행 안 함)",
             grading.NOT_STARTED: "시작 전", grading.BUILD_ERROR: "빌드 오류",
             grading.NO_DEVICE: "채점 안 됨 (CUDA 장치 없음)", grading.NO_NCCL: "채점 안 됨 (NCCL 없음)",
             grading.UNREADABLE: "제출물을 읽을 수 없음",
             "grader error": "채점기 오류 (강사에게 문의)"}
# The integrity rules (integrity.py) as the student reads them.
RULES_KO = {
    "outside": "TODO 블록 밖을 고쳤습니다. 블록 밖은 템플릿 그대로여야 합니다",
    "bytes": "TODO 블록에 제어 문자, 트라이그래프(??=), 줄 끝의 역슬래시(\\)는 쓸 수 없습니다",
    "text": "한글 같은 ASCII 밖의 글자는 주석과 문자열 안에서만 쓸 수 있습니다",
    "edge": "주석이나 리터럴이 TODO 블록의 경계를 넘어갑니다",
    "unlexed": "C++ 토큰으로 읽히지 않는 부분이 있습니다(닫히지 않은 주석이나 리터럴)",
    "marker": "TODO 표시 줄은 그 줄 하나만의 주석이어야 합니다",
    "preprocessor": "전처리기 줄(#include, #define 등)은 쓸 수 없습니다(#pragma unroll만 허용)",
    "spelling": "대체 표기(<% %> <: :> %:)는 쓸 수 없습니다",
    "attribute": "속성([[...]])은 쓸 수 없습니다",
    "literal": "문자열·문자 리터럴은 쓸 수 없습니다(호스트 코드 단계만 허용)",
    "keyword": "이 키워드는 TODO 블록에서 쓸 수 없습니다(static, extern, asm, using 등)",
    "name": "이 단계에서 쓸 수 있는 이름이 아닙니다(파일과 답안의 이름, CUDA 장치 함수, 블록 안에서 선언한 이름만)",
    "never": "파일·프로세스·환경 변수·네트워크·어셈블리에 닿는 이름은 어느 단계에서도 쓸 수 없습니다",
    "global": "네임스페이스 범위에는 함수 정의 말고는 선언할 수 없습니다(전역 상태 금지)",
    "balance": "TODO 블록이 열지 않은 중괄호나 괄호를 닫거나, 연 것을 닫지 않았습니다",
}
HIDDEN_LINE = ("비공개 입력 검사 (강사만 아는 시드의 입력으로 같은 테스트를 한 번 더 돌림; 입력은 "
               "공개하지 않습니다)")


def student_dir(out, student):
    return pathlib.Path(out) / "students" / student


def load_results(out):
    results = []
    for path in sorted((pathlib.Path(out) / "students").glob("*/result.json")):
        try:
            results.append(json.loads(path.read_text(encoding="utf-8")))
        except ValueError:
            continue
    return results


def write_student(out, result, stages):
    """result.json and feedback.md in out/students/<id>/; `stages`: {number: the course
    registry's Stage} (its folder, hints and lesson)."""
    folder = student_dir(out, result["student"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "result.json").write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n",
                                        encoding="utf-8")
    (folder / "feedback.md").write_text(feedback(result, stages), encoding="utf-8")


# ---------------------------------------------------------------------------- feedback
def lesson_path(stage):
    """The stage's lesson as the student finds it in their copy ('stages/<folder>/README.md'):
    the Stage's lesson, relative to its course's root."""
    return stage.lesson.relative_to(stage.directory.parents[1]).as_posix()


def feedback(result, stages):
    lines = [f"# 채점 결과: {result['student']}", "",
             f"총점: **{result['total']} / {result['max']}**", ""]
    if result.get("detail"):
        lines += [f"제출물 문제: {result['detail']}", ""]
    if result.get("ignored_files"):
        lines += ["채점은 `stages/stageNN_*/todo.cu`만 읽습니다. 바뀐 다른 파일은 무시했습니다: "
                  + ", ".join(f"`{f}`" for f in result["ignored_files"][:20]), ""]
    for number_text, stage in sorted(result["stages"].items()):
        known = stages.get(int(number_text))
        if known is None:  # a result of a stage this run does not grade: no hints to give
            lines += stage_feedback(f"stage {number_text}", stage, {}, None)
            continue
        hints = hint_table.load_hints(known.directory)
        lines += stage_feedback(known.folder, stage, hints, lesson_path(known))
    return "\n".join(lines) + "\n"


def stage_feedback(name, stage, hints, lesson):
    lines = [f"## {name} — {stage['points']} / {stage['max']}점: "
             f"{STATUS_KO.get(stage['status'], stage['status'])}", ""]
    for violation in stage.get("integrity", []):
        why = RULES_KO.get(violation["rule"], violation["why"])
        lines.append(f"- ❌ {violation['line']}번째 줄 ({violation['rule']}): {why}. 이 단계의 코드는 "
                     "빌드하지도 돌리지도 않았습니다.")
    if stage["status"] in (grading.NOT_STARTED, grading.NO_DEVICE, grading.NO_NCCL,
                           grading.UNREADABLE):
        lines.append(f"- {stage.get('detail', STATUS_KO.get(stage['status'], ''))}")
    for check in stage.get("checks", []):
        lines.append(check_line(check, hints, lesson))
    performance = stage.get("performance")
    if performance and performance.get("ratio"):
        lines.append(f"- 성능: 답안 실행 시간의 {performance['ratio']:.2f}배 → "
                     f"{performance['points']}점")
    elif stage["status"] == grading.FAIL:
        lines.append("- 성능 점수는 모든 정확성 검사를 통과한 단계에만 줍니다.")
    return lines + [""]


def check_line(check, hints, lesson):
    """One check's line; `lesson` is where the hint's section is (None: no lesson named)."""
    points = f"{check['points']}/{check['max']}점" if check["max"] else "0점"
    if check["name"] == "hidden":
        return f"- {'✅' if check['ok'] else '❌'} {HIDDEN_LINE}: {points}"
    label = hint_table.LABELS.get(check["name"], check["name"])
    if check["ok"]:
        return f"- ✅ {label}: {check['detail']} ({points})"
    hint, section = hint_table.lookup(hints, check["key"] or "broken")
    where = f" (강의 「{section}」: {lesson})" if lesson else ""
    return f"- ❌ {label}: {check['detail']} ({points}) — {hint}{where}"


# ---------------------------------------------------------------------------- the class
def write_gradebook(out, numbers):
    """gradebook.csv: one row per student, one column per stage, the total."""
    columns = ["student"] + [f"stage{n:02d}" for n in numbers] + ["total", "max"]
    with open(pathlib.Path(out) / "gradebook.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for result in load_results(out):
            stages = result["stages"]
            writer.writerow([result["student"]]
                            + [stages.get(f"{n:02d}", {}).get("points", "") for n in numbers]
                            + [result["total"], result["max"]])


def stage_summary(results, number):
    """Counts for one stage: statuses, failure keys, performance ratios."""
    statuses, keys, ratios = collections.Counter(), collections.Counter(), []
    for result in results:
        stage = result["stages"].get(f"{number:02d}")
        if not stage:
            continue
        statuses[stage["status"]] += 1
        # A tool not run after a suite that never ended is a consequence, not a mistake.
        keys.update(c["key"] for c in stage.get("checks", [])
                    if c.get("key") and not c["key"].endswith(".not_run"))
        keys.update("integrity." + v["rule"] for v in stage.get("integrity", []))
        ratio = (stage.get("performance") or {}).get("ratio")
        if ratio:
            ratios.append(ratio)
    return statuses, keys, ratios


def write_class_report(out, numbers, stages):
    """class_report.md (and its charts): `stages` is {number: the course registry's Stage}."""
    out = pathlib.Path(out)
    results = load_results(out)
    charts = chart_module()
    lines = ["# Class report", "", f"{len(results)} students graded. Per stage: the pass rate, "
             "the most common failure keys, the spread of performance ratios (student / answer).", ""]
    if charts is None:
        lines += ["Charts left out: matplotlib is not installed on this machine.", ""]
    for number in numbers:
        statuses, keys, ratios = stage_summary(results, number)
        total = sum(statuses.values())
        rate = 100 * statuses[grading.PASS] / total if total else 0
        known = stages.get(number)
        lines += [f"## stage {number:02d} {known.folder if known else ''}", "",
                  f"- pass rate: {statuses[grading.PASS]} / {total} ({rate:.0f}%)",
                  "- statuses: " + ", ".join(f"{s} {c}" for s, c in statuses.most_common()),
                  "- most common failure keys: " + (", ".join(
                      f"`{k}` {c}" for k, c in keys.most_common(5)) or "none"),
                  "- performance ratios: " + spread(ratios)]
        if charts is not None:
            name = f"charts/stage{number:02d}.png"
            draw(charts, out / name, number, statuses, keys, ratios)
            lines.append(f"\n![stage {number:02d}]({name})")
        lines.append("")
    lines += flag_lines(results)
    (out / "class_report.md").write_text("\n".join(lines), encoding="utf-8")


def flag_lines(results):
    """The students whose TODO blocks equal another's or the answer's: to look at, not
    penalised (the flags are in result.json, never in feedback.md)."""
    flagged = [(r["student"], flag) for r in results for flag in r.get("flags", [])]
    if not flagged:
        return ["## Flags", "", "No identical TODO blocks.", ""]
    return (["## Flags (identical TODO blocks: look at them; no points were taken)", ""]
            + [f"- {student}: {flag}" for student, flag in flagged] + [""])


def spread(ratios):
    if not ratios:
        return "none measured"
    return (f"{len(ratios)} measured, min {min(ratios):.2f}, median "
            f"{statistics.median(ratios):.2f}, max {max(ratios):.2f}")


def chart_module():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        return None


def draw(plt, path, number, statuses, keys, ratios):
    """Three panels: the statuses (title: the pass rate), the most common failure keys and
    the performance ratios."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.4))
    total = sum(statuses.values()) or 1
    axes[0].bar(list(statuses), list(statuses.values()), color="tab:blue")
    axes[0].set_title(f"stage {number:02d}: pass rate {100 * statuses[grading.PASS] / total:.0f}%")
    axes[0].tick_params(axis="x", labelrotation=20)
    common = keys.most_common(6)
    axes[1].barh([k for k, _ in common][::-1], [c for _, c in common][::-1], color="tab:red")
    axes[1].set_title("most common failure keys")
    if ratios:
        axes[2].hist(ratios, bins=10, color="tab:green")
    else:
        axes[2].text(0.5, 0.5, "none measured", ha="center", transform=axes[2].transAxes)
    axes[2].set_title("performance ratio (student / answer)")
    for axis in axes:
        axis.locator_params(axis="x" if axis is axes[1] else "y", integer=True)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_manifest(out, manifest):
    (pathlib.Path(out) / "manifest.json").write_text(
        json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
