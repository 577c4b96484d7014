"""The submissions folder: one entry per student, a folder or a .zip / .tar.gz of a copy of
the student edition. Only stages/stageNN_*/todo.cu is read from it; every other file that
differs from the pristine edition is listed as ignored."""
import hashlib
import os
import pathlib
import shutil
import tarfile
import unicodedata
import zipfile

ARCHIVES = (".zip", ".tar.gz", ".tgz")
MAX_UNPACKED_BYTES = 200 * 1024 * 1024  # a class's copies are a few MiB each
MAX_SOURCE_BYTES = 1024 * 1024
MAX_FILES = 5000  # the student edition has a few hundred files
MAX_IGNORED_LISTED = 50  # ignored files named in result.json; the rest are counted
SKIPPED_DIRS = {".git", "build", "__pycache__"}


class SubmissionError(Exception):
    """A submission that cannot be read: one line saying why."""


class Submission:
    """`waits_for_answers`: calibration's runtime red-team attempts, whose GPU work waits for
    the answers' build and whose score waits for the noise the answers measure
    (grading.Context.answer_built, answers_ready)."""

    def __init__(self, student, entry, waits_for_answers=False):
        self.student, self.entry = student, pathlib.Path(entry)
        self.waits_for_answers = waits_for_answers


def student_id(entry):
    """The entry's name without its archive suffix, in Unicode's NFC form (a name typed on
    macOS arrives decomposed): 김민수, "Ada Lovelace", -x stay themselves. Bytes that are not
    UTF-8 are written \\xNN. The id names the student's folders under OUT/students and the
    grader's scratch (whose own folders live elsewhere, so no id reaches them)."""
    name = entry.name
    for suffix in ARCHIVES:
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[:-len(suffix)]
    raw = os.fsencode(name)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="backslashreplace")
    text = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)
    return unicodedata.normalize("NFC", text)


