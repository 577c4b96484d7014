"""The C++ tokens of a stage file, from clang's own lexer (libclang's Python bindings, the
`libclang` package: scripts/requirements-grader.txt), so that the grader's integrity rules see
what the compiler sees: digraphs, raw strings, comments and line splices are lexed as C++
lexes them, not guessed at by regular expressions.

A token's spelling is clang's; `canonical` maps the alternative spellings (`<%`, `%:`, ...)
to the punctuation they stand for."""
import functools
import os
import tempfile

COMMENT, KEYWORD, IDENTIFIER, LITERAL, PUNCTUATION = (
    "COMMENT", "KEYWORD", "IDENTIFIER", "LITERAL", "PUNCTUATION")
DIGRAPHS = {"<%": "{", "%>": "}", "<:": "[", ":>": "]", "%:": "#", "%:%:": "##"}
INSTALL = "pip install -r scripts/requirements-grader.txt (the libclang package)"


class Missing(RuntimeError):
    """libclang is not installed: the message says what to install."""


class Token:
    __slots__ = ("kind", "spelling", "line", "column", "end_line", "end_column")

    def __init__(self, kind, spelling, line, column, end_line, end_column):
        self.kind, self.spelling = kind, spelling
        self.line, self.column, self.end_line, self.end_column = line, column, end_line, end_column

    @property
    def canonical(self):
        return DIGRAPHS.get(self.spelling, self.spelling)

    def __repr__(self):
        return f"{self.kind}:{self.spelling}@{self.line}:{self.column}"


@functools.lru_cache(maxsize=1)
def _index():
    try:
        from clang import cindex
    except ImportError as error:
        raise Missing(f"the grader's C++ lexer needs libclang: {INSTALL}") from error
    try:
        return cindex, cindex.Index.create()
    except Exception as error:  # a wheel whose shared library does not load
        raise Missing(f"libclang did not load ({error}): {INSTALL}") from error


def available():
    try:
        _index()
        return True
    except Missing:
        return False


def skip_unless_available():
    """For a test that lexes: exit 77 (ctest's skipped) with one line where libclang is not
    installed."""
    if not available():
        print("skipped: the grader's lexer needs libclang: " + INSTALL)
        raise SystemExit(77)


@functools.lru_cache(maxsize=64)
def tokens(text):
    """Every token of `text` (a whole file, as C++20), comments included, in order. Nothing
    is preprocessed or included: the lexer reads the bytes as they are. Kept for the last
    texts asked (a class shares its templates and answers): treat the list as read-only."""
    cindex, index = _index()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "todo.cpp")
        # No include path and no parsing of bodies: only the tokens are wanted.
        unit = index.parse(path, args=["-x", "c++", "-std=c++20", "-nostdinc", "-nostdinc++"],
                           unsaved_files=[(path, text)],
                           options=cindex.TranslationUnit.PARSE_INCOMPLETE
                           | cindex.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES)
        return [Token(t.kind.name, t.spelling, t.extent.start.line, t.extent.start.column,
                      t.extent.end.line, t.extent.end.column)
                for t in unit.get_tokens(extent=unit.cursor.extent)]
