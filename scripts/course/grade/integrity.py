"""Integrity, decided before any GPU work: outside the TODO blocks a submitted todo.cu must
equal the stage's template (line endings and trailing spaces normalised); inside them only
what the stage's solution may use (the allow-list below). A violation names the line and
the rule, and the stage's code is not run.

The allow-list is derived from the answers: a rule forbids a construct in every stage
except those whose facts need it (the library stage, the host-code stage, the many-GPU
stage: what the stage's manifest, stages/<folder>/stage.json, `allows`, read through the
registry), and the host test checks that every answer passes its own stage's rules and that
each exception is used by an answer."""
import hashlib
import re

from course.todo_markers import BEGIN, END, lines_with_blocks

EVERYWHERE = "every stage"


class Rule:
    def __init__(self, name, pattern, allowed_in, why):
        self.name, self.pattern, self.allowed_in, self.why = name, re.compile(pattern), allowed_in, why


def word(names):
    """A pattern for any of `names` (alternatives) as a whole word."""
    return rf"\b({names})\b"


def call(names):
    """A pattern for a use of any of `names` (alternatives) as a function: called, or its
    address taken; not a variable that happens to be called `read`."""
    return rf"\b({names})\s*\(|&\s*\b({names})\b"


# Stage facts a rule may allow its construct in: the names a stage's manifest may list in
# `allows` (facts_of below).
LIBRARY, HOST_CODE, MULTI_GPU = "library", "host_code", "multi_gpu"
FACTS = (LIBRARY, HOST_CODE, MULTI_GPU)

RULES = [
    Rule("preprocessor", r"^\s*#(?!\s*pragma\s+unroll(\s+\d+)?\s*$)|\b_Pragma\b", (),
         "preprocessor lines (#include, #define, ...) are not allowed; only #pragma unroll"),
    Rule("asm", r"\b(asm|__asm__|__asm)\b", (), "inline assembly is not allowed"),
    Rule("literal", r"[\"']", (HOST_CODE,),
         "string and character literals are not allowed (only in the host-code stage)"),
    Rule("comment", r"/\*|\*/", (), "block comments are not allowed (use //)"),
    Rule("continuation", r"\\\s*$", (), "a backslash at the end of a line is not allowed"),
    Rule("declaration", r"\b(extern|namespace|__attribute__|__declspec|using\s+namespace)\b", (),
         "declarations that reach outside the block are not allowed"),
    # A name only a call has is found anywhere (word()); a name a variable may have too, such
    # as `read`, only where it is used as a function (call()).
    Rule("files", word(r"fopen|freopen|fdopen|fread|fwrite|fgets|fputs|fprintf|fscanf|fclose|"
                       r"openat|creat|pread|pwrite|unlink|mkdir|rmdir|tmpfile|mmap|ioctl|FILE|"
                       r"ifstream|ofstream|fstream|filesystem")
         + "|" + call("open|read|write|close|remove|rename"), (), "file calls are not allowed"),
    Rule("process", word(r"system|popen|fork|vfork|exec[lv]p?e?|posix_spawnp?|quick_exit|atexit|"
                         r"at_quick_exit|dlopen|dlsym|syscall|ptrace|sigaction|setjmp|longjmp|"
                         r"pthread_\w+|usleep|nanosleep|_exit|_Exit")
         + "|" + call("kill|raise|abort|exit|signal|sleep")
         + r"|\bstd\s*::\s*(j?thread|async)\b", (), "process and thread calls are not allowed"),
    Rule("environment", word(r"getenv|secure_getenv|setenv|putenv|unsetenv|clearenv|environ"), (),
         "environment calls are not allowed"),
    Rule("network", word(r"socket|sendto|recvfrom|gethostbyname|getaddrinfo|curl_\w+")
         + "|" + call("connect|bind|listen|accept|send|recv"), (), "network calls are not allowed"),
    Rule("library", r"\b(cub|thrust)\s*::|\b(cg|cooperative_groups)\s*::\s*(reduce|plus|"
         r"less|greater|bit_\w+)\b", (LIBRARY,),
         "library reductions (cub::, thrust::, cg::reduce) belong to the library stage only"),
    Rule("memory", r"\bcuda(Malloc\w*|Free\w*|Memcpy\w*|Memset\w*|Mem\w+|Stream\w*|Event\w*|"
         r"Host\w+|SetDevice|GetDevice\w*|Device(Reset|SetLimit|Synchronize|Enable\w+)|"
         r"Graph\w*|LaunchKernel\w*|Launch\w+|Ipc\w*|Import\w*|Ctx\w*)\b|\bcu[A-Z]\w*\b|"
         + call("malloc|calloc|realloc|free"), (HOST_CODE, MULTI_GPU),
         "memory, stream and device calls belong to the host-code and many-GPU stages only"),
    Rule("nccl", r"\bnccl\w+", (MULTI_GPU,), "NCCL calls belong to the many-GPU stage only"),
]


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


