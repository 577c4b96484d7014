"""What a stage executable says about itself in `--describe` (one JSON line, no GPU
needed): read the same way by the student check (check.py) and the benchmark
(operations_bench.py), never scraped from --help or the source."""
import json
import subprocess


def describe(exe):
    """The executable's facts as a dict; {} if it cannot be run or says nothing."""
    try:
        done = subprocess.run([str(exe), "--describe"], capture_output=True, text=True, timeout=60)
        return json.loads(done.stdout) if done.returncode == 0 else {}
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return {}


def listed_versions(facts):
    """[(1, 'interleaved addressing'), ...] for a stage with several versions; else []."""
    versions = facts.get("versions", [])
    return [(v["version"], v["technique"]) for v in versions] if len(versions) > 1 else []


def takes_rows(facts):
    """Whether the stage works on rows (16 on): --rows and --cols instead of --n."""
    return facts.get("kind") == "rows"


def takes_gpus(facts):
    """Whether the stage spreads one sum over GPUs (stage 18): --gpus K, no --device."""
    return facts.get("kind") == "multi_gpu"


def whole_blocks_only(facts):
    """Whether n must be a whole number of blocks (stages 07 and 08)."""
    return facts.get("size_rule") == "multiple_of_block"
