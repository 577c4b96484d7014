"""The student's check: build a stage's template, run its GPU tests and the four
compute-sanitizer tools on it, and print one line per check with a Korean hint.

    scripts/check.sh 7            stage 7's template (stages/stage07_*/todo.cu)
    scripts/check.sh              every stage: not started, failing or passing

Instructors and the known-wrong corpus (tests/mistakes/) call it on ready-built files:

    scripts/check.sh --stage 7 --source FILE --exe EXE --suite TESTS --out DIR [--expect KEY|pass]
    scripts/check.sh --answers    every answer, with the same rules

(scripts/check.sh runs `python3 -m course.check` with scripts/ on PYTHONPATH.) What each
executable is (versions, rows, GPUs, block sizes) comes from its --describe line.

Exit code: 0 every check passed (or, with --expect, the expectation held), 1 a check
failed or the stage is not started, 2 bad arguments, 3 no CUDA device, 4 the build
system or a tool is missing or broke.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

from course import build, colab, describe, hints as hint_table, registry, rules
from course.cli import Stop, run_main
from course.todo_markers import code_by_block as todo_blocks, first_outside_difference

ROOT = registry.ROOT
SANITIZERS = ("memcheck", "racecheck", "synccheck", "initcheck")
SUITE_TIMEOUT_S = 300  # the whole suite takes under a minute on a current GPU
SANITIZER_TIMEOUT_S = 300


# ---------------------------------------------------------------------------- stages
def stage_of(number, build_dir=None):
    """The registry's stage `number` (of the build in `build_dir`, default the one in use);
    a Stop listing the stages where there is none."""
    found = registry.load(build_dir, "check.sh") if build_dir else build.registry("check.sh")
    return found.stage(number, "check.sh")


def sanitizer_configs(description):
    """The runs below, from what the executable says it is; a multi-GPU stage (18) makes
    each of them on one GPU (--gpus 1), its suite having run two GPUs where there are two."""
    configs = edge_case_runs(description)
    if describe.takes_gpus(description):
        return [(label + ", 1 GPU", options + ["--gpus", "1"]) for label, options in configs]
    return configs


def edge_case_runs(description):
    """(label, options) runs that expose edge cases: odd n, n below one block, the smallest
    and the largest block. Stages whose n must be a whole number of blocks get whole
    blocks. A stage with versions runs each of them at the odd sizes, the default also at
    n=100. A row stage gets odd matrices instead: rows shorter than a warp, a few values
    past a block, and more rows than a block of warps covers."""
    blocks = description["blocks"]
    small, middle, large = blocks[0], description["default_block"], blocks[-1]
    versions = ([v for v, _ in describe.versions(description)]
                if describe.has_versions(description) else [])

    def run(n, block, version=0):
        label = f"n={n}, block {block}" + (f", --version {version}" if version else "")
        return label, ["--n", str(n), "--block", str(block)] + version_args(version)

    def run_rows(shape, block, version=0):
        r, c = shape
        label = f"{r}x{c}, block {block}" + (f", --version {version}" if version else "")
        return label, ["--rows", str(r), "--cols", str(c), "--block", str(block)] + version_args(version)

    def version_args(version):
        return ["--version", str(version)] if version else []

    if describe.takes_rows(description):
        return [run_rows(shape, block, v) for v in versions
                for shape, block in (((3, 1000), small), ((2, 4097), middle))] + [
                    run_rows((65, 33), large)]
    if describe.whole_blocks(description):
        # 33 blocks of the smallest (1056), one of the largest, 256 of the middle (65536).
        return [run(33 * small, small), run(large, large), run(256 * middle, middle)]
    if versions:
        return [run(n, block, v) for v in versions
                for n, block in ((1001, small), (65537, middle))] + [run(100, large)]
    return [run(1001, small), run(100, large), run(65537, middle)]


# ---------------------------------------------------------------------------- results
Verdict = rules.Verdict


def say(line):
    print(line, flush=True)


def silent(_line):
    pass


def verdict_line(result, hints):
    if result.ok:
        return f"✅ {hint_table.LABELS[result.name]}: {result.detail}"
    hint = hint_table.hint_text(hints, result.key)
    log = f" · 로그: {relative(result.log)}" if result.log else ""
    return f"❌ {hint_table.LABELS[result.name]}: {result.detail} — {hint}{log}"


def relative(path):
    try:
        return str(pathlib.Path(path).resolve().relative_to(pathlib.Path.cwd()))
    except ValueError:
        return str(path)


# ---------------------------------------------------------------------------- running
def run_logged(command, log, timeout, progress=None):
    """Runs command with stdout and stderr into `log`; returns (exit code or None on
    time-out, the log's text). With `progress` (what the command does, in Korean), a line
    every build.PROGRESS_EVERY_S seconds says it is still at it."""
    with open(log, "w", encoding="utf-8") as out:
        out.write("$ " + " ".join(str(c) for c in command) + "\n")
        out.flush()
        running = subprocess.Popen([str(c) for c in command], stdout=out,
                                   stderr=subprocess.STDOUT, cwd=ROOT)
        waited, code = 0, None
        while code is None and waited < timeout:
            step = min(build.PROGRESS_EVERY_S, timeout - waited)
            try:
                code = running.wait(timeout=step)
            except subprocess.TimeoutExpired:
                waited += step
                if progress and waited < timeout:
                    say(f"  {progress} 중... ({waited:.0f}초)")
        if code is None:  # the time is up: the whole process goes
            running.kill()
            running.wait()
    return code, pathlib.Path(log).read_text(encoding="utf-8", errors="replace")


def build_progress(command, log, timeout):
    """run_logged for a configure or a build: a first one takes minutes, shown as it goes."""
    return run_logged(command, log, timeout, "빌드")


def run_suite(suite, source, out_dir, timeout):
    log = out_dir / "tests.log"
    report = out_dir / "tests.json"
    report.unlink(missing_ok=True)
    code, text = run_logged([suite, "--gtest_brief=1", f"--gtest_output=json:{report}"], log,
                            timeout)
    tests = json.loads(report.read_text()) if report.exists() else None
    return rules.judge_suite(code, text, tests, log, source)


def run_sanitizer(tool, exe, source, configs, out_dir, tool_options=(), run=None,
                  timeout=SANITIZER_TIMEOUT_S, report_file=None):
    """One tool over every run in `configs`; `run(command, log, timeout)` runs one command
    into a log (run_logged here, a sandboxed one in the instructors' grader). The verdict
    reads the tool's own report (--log-file), never the program's output, which could print
    a summary line of its own. `report_file(name)` gives (the path the tool writes, the path
    to read) for a report's file name: out_dir's file both ways here."""
    run = run or run_logged
    report_file = report_file or (lambda name: (out_dir / name, out_dir / name))
    log = out_dir / f"{tool}.log"
    with open(log, "w", encoding="utf-8"):
        pass
    for label, options in configs:
        slug = re.sub(r"[^0-9a-z]+", "_", label)
        part = out_dir / (tool + "." + slug + ".log")
        written, read = report_file(f"{tool}.{slug}.report")
        pathlib.Path(read).unlink(missing_ok=True)
        code, text = run(
            [sanitizer_path(), "--tool", tool, "--log-file", str(written), "--print-limit", "20",
             "--error-exitcode", "99", *tool_options, exe, *options, "--repeat", "1"], part, timeout)
        report = read_report(read)
        with open(log, "a", encoding="utf-8") as whole:
            whole.write(text + "\n--- " + tool + "'s report ---\n" + report + "\n")
        part.unlink()
        verdict = rules.judge_sanitizer(tool, code, report, source, label, log)
        if not verdict.ok:
            return verdict
    return Verdict(tool, True, hint_table.SANITIZER_PASS[tool])


def read_report(path, limit=1 << 20):
    """The tool's report (its first MiB), or "" where it wrote none."""
    try:
        with open(path, encoding="utf-8", errors="replace") as report:
            return report.read(limit)
    except OSError:
        return ""


def sanitizer_path(program="check.sh"):
    """compute-sanitizer's path; else a Stop that names `program` (the command the user ran)."""
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    nvcc = shutil.which("nvcc")
    for candidate in ([pathlib.Path(nvcc).parent / "compute-sanitizer"] if nvcc else []) + [
            pathlib.Path("/usr/local/cuda/bin/compute-sanitizer")]:
        if candidate.exists():
            return str(candidate)
    raise Stop(f"{program}: error: compute-sanitizer not found; it comes with the CUDA toolkit: "
               "put the toolkit's bin folder on PATH", 4)


def check_built(stage, source, exe, suite, out_dir, jobs, expect=None, hints=None,
                suite_timeout=SUITE_TIMEOUT_S, show=say):
    """Runs the GPU tests, then the sanitizers (in parallel), handing each verdict's line
    to `show` in a fixed order. With `expect` a failure key, stops as soon as it shows.
    `stage` is the registry's Stage."""
    out_dir.mkdir(parents=True, exist_ok=True)
    hints = hints if hints is not None else hint_table.load_hints(stage.directory)
    results = [run_suite(suite, source, out_dir, suite_timeout)]
    show(verdict_line(results[0], hints))
    if expect and results[0].key and rules.key_matches(results[0].key, expect):
        return results
    if results[0].key == "tests.timeout":
        # A kernel that never finishes would hang each tool the same way.
        show("⏭  sanitizer 검사는 건너뜁니다: 테스트가 끝나지 않아 도구도 끝나지 않습니다.")
        return results
    description = describe.describe_or_stop(exe, "check.sh")
    multi_gpu = describe.takes_gpus(description)
    configs = sanitizer_configs(description)
    # NCCL's set-up asks for kernels built for other GPUs and handles the
    # cudaErrorNoKernelImageForDevice it gets, which memcheck would count as errors; a failing
    # call of the stage's own is a CUDA_CHECK or NCCL_CHECK error the tests report.
    tool_options = ["--report-api-errors", "no"] if multi_gpu else []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(run_sanitizer, tool, exe, source, configs, out_dir, tool_options)
                   for tool in SANITIZERS]
        for future in futures:
            result = future.result()
            results.append(result)
            show(verdict_line(result, hints))
            if expect and result.key and rules.key_matches(result.key, expect):
                for other in futures:
                    other.cancel()
                break
    return results


# ---------------------------------------------------------------------------- device
def probe(bin_dir, number=None):
    """The first device's line; without one a Stop (exit 3) that says how to build the
    stage `number` (or any stage) without a GPU."""
    found, device = build.probe(bin_dir, "check.sh")
    if not found:
        stage = number if number is not None else "N"
        raise Stop(f"{device.strip()}: 이 검사는 CUDA GPU가 있는 컴퓨터에서만 돌릴 수 있습니다 "
                   f"(GPU 없이 빌드만 하려면 scripts/run.sh --todo {stage}).", 3)
    return device.strip().splitlines()[0]


def require_sanitizer():
    """compute-sanitizer, looked for before a student waits for a build and the tests: one
    Korean line and exit 4 where it is missing."""
    try:
        sanitizer_path()
    except Stop:
        raise Stop("check.sh: compute-sanitizer를 찾지 못했습니다. CUDA 툴킷에 들어 있으니 툴킷의 bin "
                   "폴더(예: /usr/local/cuda/bin)를 PATH에 넣고 다시 실행하세요.", 4) from None


# ---------------------------------------------------------------------------- building
def cmake_build(targets, log):
    """Configures (once) and builds `targets`; returns (ok, log text)."""
    try:
        return build.build_logged(targets, log, build_progress)
    except Stop as stop:
        raise Stop(str(stop).replace(f"(see {log})", f"(see {relative(log)})"), stop.code) from None


def require_built(stage):
    """A stage this build could not make (NCCL missing): one line saying what to do, exit 4."""
    if not stage.built:
        raise Stop("check.sh: error: " + build.unbuilt_line(stage, "run scripts/check.sh again"), 4)


def outside_verdict(stage, text):
    """A failing verdict where the student's file differs from the shipped template outside
    the TODO blocks (the grader builds no such file), else None; None too where no shipped
    copy is at hand to compare with."""
    shipped = stage.shipped_template
    if shipped is None:
        return None
    found = first_outside_difference(shipped.read_text(encoding="utf-8", errors="replace"), text)
    if found is None:
        return None
    number, line, missing = found
    shown = line.strip()[:60]
    detail = (f"{number}번째 줄 뒤에 받은 줄이 빠짐: {shown}" if missing
              else f"{number}번째 줄이 받은 템플릿과 다름: {shown}")
    return Verdict("outside", False, detail, "outside")


def build_result(ok, text, source, log):
    if ok:
        return Verdict("build", True, "컴파일 성공")
    return rules.judge_build(text, source, log)


# ---------------------------------------------------------------------------- modes
def source_digest(*paths):
    digest = hashlib.sha256()
    for path in paths:
        digest.update(pathlib.Path(path).read_bytes())
    return digest.hexdigest()


def student_check(stage, args, quiet=False):
    """Checks the template of `stage` (the registry's); returns (status, results), status one
    of 'not_started', 'pass', 'fail'. Quiet (the progress table) prints nothing and reuses
    an earlier result when the source, the executables and the rules are unchanged."""
    number, directory = stage.number, stage.directory
    source = stage.template_source
    text = source.read_text(encoding="utf-8", errors="replace")
    blocks = todo_blocks(text)
    if not any(blocks.values()):
        if not quiet:
            print(f"⬜ stage {number:02d}: 아직 시작하지 않았습니다 — {relative(source)}의 "
                  f"TODO 블록 {len(blocks)}개를 채운 뒤 다시 실행하세요 (강의: "
                  f"{relative(directory / 'README.md')}의 「실습 단계」).")
        return "not_started", []
    hints = hint_table.load_hints(directory)
    out_dir = args.build_dir / "check" / f"stage{number:02d}"
    out_dir.mkdir(parents=True, exist_ok=True)
    if not quiet:
        empty = [str(k) for k, lines in blocks.items() if not lines]
        note = f" (아직 빈 TODO 블록: {', '.join(empty)})" if empty else ""
        print(f"stage {number:02d} 검사: {relative(source)}{note}", flush=True)
    require_built(stage)  # without NCCL stage 18 is a stand-in with no suite to build
    show = silent if quiet else say
    outside = outside_verdict(stage, text)
    results = [outside] if outside else []
    if outside:
        show(verdict_line(outside, hints))
    exe, suite = stage.exe(template=True), stage.suite(template=True)
    ok, log_text = cmake_build([stage.target(registry.TEMPLATE),
                                stage.target(registry.TEMPLATE_TESTS)], out_dir / "build.log")
    results.append(build_result(ok, log_text, source, out_dir / "build.log"))
    show(verdict_line(results[-1], hints))
    if not ok:
        return "fail", results
    digest = source_digest(source, exe, suite, *rules.rule_files(directory))
    cached = load_cache(out_dir, digest) if quiet else None
    if cached:
        return cached
    results += check_built(stage, source, exe, suite, out_dir, args.jobs, hints=hints, show=show)
    status = "pass" if all(r.ok for r in results) else "fail"
    save_result(out_dir, number, source, status, results, digest)
    return status, results


def load_cache(out_dir, digest):
    path = out_dir / "result.json"
    if not path.exists():
        return None
    saved = json.loads(path.read_text())
    if saved.get("digest") != digest:
        return None
    results = [Verdict(r["name"], r["ok"], r["detail"], r["key"], r["log"]) for r in saved["checks"]]
    return saved["status"], results


def save_result(out_dir, stage, source, status, results, digest=None, expect=None):
    data = {"stage": stage, "source": str(source), "status": status, "digest": digest,
            "expect": expect, "keys": [r.key for r in results if r.key],
            "checks": [r.as_dict() for r in results]}
    (out_dir / "result.json").write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n")


def summary_line(results, number):
    failed = [r for r in results if not r.ok]
    if not failed:
        return (f"결과: ✅ 검사 {len(results)}개 모두 통과. 다음 단계로 넘어가세요. (강사의 채점은 같은 "
                f"테스트를 비공개 시드의 입력으로 한 번 더 돌립니다: 기본 입력의 답을 외운 코드는 떨어집니다.)")
    return (f"결과: ❌ 검사 {len(results)}개 중 {len(failed)}개 실패 — 힌트가 가리키는 강의 절을 "
            f"읽고 TODO 블록을 고친 뒤 다시 실행하세요: scripts/check.sh {number}")


def mode_stages(args):
    device = probe_after_build(args, args.stages[0] if len(args.stages) == 1 else None)
    require_sanitizer()
    worst = 0
    print(f"[{device}]", flush=True)
    for number in args.stages:
        status, results = student_check(stage_of(number), args)
        if status != "not_started":
            print(summary_line(results, number))
        worst = max(worst, 0 if status == "pass" else 1)
    return worst


def probe_after_build(args, number=None):
    log = args.build_dir / "check" / "probe.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    ok, _ = cmake_build(["reduce_probe"], log)
    if not ok:
        raise Stop(f"check.sh: error: building reduce_probe failed (see {relative(log)})", 4)
    return probe(args.build_dir / "bin", number)


def mode_progress(args):
    """One line per stage: where the student stands. Stages already checked with the
    same source reuse their result."""
    device = probe_after_build(args)
    require_sanitizer()
    print(f"[{device}] 모든 단계의 진행 상황 (단계별 자세한 검사: scripts/check.sh N)", flush=True)
    passed, total = 0, 0
    for stage in build.registry("check.sh").stages:
        total += 1
        status, results = student_check(stage, args, quiet=True)
        passed += status == "pass"
        print(rules.progress_line(stage.number, stage.folder, status, results), flush=True)
    print(f"통과 {passed} / {total}단계.")
    return 0 if passed == total else 1


def device_reaches(needed):
    """Whether the first GPU's compute capability is `needed` ("9.0") or newer."""
    found = colab.compute_capability()
    as_pair = lambda text: tuple(int(part) for part in text.split("."))
    return found is not None and as_pair(found) >= as_pair(needed)


def mode_built(args):
    """The corpus and the instructor: check ready-built executables, no build."""
    bin_dir = args.bin_dir or pathlib.Path(args.exe).parent
    probe(bin_dir)
    if args.needs_cc and not device_reaches(args.needs_cc):
        # An entry whose wrong code sits on a path only newer GPUs take (a cluster
        # kernel) passes on an older one; skipped (3), like a check without a device.
        print(f"check: skipped: this entry needs compute capability {args.needs_cc} or newer")
        return 3
    stage = stage_of(args.stage, bin_dir.parent)
    args.out.mkdir(parents=True, exist_ok=True)
    expect = None if args.expect in (None, "pass") else args.expect
    results = check_built(stage, args.source, args.exe, args.suite, args.out, args.jobs,
                          expect=expect, suite_timeout=args.suite_timeout)
    keys = [r.key for r in results if r.key]
    status = "pass" if not keys else "fail"
    save_result(args.out, args.stage, args.source, status, results, expect=args.expect)
    if args.expect is None:
        return 0 if status == "pass" else 1
    if args.expect == "pass":
        met = status == "pass"
    else:
        met = any(rules.key_matches(k, args.expect) for k in keys)
    print(f"expected {args.expect}: {'met' if met else 'NOT met'} (keys: {', '.join(keys) or 'none'})")
    return 0 if met else 1


def mode_answers(args):
    """Every answer through the same check (the instructor's gpu_check.sh)."""
    probe(args.build_dir / "bin")
    worst = 0
    for stage in build.registry("check.sh").stages:
        number, source = stage.number, stage.answer_source
        out = args.build_dir / "check" / "answers" / f"stage{number:02d}"
        print(f"--- answer {stage.folder}", flush=True)
        if not stage.built:
            print(f"⏭  {build.unbuilt_line(stage, 'check it again')}", flush=True)
            continue
        results = check_built(stage, source, stage.exe(), stage.suite(), out, args.jobs)
        status = "pass" if all(r.ok for r in results) else "fail"
        save_result(out, number, source, status, results)
        worst = max(worst, 0 if status == "pass" else 1)
    return worst


# ---------------------------------------------------------------------------- main
class Parser(argparse.ArgumentParser):
    """argparse whose errors are one line that shows the student's form, not a usage block
    listing the instructors' options."""

    def error(self, message):
        raise Stop(f"check.sh: error: {message}; to check a stage give its number alone, e.g. "
                   "scripts/check.sh 7 (scripts/check.sh --help)", 2)


def parse(argv):
    parser = Parser(prog="scripts/check.sh", add_help=True, allow_abbrev=False,
                    description="The student's check (see the file's header).")
    parser.add_argument("stages", nargs="*", help="stage numbers; none: a progress table")
    parser.add_argument("--build-dir", help="default: REDUCE_BUILD_DIR, else build/")
    parser.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1))
    parser.add_argument("--answers", action="store_true")
    parser.add_argument("--stage", type=int)
    parser.add_argument("--source", type=pathlib.Path)
    parser.add_argument("--exe", type=pathlib.Path)
    parser.add_argument("--suite", type=pathlib.Path)
    parser.add_argument("--bin-dir", type=pathlib.Path)
    parser.add_argument("--out", type=pathlib.Path)
    parser.add_argument("--expect")
    parser.add_argument("--suite-timeout", type=int, default=SUITE_TIMEOUT_S)
    parser.add_argument("--needs-cc", help="skip (3) below this compute capability, e.g. 9.0")
    args = parser.parse_args(argv)
    numbers = []
    for word in args.stages:
        if not re.fullmatch(r"\d{1,2}", word):
            raise Stop(f"check.sh: error: '{word}' is not a stage number; try scripts/check.sh 7", 2)
        numbers.append(int(word))
    if args.build_dir:  # the build module reads the folder from the environment
        os.environ["REDUCE_BUILD_DIR"] = str(pathlib.Path(args.build_dir).resolve())
    args.build_dir = build.build_dir()
    for number in numbers:
        stage_of(number)
    args.stages = numbers
    built = [args.stage, args.source, args.exe, args.suite, args.out]
    if any(v is not None for v in built) and not all(v is not None for v in built):
        raise Stop("check.sh: error: --stage, --source, --exe, --suite and --out go together (the "
                   "form for ready-built files); to check a stage run scripts/check.sh 7", 2)
    return args


HELP = """The student's check. After filling in a TODO block:

  scripts/check.sh 7      build stage 7's template, run its GPU tests and the four
                          compute-sanitizer tools, one line per check with a hint
  scripts/check.sh        where you stand: every stage not started, failing or passing

Full tool output goes to build/check/stageNN/*.log (each failing line names its log).
Exit code: 0 everything passed, 1 a check failed or the stage is not started,
2 bad arguments, 3 no CUDA device, 4 the build system or a tool is missing."""


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(HELP)
        return 0
    try:
        args = parse(argv)
        if args.stage is not None:
            return mode_built(args)
        if args.answers:
            return mode_answers(args)
        if args.stages:
            return mode_stages(args)
        return mode_progress(args)
    except OSError as error:  # a tool that is not installed, a file that vanished
        print(f"check.sh: error: {error.strerror or error}: {error.filename or ''}; is CMake "
              "installed and the CUDA toolkit on PATH?", file=sys.stderr)
        return 4


if __name__ == "__main__":
    run_main(main, "check.sh")
