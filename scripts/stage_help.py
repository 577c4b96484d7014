"""What a stage executable says about itself in --help, read the same way by the student
check (check.py) and the benchmark (operations_bench.py)."""
import re
import subprocess


def stage_help(exe):
    """The executable's --help text; empty if it cannot be run."""
    try:
        return subprocess.run([str(exe), "--help"], capture_output=True, text=True,
                              timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


def listed_versions(help_text):
    """[(1, 'interleaved addressing'), ...]: the versions --help lists; empty for one."""
    listing = help_text.partition("\nVersions")[2]
    return [(int(v), name) for v, name in re.findall(r"^  (\d+)  (.+)$", listing, re.M)]


def takes_rows(help_text):
    """Whether the executable is a row stage (16 on): --rows and --cols instead of --n."""
    return "--rows R" in help_text


def takes_gpus(help_text):
    """Whether the executable spreads one sum over GPUs (stage 18): --gpus K, no --device."""
    return "--gpus K" in help_text
