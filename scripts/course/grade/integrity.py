"""Integrity, decided before any GPU work, on C++ tokens (course/grade/lexer.py: clang's
lexer), not on lines: outside the TODO blocks a submitted todo.cu must equal the stage's
template (line endings and trailing spaces normalised); inside them every token must be one
the stage allows. A violation names the line and the rule, and the stage's code is not built.

What a block may hold is an allow-list, not a list of forbidden names:
- identifiers: the names of its own file (the template: the harness API, the kernel's
  parameters), the names the stage's answer uses in its blocks, the device vocabulary of
  vocabulary.txt (and its section for each fact the stage's manifest `allows`), and the
  names the student declares inside the blocks, where their declaration is in scope. A name
  after `::` must come from the first three; vocabulary.txt's `never:` names are refused
  everywhere;
- keywords: those of BASE_KEYWORDS and those the answers use;
- literals: numbers; string and character literals only where the stage allows host code;
- punctuation: no preprocessor token but in a `#pragma unroll [N]` line, no attribute (`[[`),
  no alternative spelling (`<%`, `%:`, ...), and no brace, parenthesis or bracket the block
  did not open;
- no byte the lexer and the compiler might read differently: control characters (NUL
  included) but tab and line ends, a backslash at a line's end (a splice), trigraphs;
  non-ASCII text only inside comments and string literals;
- no token that starts inside a block and ends outside it (a comment or a raw string
  swallowing the template), and no declaration at namespace scope but a function's
  definition (no global or static state); `static` is not a keyword a block may use.
The host test checks that every answer and template passes and that the answers use each
fact's section."""
import hashlib
import pathlib
import re

from course.grade import lexer
from course import todo_markers
from course.todo_markers import BEGIN, END, lines_with_blocks

HERE = pathlib.Path(__file__).resolve().parent
EVERYWHERE = "every stage"
# Stage facts a section of vocabulary.txt may belong to: the names a stage's manifest may
# list in `allows`.
LIBRARY, HOST_CODE, MULTI_GPU = "library", "host_code", "multi_gpu"
FACTS = (LIBRARY, HOST_CODE, MULTI_GPU)

BASE_KEYWORDS = frozenset(
    "if else for while do return break continue switch case default const constexpr auto "
    "unsigned signed int float double bool char short long void sizeof static_cast true false "
    "nullptr volatile".split())
TYPE_KEYWORDS = frozenset("unsigned signed int float double bool char short long void auto".split())
SPECIFIERS = frozenset("const constexpr volatile __shared__ __device__ __host__ __forceinline__ "
                       "__restrict__ inline".split())
POINTER = frozenset(["*", "&", "&&", "const", "volatile", "__restrict__"])
TRIGRAPH = re.compile(r"\?\?[=/'()!<>\-]")
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\r(?!\n)")
NUMBER = re.compile(r"(0[xX][0-9a-fA-F']+|[0-9][0-9']*\.?[0-9']*([eE][+-]?[0-9]+)?|"
                    r"\.[0-9][0-9']*([eE][+-]?[0-9]+)?)[uUlLfF]*")
PRAGMA = ["#", "pragma", "unroll"]
VOCABULARY_NAMESPACES = frozenset("std cuda cg cooperative_groups cub thrust".split())

WHY = {
    "outside": "changed outside the TODO blocks",
    "bytes": "control characters, trigraphs and line splices are not allowed in a TODO block",
    "text": "non-ASCII text is allowed only in comments and string literals",
    "edge": "a token (a comment or a literal) runs across the edge of the TODO block",
    "unlexed": "text the C++ lexer did not read as a token (an unterminated comment or literal)",
    "marker": "a TODO marker line must be a comment of its own",
    "preprocessor": "preprocessor lines (#include, #define, ...) are not allowed; only #pragma unroll",
    "spelling": "alternative spellings (<% %> <: :> %:) are not allowed",
    "attribute": "attributes are not allowed",
    "literal": "string and character literals are not allowed (only in the host-code stage)",
    "keyword": "this keyword is not allowed in a TODO block",
    "name": "this name is not one the stage allows (the file's, the answer's, the device "
            "vocabulary, or one declared in the block)",
    "never": "this name is never allowed (files, processes, environment, network, assembly)",
    "global": "declarations at namespace scope other than a function definition are not allowed",
    "balance": "closes a brace, parenthesis or bracket it did not open, or leaves one open",
}


