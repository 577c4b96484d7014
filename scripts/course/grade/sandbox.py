"""Runs one step of a student's build or tests: no network, writes only to the student's
folder (seen at a fixed path, so a build tree configured there stays valid), resource
limits, and a wall-clock limit that kills the whole process tree.

Which isolation is used is found once (detect) and written to the run's manifest:
`bwrap` (bubblewrap), else util-linux `unshare` (as root, or with --map-root-user), each
checked by a probe that tries to write outside and to reach a network interface. Without
either the grader stops, unless told --no-sandbox; then a step runs as a plain process
(same limits and time-out) and the fixed path is a link that only one step holds at a time."""
import os
import pathlib
import resource
import shutil
import signal
import subprocess
import threading

# Where a student's edition appears while a step runs (inside the step's own namespace);
# not under /tmp, which each step gets afresh.
FIXED = pathlib.Path("/var/tmp/reduce-grade/edition")

TMP_BYTES = 4 << 30  # bubblewrap's /tmp, in memory
SHM_BYTES = 1 << 30  # each step's own /dev/shm (NCCL's shared memory, stage 18)
# What a step's log keeps of its output: the first LOG_BYTES, then one line saying how much
# was left out. A file the step writes itself is bounded by FILE_BYTES (RLIMIT_FSIZE), which
# a build's objects and executables stay far below.
LOG_BYTES = 1 << 20
FILE_BYTES = 512 << 20
# What all the logs of one folder (a student's stage) may hold together: a step whose folder
# is full keeps only its first LOG_FLOOR bytes.
FOLDER_LOG_BYTES = 8 << 20
LOG_FLOOR = 4 << 10
# The only variables of the grader's environment a step sees (the tools' paths and the GPU
# it was given); everything else, the grader's own settings included, is left behind.
KEPT_VARIABLES = ("PATH", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES",
                  "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES")

# Mounts the unshare sandbox sets up before it runs the step: the student's folder at the
# fixed path, its tmp/ as /tmp, an empty /dev/shm of its own, the hidden folders emptied,
# and every other mount read-only (the device nodes, /proc and /sys stay as they are).
UNSHARE_SCRIPT = r"""
work=$1 fixed=$2 hidden=$3; shift 3
ip link set lo up 2>/dev/null  # NCCL's bootstrap (stage 18) needs the loopback interface
mount --bind "$work" "$fixed" && mount --bind "$fixed/tmp" /tmp || exit 125
mount -t tmpfs -o size=SHM_BYTES,mode=1777 none /dev/shm || exit 125
for h in $hidden; do [ -d "$h" ] && { mount -t tmpfs -o ro,size=4k none "$h" || exit 125; }; done
awk '{print $2}' /proc/self/mounts | sort -r | while read -r m; do
  case " $hidden " in *" $m "*) continue ;; esac
  case $m in /proc|/proc/*|/sys|/sys/*|/dev|/dev/*|/tmp|"$fixed") continue ;; esac
  mount -o remount,bind,ro "$m" 2>/dev/null
done
cd "$fixed" && exec "$@"
""".replace("SHM_BYTES", str(SHM_BYTES))

# The probe: writing inside must work; writing beside the fixed path (a folder of the
# machine) and reaching any interface but lo must not.
PROBE = ("touch ./probe-inside || exit 11; touch ../probe-outside 2>/dev/null && exit 12; "
         "test \"$(grep -c : /proc/self/net/dev)\" -le 1 || exit 13; exit 0")


class Sandbox:
    """`kind` is 'bwrap', 'unshare' or 'none'; `wrap` turns a command into the sandboxed one.
    `hidden` folders (the instructor's course, the grader's output) are empty inside."""

    def __init__(self, kind, prefix=(), hidden=()):
        self.kind, self.prefix = kind, list(prefix)
        self.hidden = [str(pathlib.Path(h).resolve()) for h in hidden]
        self.link_lock = threading.Lock()

    def describe(self):
        return {"bwrap": "bubblewrap (bwrap): no network, read-only system, PID namespace",
                "unshare": "util-linux unshare: network, mount and PID namespaces, read-only "
                           "system",
                "none": "none (--no-sandbox): plain processes with limits and time-outs"}[self.kind]

    def wrap(self, command, work, network=False):
        work = str(pathlib.Path(work).resolve())
        if self.kind == "bwrap":
            hide = [arg for path in self.hidden
                    for arg in ("--size", "4096", "--tmpfs", path, "--remount-ro", path)]
            return (["bwrap", "--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc",
                     "--size", str(TMP_BYTES), "--tmpfs", "/tmp",
                     "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm", *hide,
                     "--bind", work, str(FIXED), "--chdir", str(FIXED),
                     "--unshare-pid", "--unshare-ipc", "--die-with-parent"]
                    + ([] if network else ["--unshare-net"]) + ["--", *command])
        if self.kind == "unshare":
            flags = [f for f in self.prefix if f != "--net" or not network]
            return ["unshare", *flags, "sh", "-c", UNSHARE_SCRIPT, "sh", work, str(FIXED),
                    " ".join(self.hidden), *command]
        return list(command)


def unshare_prefix(as_root):
    # A PID namespace needs its own /proc: compute-sanitizer reads the target's /proc entries
    # and, with the host's /proc, cannot reach the GPU (cudaErrorOperatingSystem).
    flags = ["--net", "--mount", "--pid", "--fork", "--kill-child", "--mount-proc"]
    return flags if as_root else flags + ["--map-root-user"]


