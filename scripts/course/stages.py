"""The stages: the one place that globs stages/ for them. A stage is a folder
stages/stageNN_technique/ (lesson, template, hints), its answer answers/stageNN_technique/."""
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def stage_dirs():
    """Every stage folder, in order of its number."""
    return sorted(p for p in (ROOT / "stages").glob("stage[0-9][0-9]_*") if p.is_dir())


def number_of(directory):
    return int(pathlib.Path(directory).name[5:7])


def numbers():
    return [number_of(p) for p in stage_dirs()]


def folder(number):
    """The stage's folder name ('stage07_interleaved'), or None when there is no such stage."""
    return next((p.name for p in stage_dirs() if number_of(p) == number), None)


def listing():
    """'06 07 ... 20': the stage numbers as the error lines list them."""
    return " ".join(f"{n:02d}" for n in numbers())


def student_edition():
    """The student edition (export_student.sh) ships without answers/: templates only."""
    return not (ROOT / "answers").is_dir()