class Violation:
    def __init__(self, line, rule, text, why=None):
        self.line, self.rule, self.text = line, rule, text.strip()
        self.why = why or WHY[rule]

    def as_dict(self):
        return {"line": self.line, "rule": self.rule, "why": self.why, "text": self.text}

    def __str__(self):
        return f"line {self.line}: {self.rule}: {self.why} ({self.text[:80]})"


# ---------------------------------------------------------------------------- vocabulary
def read_vocabulary(path=HERE / "vocabulary.txt"):
    """{section: {"names": set, "types": set, "never": set}} from vocabulary.txt."""
    sections, current = {}, None
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not line:
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {"names": set(), "types": set(),
                                                              "never": set()})
            continue
        kind, _, words = line.partition(":") if line.split()[0].endswith(":") else ("names", "", line)
        current[kind.strip()].update(words.split())
    return sections


def facts_of(stage):
    """The stage facts the rules use: what its manifest `allows` (the registry's
    Stage.allows), given as the Stage or as that list. A name the rules do not know is a
    ValueError (a typo in a stage.json must not quietly allow nothing)."""
    allows = set(getattr(stage, "allows", stage))
    unknown = sorted(allows - set(FACTS))
    if unknown:
        where = f"stage {stage.number}'s stage.json" if hasattr(stage, "number") else "allows"
        raise ValueError(f"{where} lists {', '.join(unknown)}, which the grader's rules do not "
                         f"know (they know {', '.join(FACTS)})")
    return allows


class Allowed:
    """What a stage's blocks may use: names, type names, keywords, and whether literals."""

    def __init__(self, template, answer, facts):
        sections = read_vocabulary()
        chosen = [sections[EVERYWHERE]] + [sections[f] for f in sorted(facts) if f in sections]
        self.never = set().union(*(s["never"] for s in chosen))
        self.types = set().union(*(s["types"] for s in chosen))
        self.vocabulary = set().union(*(s["names"] for s in chosen)) | self.types
        self.names = set(self.vocabulary)
        self.names |= file_names(template, inside=False) | file_names(answer or "", inside=True)
        self.names -= self.never
        self.vocabulary -= self.never
        self.keywords = set(BASE_KEYWORDS) | block_keywords(answer or "")
        self.keywords.discard("static")
        self.literals = HOST_CODE in facts


def block_lines(text):
    """{line number: TODO block} for the lines inside a block (markers excluded)."""
    return {n: b for n, (_, b) in enumerate(lines_with_blocks(text), start=1) if b is not None}


def file_names(text, inside):
    """The identifiers of `text` outside its blocks (inside=False) or inside them."""
    if not text:
        return set()
    lines = block_lines(text)
    return {t.spelling for t in lexer.tokens(text)
            if t.kind == lexer.IDENTIFIER and (t.line in lines) == inside}


def block_keywords(text):
    lines = block_lines(text)
    return {t.spelling for t in lexer.tokens(text) if t.kind == lexer.KEYWORD and t.line in lines}


# ---------------------------------------------------------------------------- normalising
def outside_edit(template, submitted):
    """The first line outside the TODO blocks where `submitted` differs from `template`."""
    found = todo_markers.first_outside_difference(template, submitted)
    if found is None:
        return None
    number, line, missing = found
    if missing:
        return Violation(number, "outside", line, "lines outside the TODO blocks are missing")
    return Violation(number, "outside", line)