def find(folder):
    """Every submission in `folder`, by student id; hidden entries are left out. Two entries
    with one id (kim/ and kim.zip, or one name typed composed and decomposed) are refused
    rather than merged."""
    found = {}
    for entry in sorted(pathlib.Path(folder).iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir() or (entry.is_file() and entry.name.endswith(ARCHIVES)):
            student = student_id(entry)
            if student in found:
                raise SubmissionError(f"two submissions are both student '{student}': "
                                      f"{ascii(found[student].entry.name)} and {ascii(entry.name)}; "
                                      "rename one")
            found[student] = Submission(student, entry)
    return list(found.values())


# ---------------------------------------------------------------------------- unpacking
def unpack(submission, dest):
    """The submission's files under `dest` (a folder is copied, links left out); returns the
    edition's root inside it: the shallowest folder that holds stages/."""
    dest = pathlib.Path(dest)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    entry = submission.entry
    if entry.is_dir():
        copy_plain_files(entry, dest)
    elif entry.name.endswith(".zip"):
        unzip(entry, dest)
    else:
        untar(entry, dest)
    return edition_root(dest)


def copy_plain_files(source, dest):
    total = count = 0
    for path in sorted(source.rglob("*")):
        count += 1
        if count > MAX_FILES * 2:  # folders and files alike: a tree of empty folders too
            raise SubmissionError(f"more than {MAX_FILES} files")
        relative = path.relative_to(source)
        if path.is_symlink() or not path.is_file() or SKIPPED_DIRS & set(relative.parts[:-1]):
            continue
        total += path.stat().st_size
        if total > MAX_UNPACKED_BYTES:
            raise SubmissionError(f"more than {MAX_UNPACKED_BYTES >> 20} MiB of files")
        (dest / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest / relative)


def safe_member(name):
    parts = pathlib.PurePosixPath(name).parts
    return bool(parts) and not name.startswith("/") and ".." not in parts


def unzip(path, dest):
    try:
        with zipfile.ZipFile(path) as archive:
            too_many(len(archive.infolist()))
            write_members([(m.filename, m.file_size, lambda m=m: archive.open(m))
                           for m in archive.infolist() if not m.is_dir()
                           and (m.external_attr >> 16) & 0o170000 != 0o120000], dest)  # no links
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise SubmissionError(f"not a readable .zip: {error}") from None


def untar(path, dest):
    try:
        with tarfile.open(path) as archive:
            too_many(sum(1 for _ in zip(archive, range(MAX_FILES * 2 + 1))))
            write_members([(m.name, m.size, lambda m=m: archive.extractfile(m))
                           for m in archive.getmembers() if m.isfile()], dest)
    except (tarfile.TarError, OSError, ValueError) as error:
        raise SubmissionError(f"not a readable .tar.gz: {error}") from None


def too_many(entries):
    """Folders and files alike: an archive of many empty folders costs time too."""
    if entries > MAX_FILES * 2:
        raise SubmissionError(f"more than {MAX_FILES * 2} entries in the archive")


def write_members(members, dest):
    """An archive's plain files, (name, size, open), under dest: names that would leave it
    are skipped, and the whole may not unpack to more than MAX_UNPACKED_BYTES."""
    if len(members) > MAX_FILES:
        raise SubmissionError(f"more than {MAX_FILES} files in the archive")
    members = [m for m in members if safe_member(m[0])]
    if sum(size for _, size, _ in members) > MAX_UNPACKED_BYTES:
        raise SubmissionError(f"more than {MAX_UNPACKED_BYTES >> 20} MiB unpacked")
    for name, _, open_member in members:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        with open_member() as source, open(target, "wb") as out:
            shutil.copyfileobj(source, out)


def edition_root(folder):
    candidates = sorted((p.parent for p in folder.rglob("stages") if p.is_dir()),
                        key=lambda p: len(p.parts))
    if not candidates:
        raise SubmissionError("no stages/ folder: not a copy of the student edition")
    return candidates[0]


# ---------------------------------------------------------------------------- what is read
def graded_sources(root, folders):
    """{stage folder name: text of its todo.cu, or None where the file is missing}."""
    found = {}
    for name in folders:
        path = pathlib.Path(root) / "stages" / name / "todo.cu"
        if not path.is_file() or path.is_symlink():
            found[name] = None
            continue
        data = path.read_bytes()
        if len(data) > MAX_SOURCE_BYTES:
            raise SubmissionError(f"stages/{name}/todo.cu is larger than 1 MiB")
        try:
            found[name] = data.decode("utf-8")
        except UnicodeDecodeError as error:
            # Replacing the byte would build something other than what was handed in.
            raise SubmissionError(f"stages/{name}/todo.cu is not UTF-8 text (byte "
                                  f"{error.start}); save it as UTF-8 and hand it in again") from None
    return found


def digest(sources):
    """The submission's digest: the graded files' text, stage by stage."""
    hashed = hashlib.sha256()
    for name in sorted(sources):
        hashed.update(f"{name}\0{sources[name] if sources[name] is not None else '-'}\0".encode())
    return hashed.hexdigest()


def ignored_files(root, course, stage_folders):
    """Files of the submission that differ from the course's or are not in it, other than
    the stages' todo.cu files (the student's own work, graded or not; `stage_folders`: every
    stage's folder, from the registry): listed for the instructor, never built."""
    root, course = pathlib.Path(root), pathlib.Path(course)
    sources = {f"stages/{folder}/todo.cu" for folder in stage_folders}
    ignored = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if (not path.is_file() or SKIPPED_DIRS & set(relative.parts)
                or relative.as_posix() in sources):
            continue
        original = course / relative
        if not original.is_file() or original.read_bytes() != path.read_bytes():
            ignored.append(str(relative))
    if len(ignored) > MAX_IGNORED_LISTED:
        ignored = ignored[:MAX_IGNORED_LISTED] + [f"... and {len(ignored) - MAX_IGNORED_LISTED} more"]
    return ignored