def candidates(hidden):
    found = []
    if shutil.which("bwrap"):
        found.append(Sandbox("bwrap", hidden=hidden))
    if shutil.which("unshare"):
        found.append(Sandbox("unshare", unshare_prefix(os.geteuid() == 0), hidden))
        if os.geteuid() == 0:
            found.append(Sandbox("unshare", unshare_prefix(False), hidden))
    return found


def detect(scratch, allow_none, hidden=()):
    """The first isolation whose probe passes; Sandbox('none') only with allow_none, else
    None. `scratch` is a folder the probe may write in."""
    inside = pathlib.Path(scratch) / "probe"
    (inside / "tmp").mkdir(parents=True, exist_ok=True)
    if FIXED.is_symlink():  # left by an earlier run with --no-sandbox
        FIXED.unlink()
    FIXED.mkdir(parents=True, exist_ok=True)
    for sandbox in candidates(hidden):
        command = sandbox.wrap(["sh", "-c", PROBE], inside)
        try:
            done = subprocess.run(command, capture_output=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0 and (inside / "probe-inside").exists():
            return sandbox
    return Sandbox("none") if allow_none else None


# ---------------------------------------------------------------------------- running
def limiter(memory_bytes=None):
    """The preexec function: no core files, bounded files and output, optional memory."""
    def apply():
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_BYTES, FILE_BYTES))
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(4096, hard), hard))
        if memory_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    return apply


def run(sandbox, command, work, log, timeout, env=None, memory_bytes=None, network=False):
    """Runs `command` in `work` (seen at FIXED) with its output into `log`; returns (exit
    code or None when it ran out of time and was killed, the log's text)."""
    work = pathlib.Path(work)
    (work / "tmp").mkdir(exist_ok=True)
    # Temporary files and tools' caches stay in the step's own /tmp (the student's tmp/).
    scratch = "/tmp" if sandbox.kind != "none" else str(work.resolve() / "tmp")
    environment = step_environment(env, scratch)
    if sandbox.kind == "none":
        with sandbox.link_lock:  # the fixed path is one link on this machine
            point_link_at(work)
            return run_logged(command, FIXED, log, timeout, environment, memory_bytes)
    return run_logged(sandbox.wrap(command, work, network), work, log, timeout, environment,
                      memory_bytes, shown=command)


def step_environment(env, scratch):
    """A fixed, minimal environment: the tools' paths and the GPU from the grader's, what the
    step is given (`env`), and its own /tmp as home."""
    kept = {name: os.environ[name] for name in KEPT_VARIABLES if name in os.environ}
    return {**kept, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", **(env or {}),
            "TMPDIR": scratch, "HOME": scratch}


def point_link_at(work):
    if FIXED.is_symlink() or FIXED.is_file():
        FIXED.unlink()
    elif FIXED.is_dir():
        FIXED.rmdir()
    FIXED.parent.mkdir(parents=True, exist_ok=True)
    FIXED.symlink_to(pathlib.Path(work).resolve())


def run_logged(command, cwd, log, timeout, env, memory_bytes, shown=None):
    """Runs the step with its output through a pipe: the log keeps the first LOG_BYTES."""
    with open(log, "wb") as out:
        out.write(("$ " + " ".join(str(c) for c in (shown or command)) + "\n").encode())
        out.flush()
        try:
            process = subprocess.Popen([str(c) for c in command], cwd=cwd, env=env,
                                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, start_new_session=True,
                                       preexec_fn=limiter(memory_bytes))
        except OSError as error:
            out.write(f"could not start: {error}\n".encode())
            code = 127
        else:
            room = log_room(pathlib.Path(log).parent)
            copier = threading.Thread(target=copy_capped, args=(process.stdout, out, room),
                                      daemon=True)
            copier.start()
            code = wait_or_kill(process, timeout)
            copier.join()
    return code, pathlib.Path(log).read_text(encoding="utf-8", errors="replace")


def log_room(folder):
    """How much a new log in `folder` may keep: LOG_BYTES, or what is left of the folder's
    FOLDER_LOG_BYTES (at least LOG_FLOOR, so that every step says something)."""
    used = sum(entry.stat().st_size for entry in os.scandir(folder) if entry.is_file())
    return max(LOG_FLOOR, min(LOG_BYTES, FOLDER_LOG_BYTES - used))


def copy_capped(source, out, limit=LOG_BYTES):
    """Copies the step's output into the log up to `limit` bytes and drains the rest, so that
    the step never blocks on a full pipe; a last line says how much was left out."""
    kept = left = 0
    while chunk := source.read(1 << 16):
        room = max(0, limit - kept)
        out.write(chunk[:room])
        kept += min(room, len(chunk))
        left += len(chunk) - min(room, len(chunk))
    if left:
        out.write(f"\n[grader: {left} more bytes of output left out; the log keeps the first "
                  f"{limit} bytes]\n".encode())
    source.close()


def wait_or_kill(process, timeout):
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_tree(process)
        return None


def kill_tree(process):
    """SIGKILL to the step's whole process group (its session, which it cannot leave for
    another without a process call the integrity rules forbid; the namespaces' PID 1 takes
    the rest with it)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()
