"""What a stage executable (or a baseline: bench_cub, bench_cub_max, bench_read) says about
itself with --describe: one JSON line, printed without touching a GPU. The scripts read the
versions, the shape (vector or rows), the GPU option, the size rule and the block sizes from
it, never from --help or the sources.

    python3 -m course.describe EXE      print EXE's description, one key per line
"""
import json
import pathlib
import subprocess
import sys

from course.cli import Stop

KEYS = {"number", "name", "technique", "kind", "operation", "size_rule", "finish", "versions",
        "default_version", "options", "blocks", "default_block", "default_seed", "argmax"}
TIMEOUT_S = 30


class DescribeError(Exception):
    """The executable could not describe itself: one line saying why, and its exit code
    (None when it did not run or did not finish)."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


def describe_or_stop(exe, program=None):
    """describe(exe) for a command that cannot go on without it: a failure ends the command
    with one line, `<program>: error: ...`, and exit 4."""
    try:
        return describe(exe)
    except DescribeError as error:
        prefix = f"{program}: " if program else ""
        raise Stop(f"{prefix}error: {error}", 4) from None


def describe(exe, timeout=TIMEOUT_S):
    """The parsed description of `exe`; DescribeError with one line if it cannot be had."""
    command = [str(exe), "--describe"]
    name = pathlib.Path(exe).name
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise DescribeError(f"{name} --describe did not answer within {timeout} s") from None
    except OSError as error:
        raise DescribeError(f"{name} --describe could not run: {error.strerror or error}") from None
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [""])[-1]
        raise DescribeError(f"{name} --describe exited {done.returncode}: {why}", done.returncode)
    return parse(done.stdout, name)


def parse(stdout, name="the executable"):
    lines = [line for line in stdout.splitlines() if line.strip()]
    try:
        found = json.loads(lines[-1]) if len(lines) == 1 else None
    except ValueError:
        found = None
    if not isinstance(found, dict):
        raise DescribeError(f"{name} --describe did not print one JSON line")
    if set(found) != KEYS:
        odd = sorted(set(found) ^ KEYS)
        raise DescribeError(f"{name} --describe: keys missing or unknown: {', '.join(odd)}")
    return found


def versions(description):
    """[(1, 'interleaved addressing'), ...]: every version, one even for a single-version stage."""
    return [(v["version"], v["technique"]) for v in description["versions"]]


def has_versions(description):
    """Whether the executable takes --version (more than one version to pick from)."""
    return "--version" in description["options"] and len(description["versions"]) > 1


def takes_rows(description):
    return description["kind"] == "rows"


def takes_gpus(description):
    return description["kind"] == "multi_gpu"


def whole_blocks(description):
    """Whether n must be a multiple of the block size (stages 07 and 08)."""
    return description["size_rule"] == "multiple_of_block"


def main(argv):
    if len(argv) != 1:
        print("usage: python3 -m course.describe EXE", file=sys.stderr)
        return 2
    try:
        found = describe(argv[0])
    except DescribeError as error:
        print(f"describe: error: {error}", file=sys.stderr)
        return 4
    for key in sorted(found):
        print(f"{key}: {json.dumps(found[key])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