# ---------------------------------------------------------------------------- bytes
def lone_carriage_return(text):
    """A carriage return that ends a line on its own, anywhere in the file: the compiler counts
    it as a line end and a split on newlines does not, so the blocks' lines would be counted
    apart from the tokens'. A Violation, or None."""
    lone = re.search(r"\r(?!\n)", text)
    if not lone:
        return None
    number = text.count("\n", 0, lone.start()) + 1
    return Violation(number, "bytes", text.split("\n")[number - 1][:80].replace("\r", "\\r"),
                     "a carriage return without a newline after it is not allowed")


def byte_violations(text, lines):
    """What the lexer might read unlike the compiler, on the blocks' lines (`text` with its
    line ends as newlines)."""
    return [Violation(number, "bytes", repr(line)[1:-1])
            for number, line in enumerate(text.split("\n"), start=1)
            if number in lines and (CONTROL.search(line) or TRIGRAPH.search(line)
                                    or line.rstrip(" \t").endswith("\\"))]


# ---------------------------------------------------------------------------- tokens
class Stream:
    """The file's tokens (`all`), those that are not comments (`code`) with each one's TODO
    block, and for each brace group the index of its closing brace."""

    def __init__(self, text, lines):
        self.lines = lines
        self.all = lexer.tokens(text)
        self.code = [t for t in self.all if t.kind != lexer.COMMENT]
        self.block = [lines.get(t.line) for t in self.code]
        self.source = text.split("\n")
        self.close_of, self.group_end, self.namespace = self._groups()

    def _groups(self):
        """{index of "{": index of its "}"}; for each token, the index of the "}" closing
        the group it is in (len(code) at file scope), and whether that group is a
        namespace's (or the file's scope)."""
        n = len(self.code)
        end, namespace, stack, close_of = [n] * n, [True] * n, [], {}
        for i, t in enumerate(self.code):
            if stack:
                namespace[i] = stack[-1][1]
            if t.canonical == "{":
                stack.append((i, self._opens_namespace(i)))
            elif t.canonical == "}" and stack:
                close_of[stack.pop()[0]] = i
        for start, close in sorted(close_of.items(), reverse=True):  # inner groups last win
            for i in range(start + 1, close):
                end[i] = min(end[i], close)
        return close_of, end, namespace

    def _opens_namespace(self, i):
        """Whether the "{" at i opens a namespace or an `extern "C"` block."""
        before = self.code[max(0, i - 3):i]
        return any(u.spelling == "namespace" for u in before) or \
            (len(before) >= 2 and before[-2].spelling == "extern" and before[-1].kind == lexer.LITERAL)

    def text_of(self, token):
        return self.source[token.line - 1] if 0 < token.line <= len(self.source) else ""


def token_violations(stream, allowed):
    found = []
    for t in stream.all:
        blocks = {stream.lines.get(n) for n in range(t.line, t.end_line + 1)}
        if len(blocks) > 1:
            found.append(Violation(t.line, "edge", stream.text_of(t)))
        if stream.lines.get(t.line) is None:
            continue
        if t.kind != lexer.COMMENT and not (t.kind == lexer.LITERAL and is_string(t)) and \
                not t.spelling.isascii():
            found.append(Violation(t.line, "text", stream.text_of(t)))
    found += pragma_and_punctuation(stream)
    found += word_violations(stream, allowed)
    found += unlexed(stream)
    return found


def unlexed(stream):
    """The first line with text no token covers: clang drops what follows an unterminated
    block comment, and the compiler might not read it the same way."""
    covered = {}
    for t in stream.all:
        for line in range(t.line, t.end_line + 1):
            start = t.column - 1 if line == t.line else 0
            end = t.end_column - 1 if line == t.end_line else None
            covered.setdefault(line, []).append((start, end))
    for number, line in enumerate(stream.source, start=1):
        raw = line.rstrip("\r").encode("utf-8")
        mask = bytearray(len(raw))
        for start, end in covered.get(number, []):
            stop = len(raw) if end is None else end
            mask[start:stop] = b"\x01" * max(0, stop - start)
        if any(not mask[i] and raw[i:i + 1] not in (b" ", b"\t") for i in range(len(raw))):
            return [Violation(number, "unlexed", line)]
    return []