# ---------------------------------------------------------------------------- normalising
def normalise(text):
    """Unix line endings, no trailing spaces, no trailing blank lines."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lines = [line.rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def code_part(line):
    """The line without its // comment."""
    return line.split("//", 1)[0]


class Violation:
    def __init__(self, line, rule, why, text):
        self.line, self.rule, self.why, self.text = line, rule, why, text.strip()

    def as_dict(self):
        return {"line": self.line, "rule": self.rule, "why": self.why, "text": self.text}

    def __str__(self):
        return f"line {self.line}: {self.rule}: {self.why} ({self.text[:80]})"


def numbered(lines):
    """(line number, line, TODO block or None) for each line."""
    return [(number, line, block) for number, (line, block)
            in enumerate(lines_with_blocks("\n".join(lines)), start=1)]


def outside_edit(template, submitted):
    """The first line outside the TODO blocks where `submitted` differs from `template`."""
    theirs = [(n, line) for n, line, block in numbered(normalise(submitted)) if block is None]
    ours = [line for _, line, block in numbered(normalise(template)) if block is None]
    for index, (number, line) in enumerate(theirs):
        if index >= len(ours) or line != ours[index]:
            return Violation(number, "outside", "changed outside the TODO blocks", line)
    if len(theirs) < len(ours):
        number = theirs[-1][0] if theirs else 1
        return Violation(number, "outside", "lines outside the TODO blocks are missing",
                         ours[len(theirs)])
    return None


def rule_violations(submitted, facts):
    """Every line inside a TODO block that breaks a rule, and every block that closes a
    brace or parenthesis it did not open (code that would leave its function) or leaves
    one open."""
    found, depth = [], {}
    for number, line, block in numbered(normalise(submitted)):
        if block is None:
            continue
        code = code_part(line)
        state = depth.setdefault(block, {"{": 0, "(": 0, "escaped": False, "first": number})
        for char in code:
            if char in "{(":
                state[char] += 1
            elif char in "})":
                state["{" if char == "}" else "("] -= 1
                state["escaped"] |= min(state["{"], state["("]) < 0
        for rule in RULES:
            if rule.pattern.search(code) and not facts & set(rule.allowed_in):
                found.append(Violation(number, rule.name, rule.why, line))
    for block, state in sorted(depth.items()):
        if state["escaped"] or state["{"] or state["("]:
            found.append(Violation(state["first"], "balance", f"TODO block {block} closes a "
                                   "brace or parenthesis it did not open, or leaves one open", ""))
    return found


def check(template, submitted, stage):
    """The violations of a submitted todo.cu (empty: it may be built and run); `stage` is
    the registry's Stage (or its `allows` list), whose facts the rules allow."""
    outside = outside_edit(template, submitted)
    if outside:
        return [outside]
    return rule_violations(submitted, facts_of(stage))


# ---------------------------------------------------------------------------- flags
def block_code(text):
    """The TODO blocks' code, comments and spacing removed: what two students share when
    they hand in the same solution."""
    parts = []
    for line, block in lines_with_blocks("\n".join(normalise(text))):
        if block is not None and not BEGIN.search(line) and not END.search(line):
            code = " ".join(code_part(line).split())
            if code:
                parts.append(f"{block}:{code}")
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
