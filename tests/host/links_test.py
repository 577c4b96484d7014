#!/usr/bin/env python3
"""Every relative link and image in the course's Markdown (README.md, README.ko.md,
docs/**/*.md and each stage's lesson, stages/*/README.md) points at a file or folder that
exists, and a #fragment into a Markdown page (that page or another) names one of its
headings as GitHub spells the heading's anchor. Web and mail links are not checked. Links
inside code (fenced blocks and `spans`) are not links.

The student edition (scripts/export_student.sh: no answers/) leaves out what would give a
solution away, and a partial one (--stages 6-10) the later stages' folders: a link to such
a path is not counted as broken there (it is in the full course).

    python3 tests/host/links_test.py        exit 0 every link resolves, 1 some do not
"""
import pathlib
import re
import sys
import unicodedata
import unittest
import urllib.parse

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # the package, also when run by hand
from course.export import withheld  # noqa: E402

# [text](target) and ![alt](target), the target optionally in <...> and followed by a title.
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]"  # the text, one level of [] inside
                    r"\(\s*(<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)"  # the target
                    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")  # a title
# [label]: target (a reference definition, at the start of a line).
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)", re.M)
# <img src="..."> and <a href="..."> written as HTML in the Markdown.
HTML = re.compile(r"<(?:img|a|source)\b[^>]*?\b(?:src|href|srcset)\s*=\s*[\"']([^\"']+)[\"']", re.I)
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")


def pages(root=ROOT):
    found = [root / "README.md", root / "README.ko.md"]
    found += sorted((root / "docs").glob("**/*.md"))
    found += sorted(root.glob("stages/*/README.md"))
    return [p for p in found if p.is_file()]


def prose(text, keep_spans=False):
    """The page with fenced code blocks blanked and code spans removed (kept with
    `keep_spans`: a heading's anchor spells their text), line numbers kept."""
    lines, fence = [], None
    for line in text.split("\n"):
        opened = FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            lines.append("")
        elif opened:
            fence = opened.group(1)
            lines.append("")
        else:
            lines.append(line if keep_spans else CODE_SPAN.sub("", line))
    return "\n".join(lines)


def targets(text):
    """(line number, target) for every link, image and reference definition."""
    body = prose(text)
    found = []
    for pattern in (INLINE, REFERENCE, HTML):
        for match in pattern.finditer(body):
            target = match.group(1).strip()
            if target.startswith("<") and target.endswith(">"):
                target = target[1:-1]
            if pattern is HTML and "," in target:  # srcset: "a.png 1x, b.png 2x"
                target = target.split(",")[0]
            if pattern is HTML:
                target = target.split()[0] if target.split() else target
            found.append((body.count("\n", 0, match.start()) + 1, target))
    return sorted(set(found))


def local_path(target):
    """The path a relative target names (no fragment, no query, %-escapes decoded), or None
    for a web or mail link and a link to an anchor of the same page."""
    if not target or target.startswith("#") or target.startswith("//") or SCHEME.match(target):
        return None
    path = target.split("#", 1)[0].split("?", 1)[0]
    return urllib.parse.unquote(path) or None


def student_edition(root=ROOT):
    """What CMakeLists.txt goes by: the student edition has no answers/."""
    return not (root / "answers").is_dir()


def left_out(relative, root=ROOT):
    """Whether the student edition leaves the path out: a withheld file or folder, or a
    stage folder a partial edition does not have."""
    text = relative.as_posix()
    if withheld(text) or withheld(text + "/"):
        return True
    parts = relative.parts
    return (len(parts) >= 2 and parts[0] == "stages"
            and re.fullmatch(r"stage[0-9]{2}_\w+", parts[1]) is not None
            and not (root / "stages" / parts[1]).is_dir())


def slug(heading):
    """GitHub's anchor for a heading's text: a link's text kept, lower case, every character
    but letters, digits, marks, '-' and '_' dropped, and each space a '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    return "".join("-" if ch == " " else ch for ch in text
                   if ch in " -_" or unicodedata.category(ch)[0] in "LNM")


def anchors(text):
    """Every heading's anchor on a page (outside code), a repeated one as GitHub numbers it."""
    seen, found = {}, set()
    for line in prose(text, keep_spans=True).split("\n"):
        heading = HEADING.match(line)
        if heading:
            base = slug(heading.group(1))
            found.add(base if base not in seen else f"{base}-{seen[base]}")
            seen[base] = seen.get(base, 0) + 1
    return found