def is_string(token):
    return not NUMBER.fullmatch(token.spelling)


def pragma_and_punctuation(stream):
    """Preprocessor tokens outside a `#pragma unroll [N]` line, attributes, digraphs."""
    found = []
    code = stream.code
    for i, t in enumerate(code):
        if stream.block[i] is None:
            continue
        if t.spelling in lexer.DIGRAPHS:
            found.append(Violation(t.line, "spelling", stream.text_of(t)))
        if t.canonical in ("#", "##"):
            rest = [u.spelling for u in code[i:] if u.line == t.line]
            pragma = rest[:3] == PRAGMA and (len(rest) == 3 or (len(rest) == 4 and rest[3].isdigit()))
            if not pragma or i > 0 and code[i - 1].line == t.line:
                found.append(Violation(t.line, "preprocessor", stream.text_of(t)))
        elif t.canonical == "[" and i + 1 < len(code) and code[i + 1].canonical == "[":
            found.append(Violation(t.line, "attribute", stream.text_of(t)))
    return found


def in_pragma(stream, i):
    """Whether code token i is a word of a `#pragma unroll` line."""
    t = stream.code[i]
    j = i
    while j > 0 and stream.code[j - 1].line == t.line:
        j -= 1
    return stream.code[j].canonical == "#"


def word_violations(stream, allowed):
    """Keywords, literals and names, each against the allow-list; declared names in scope."""
    found = []
    declared = declarations(stream, allowed)
    members = {name for name, _, _ in declared}
    for i, t in enumerate(stream.code):
        if stream.block[i] is None or in_pragma(stream, i):
            continue
        if t.kind == lexer.KEYWORD and t.spelling not in allowed.keywords:
            found.append(Violation(t.line, "keyword", stream.text_of(t),
                                   f"the keyword `{t.spelling}` is not allowed in a TODO block"))
        elif t.kind == lexer.LITERAL and is_string(t) and not allowed.literals:
            found.append(Violation(t.line, "literal", stream.text_of(t)))
        elif t.kind == lexer.IDENTIFIER:
            rule = name_rule(stream, i, allowed, declared, members)
            if rule:
                found.append(Violation(t.line, rule, stream.text_of(t),
                                       f"`{t.spelling}`: {WHY[rule]}"))
    return found


def name_rule(stream, i, allowed, declared, members):
    """None if identifier i may stand here, else the rule it breaks."""
    name = stream.code[i].spelling
    if name in allowed.never:
        return "never"
    before = stream.code[i - 1].canonical if i else ""
    if before == "::":
        # std::, cuda::, cg::, cub::: only the vocabulary's names, not the file's (the
        # harness's `reduce` must not allow cg::reduce).
        owner = stream.code[i - 2].spelling if i >= 2 else ""
        if owner in VOCABULARY_NAMESPACES:
            return None if name in allowed.vocabulary else "name"
        return None if name in allowed.names else "name"
    if name in allowed.names:
        return None
    if before in (".", "->") and name in members:
        return None
    if any(n == name and start <= i <= end for n, start, end in declared):
        return None
    return "name"


# ---------------------------------------------------------------------------- declarations
def declarations(stream, allowed):
    """(name, first token index, last token index where it is in scope) for every name a
    block declares: a variable, a parameter, a function. A declaration starts where a
    statement or a parameter may start and reads `specifiers type pointer* name`, the type
    being keywords, `auto`, or a qualified name whose last part is a type name (vocabulary
    types, or a name the file uses as one: `float4 v`)."""
    code, found = stream.code, []
    types = allowed.types | file_types(stream)
    for i in range(len(code)):
        if stream.block[i] is None or not starts_statement(code, i):
            continue
        found += declarators(stream, i, types)
    return found


