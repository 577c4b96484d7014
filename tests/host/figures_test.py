#!/usr/bin/env python3
"""The lessons' diagrams are what the code in scripts/course/figures/ draws, byte for byte,
and every image a lesson shows exists inside its own stage folder (so a partial student
edition, which ships whole stage folders, never points at a missing figure).

Needs drawsvg (python3 -m pip install -r scripts/requirements-figures.txt). Without it the
regeneration is skipped on a student's machine but fails under CI (the CI variable set),
so that a stale figure cannot pass unseen."""
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

try:
    import drawsvg  # noqa: F401
except ImportError:
    from course.figures import INSTALL
    if os.environ.get("CI"):
        print(f"drawsvg is not installed, and CI must check the figures: {INSTALL}")
        sys.exit(1)
    print(f"drawsvg is not installed: skipping the figure checks; install it with: {INSTALL}")
    sys.exit(77)

from course import build  # noqa: E402
from course.figures import all_figures  # noqa: E402
from course.figures.__main__ import render_all  # noqa: E402

IMAGE = re.compile(r"!\[(.*?)\]\(([^)\s]+)\)")


def lessons():
    return sorted(ROOT.glob("stages/stage[0-9][0-9]_*/README.md"))


def image_links(lesson):
    """(alt text, target) of every Markdown image in a lesson."""
    return IMAGE.findall(lesson.read_text(encoding="utf-8"))


class Figures(unittest.TestCase):
    def test_every_committed_figure_is_what_the_code_draws(self):
        with tempfile.TemporaryDirectory() as tmp:
            written = render_all(tmp)
            self.assertTrue(written)
            for path in written:
                with self.subTest(figure=path):
                    committed = ROOT / path
                    self.assertTrue(committed.is_file(),
                                    f"{path} is missing: run scripts/figures.sh and commit it")
                    self.assertEqual(committed.read_bytes(), (pathlib.Path(tmp) / path).read_bytes(),
                                     f"{path} differs from what the code draws: run "
                                     "scripts/figures.sh and commit it")

    def test_drawing_twice_gives_the_same_bytes(self):
        for path, make in all_figures()[:3]:
            self.assertEqual(make().svg(), make().svg(), path)

    def test_no_figure_file_is_left_without_code(self):
        drawn = {path for path, _ in all_figures()}
        on_disk = {p.relative_to(ROOT).as_posix()
                   for p in ROOT.glob("stages/stage[0-9][0-9]_*/figures/*.svg")}
        self.assertEqual(on_disk - drawn, set(), "figures no code draws any more: delete them")

    def test_every_lesson_image_exists_inside_its_stage(self):
        for lesson in lessons():
            stage = lesson.parent.resolve()
            for alt, target in image_links(lesson):
                with self.subTest(lesson=lesson.parent.name, image=target):
                    self.assertFalse(re.match(r"[a-z]+://", target),
                                     "a lesson's image is a file of the course, not a web address")
                    self.assertTrue(alt.strip(), "an image needs a description (alt text)")
                    path = (lesson.parent / target).resolve()
                    self.assertTrue(path.is_file(), f"{target} does not exist")
                    self.assertTrue(path.is_relative_to(stage),
                                    f"{target} is outside the stage's folder: a partial student "
                                    "edition would lack it")

    def test_every_figure_is_shown_by_its_lesson(self):
        shown = set()
        for lesson in lessons():
            for _, target in image_links(lesson):
                shown.add((lesson.parent / target).resolve())
        for path, _ in all_figures():
            with self.subTest(figure=path):
                self.assertIn((ROOT / path).resolve(), shown, f"no lesson shows {path}")

    def test_student_editions_ship_every_figure_their_lessons_show(self):
        numbers = sorted(s.number for s in build.registry("figures_test").stages
                         if (s.directory / "figures").is_dir())
        partial = f"{numbers[0]:02d}-{numbers[min(2, len(numbers) - 1)]:02d}"
        for stages in ([], ["--stages", partial]):
            with self.subTest(stages=stages), tempfile.TemporaryDirectory() as tmp:
                edition = pathlib.Path(tmp) / "edition"
                subprocess.run(["bash", str(ROOT / "scripts" / "export_student.sh"), *stages,
                                str(edition)], check=True, stdout=subprocess.DEVNULL)
                shown = 0
                for lesson in sorted(edition.glob("stages/stage[0-9][0-9]_*/README.md")):
                    for _, target in image_links(lesson):
                        shown += 1
                        self.assertTrue((lesson.parent / target).is_file(),
                                        f"{lesson.parent.name}: {target} is not in the edition")
                self.assertGreater(shown, 0)

    def test_figures_are_small(self):
        for path, _ in all_figures():
            size = (ROOT / path).stat().st_size if (ROOT / path).is_file() else 0
            self.assertLess(size, 150_000, f"{path} is {size} bytes")


if __name__ == "__main__":
    unittest.main()