def broken_anchor(page, target, root):
    """Why `target`'s #fragment names no heading of the Markdown page it points at (`page`
    itself for '#x'), or None: not a page of the course, no fragment, or a heading it names."""
    if "#" not in target or target.startswith("//") or SCHEME.match(target):
        return None
    path, fragment = target.split("#", 1)
    path = urllib.parse.unquote(path.split("?", 1)[0])
    linked = page if not path else ((root if path.startswith("/") else page.parent)
                                    / path.lstrip("/")).resolve()
    if linked.suffix != ".md" or not linked.is_file() or not fragment:
        return None
    if urllib.parse.unquote(fragment) in anchors(linked.read_text(encoding="utf-8")):
        return None
    return f"{target} (no heading of {linked.relative_to(root).as_posix()} has that anchor)"


def broken_links(root=ROOT):
    """['README.md:12: stages/x/README.md (no such file)', ...]"""
    root = root.resolve()
    edition = student_edition(root)
    problems = []
    for page in pages(root):
        name = page.relative_to(root).as_posix()
        for line, target in targets(page.read_text(encoding="utf-8")):
            anchor = broken_anchor(page, target, root)
            if anchor:
                problems.append(f"{name}:{line}: {anchor}")
            path = local_path(target)
            if path is None:
                continue
            base = root if path.startswith("/") else page.parent
            resolved = (base / path.lstrip("/")).resolve()
            try:
                relative = resolved.relative_to(root)
            except ValueError:
                problems.append(f"{name}:{line}: {target} (outside the repository)")
                continue
            if resolved.exists():
                continue
            if edition and left_out(relative, root):
                continue
            problems.append(f"{name}:{line}: {target} (no such file: {relative.as_posix()})")
    return problems


class Links(unittest.TestCase):
    def test_every_relative_link_resolves(self):
        problems = broken_links()
        self.assertEqual(problems, [], "broken links:\n" + "\n".join(problems))

    def test_the_pages_are_found(self):
        names = {p.relative_to(ROOT).as_posix() for p in pages()}
        self.assertIn("README.md", names)
        self.assertTrue(any(n.startswith("stages/") for n in names))

    def test_the_reader(self):
        text = ("See [a](a.md#x), ![b](<img dir/b.png> \"title\"), [web](https://x.org/y), "
                "[top](#top), [p](f(1).md) and `[code](nothing.md)`.\n"
                "```\n[fenced](nothing.md)\n```\n[ref]: ../c.md\n<img src=\"d.svg\" width=3>\n")
        found = [t for _, t in targets(text)]
        self.assertEqual(sorted(found), sorted(["a.md#x", "img dir/b.png", "https://x.org/y",
                                                "#top", "f(1).md", "../c.md", "d.svg"]))
        self.assertEqual([local_path(t) for t in ("a.md#x", "https://x.org", "#top",
                                                 "mailto:a@b", "x%20y.md")],
                         ["a.md", None, None, None, "x y.md"])


    def test_anchors_as_github_spells_them(self):
        page = "# Stage 16 — 소프트맥스, `warp_all`\n## A [link](x.md) here\n## Twice\n## Twice\n"
        self.assertEqual(anchors(page), {"stage-16--소프트맥스-warp_all", "a-link-here", "twice",
                                         "twice-1"})
        with __import__("tempfile").TemporaryDirectory() as folder:
            root = pathlib.Path(folder).resolve()
            (root / "p.md").write_text(page, encoding="utf-8")
            self.assertIsNone(broken_anchor(root / "p.md", "#twice-1", root))
            self.assertIsNone(broken_anchor(root / "p.md", "p.md#a-link-here", root))
            self.assertIn("no heading", broken_anchor(root / "p.md", "p.md#first-run", root))
            self.assertIsNone(broken_anchor(root / "p.md", "https://x.org/p.md#y", root))


if __name__ == "__main__":
    unittest.main()