def file_types(stream):
    """Names the file uses directly before a declared name: `Stats s`, `float4 v`."""
    code = stream.code
    return {code[i].spelling for i in range(len(code) - 1)
            if code[i].kind == lexer.IDENTIFIER and code[i + 1].kind == lexer.IDENTIFIER
            and stream.block[i] is None}


def starts_statement(code, i):
    if i == 0:
        return True
    return code[i - 1].canonical in (";", "{", "}", "(", ",", ":", ")") or \
        code[i - 1].kind == lexer.COMMENT


def declarators(stream, i, types):
    code = stream.code
    j = i
    while j < len(code) and code[j].spelling in SPECIFIERS:
        j += 1
    j = read_type(code, j, types)
    if j is None:
        return []
    opener = code[i - 1].canonical if i else ";"
    in_parameters = opener in ("(", ",") and not control_parenthesis(code, i)
    found = []
    while True:
        while j < len(code) and code[j].canonical in POINTER:
            j += 1
        if j >= len(code) or code[j].kind != lexer.IDENTIFIER:
            return found
        name_at = j
        j += 1
        if j < len(code) and code[j].canonical not in ("=", ";", ",", "[", "(", "{", ":", ")"):
            return found
        found.append((code[name_at].spelling, name_at, scope_end(stream, name_at, i)))
        if in_parameters:
            return found
        j = skip_initialiser(code, j)
        if j is None or code[j].canonical != ",":
            return found
        j += 1


def read_type(code, j, types):
    """The index after a type at j, or None where no type starts there."""
    if j < len(code) and code[j].spelling in TYPE_KEYWORDS:
        while j < len(code) and code[j].spelling in TYPE_KEYWORDS | {"const"}:
            j += 1
        return j
    last = None
    while j < len(code):
        if code[j].canonical == "::":
            j += 1
            continue
        if code[j].kind != lexer.IDENTIFIER:
            break
        last = code[j].spelling
        j += 1
        if j < len(code) and code[j].canonical == "<":
            j = skip_balanced(code, j, "<", ">")
            if j is None:
                return None
        if j < len(code) and code[j].canonical == "::":
            continue
        break
    return j if last in types else None


def skip_balanced(code, j, open_, close):
    depth = 0
    while j < len(code):
        c = code[j].canonical
        depth += (c == open_) - (c == close) - 2 * (c == ">>" and close == ">")
        j += 1
        if depth <= 0:
            return j
        if c in (";", "{", "}"):
            return None
    return None


def skip_initialiser(code, j):
    """From a declarator's end, the index of the `,` or `;` that ends its initialiser."""
    depth = 0
    while j < len(code):
        c = code[j].canonical
        if c in ("(", "[", "{"):
            depth += 1
        elif c in (")", "]", "}"):
            depth -= 1
            if depth < 0:
                return None
        elif depth == 0 and c in (",", ";"):
            return j
        j += 1
    return None


def control_parenthesis(code, i):
    """Whether the `(` opening the list that holds token i belongs to for/if/while/switch
    (a statement's declarations, several per list) rather than a parameter list."""
    depth = 0
    for j in range(i - 1, -1, -1):
        c = code[j].canonical
        if c == ")":
            depth += 1
        elif c == "(":
            if depth == 0:
                return j > 0 and code[j - 1].spelling in ("for", "if", "while", "switch")
            depth -= 1
    return False


def scope_end(stream, name_at, start):
    """The last token index where a name declared at `name_at` (its declaration starting at
    `start`) is in scope: the end of its brace group, or for a declaration inside
    parentheses (a parameter, a for's), the end of the group or statement after them."""
    code = stream.code
    if start == 0 or code[start - 1].canonical not in ("(", ","):
        return stream.group_end[name_at]
    depth = 0
    for j in range(name_at, len(code)):
        depth += (code[j].canonical == "(") - (code[j].canonical == ")")
        if depth < 0:  # the list's ")": the scope is the group or statement after it
            for k in range(j + 1, len(code)):
                if code[k].canonical == "{":
                    return stream.close_of.get(k, len(code))
                if code[k].canonical == ";":
                    return k
            break
    return len(code)


# ---------------------------------------------------------------------------- structure
def structure_violations(stream):
    """Per block: braces, parentheses and brackets it closes without opening or leaves open;
    declarations at namespace scope that are not a function's definition."""
    found, depth, first = [], {}, {}
    code = stream.code
    for i, t in enumerate(code):
        block = stream.block[i]
        if block is None:
            continue
        first.setdefault(block, t.line)
        state = depth.setdefault(block, {"{": 0, "(": 0, "[": 0, "bad": False})
        c = t.canonical
        if c in ("{", "(", "["):
            state[c] += 1
        elif c in ("}", ")", "]"):
            key = {"}": "{", ")": "(", "]": "["}[c]
            state[key] -= 1
            state["bad"] |= state[key] < 0
        if c in (";", "=") and stream.namespace[i] and state["{"] == 0:
            found.append(Violation(t.line, "global", stream.text_of(t)))
    for block, state in sorted(depth.items()):
        if state["bad"] or state["{"] or state["("] or state["["]:
            found.append(Violation(first[block], "balance", "",
                                   f"TODO block {block} {WHY['balance']}"))
    return found


def marker_violations(stream, text):
    """Each TODO marker line must be one comment token and nothing else."""
    found = []
    comments = {t.line: t for t in stream.all if t.kind == lexer.COMMENT and t.line == t.end_line}
    others = {t.line for t in stream.code}
    for number, line in enumerate(text.split("\n"), start=1):
        if BEGIN.search(line) or END.search(line):
            token = comments.get(number)
            if token is None or number in others or not (BEGIN.search(token.spelling) or
                                                         END.search(token.spelling)):
                found.append(Violation(number, "marker", line))
    return found


# ---------------------------------------------------------------------------- check
def check(template, submitted, stage, answer=None):
    """The violations of a submitted todo.cu (empty: it may be built and run). `stage` is
    the registry's Stage (or its `allows` list): its facts choose the vocabulary's sections,
    and its answer (`answer`, else the Stage's answer_source where it exists) adds names."""
    outside = outside_edit(template, submitted)
    if outside:
        return [outside]
    lone = lone_carriage_return(submitted)
    if lone:
        return [lone]
    facts = facts_of(stage)
    if answer is None and getattr(stage, "answer_source", None) and stage.answer_source.exists():
        answer = stage.answer_source.read_text(encoding="utf-8")
    allowed = Allowed(template, answer, facts)
    text = submitted.replace("\r\n", "\n")
    lines = block_lines(text)
    stream = Stream(submitted, lines)
    found = byte_violations(text, lines)
    found += marker_violations(stream, text)
    found += token_violations(stream, allowed)
    found += structure_violations(stream)
    return sorted(found, key=lambda v: v.line)


# ---------------------------------------------------------------------------- flags
def block_code(text):
    """The TODO blocks' tokens, comments removed: what two students share when they hand in
    the same solution (spacing and comments do not hide it)."""
    lines = block_lines(text.replace("\r\n", "\n"))
    parts = [f"{lines[t.line]}:{t.canonical}" for t in lexer.tokens(text)
             if t.kind != lexer.COMMENT and t.line in lines]
    return "\n".join(parts)


def fingerprint(text):
    code = block_code(text)
    return hashlib.sha256(code.encode()).hexdigest() if code else None


def flags(fingerprints, answer):
    """{student: [flags]} from {student: fingerprint of a stage's TODO blocks}: the students
    whose blocks equal another student's, or the answer's (`answer`: its fingerprint). For
    the instructor to look at, never a penalty."""
    owners = {}
    for student, code in fingerprints.items():
        if code:
            owners.setdefault(code, []).append(student)
    found = {}
    for code, students in owners.items():
        for student in students:
            others = [s for s in students if s != student]
            if others:
                found.setdefault(student, []).append("same TODO blocks as " + ", ".join(others))
            if code == answer:
                found.setdefault(student, []).append("TODO blocks identical to the answer")
    return found
