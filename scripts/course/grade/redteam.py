"""The red-team files, each entry the stage's answer with lines put into one TODO block.
tests/grade/redteam/integrity.toml: attempts to get past the integrity rules, and honest
solutions unlike the answers; calibration checks them before anyone is graded (problems), as
the host test does: every attempt stopped by the rule it names, every honest solution let
through. tests/grade/redteam/runtime.toml: attempts the rules let through, which only the GPU
runs can catch; calibration grades them with the corpus (runtime_problem), and so does the
GPU test of the synthetic class."""
import tomllib

from course import registry, rules
from course.grade import integrity
from course.todo_markers import BEGIN, END

FILE = registry.ROOT / "tests" / "grade" / "redteam" / "integrity.toml"
RUNTIME = FILE.parent / "runtime.toml"
PASS = "pass"


def entries(path=FILE):
    return tomllib.loads(path.read_text(encoding="utf-8"))["entry"]


def runtime_entries(numbers=None, path=RUNTIME):
    """The runtime attempts, those of the stages `numbers` only when given."""
    found = entries(path)
    return [e for e in found if numbers is None or e["stage"] in numbers]


def student(entry):
    """The id a red-team entry is graded under, in calibration and in the synthetic class."""
    return f"redteam-{entry['id']}"


def runtime_problem(entry, stage):
    """None when the graded stage (a result.json stage) came out as the runtime entry says,
    else one line saying how it did not."""
    name = f"red-team {entry['id']} ({entry['why']})"
    keys = [c["key"] for c in stage.get("checks", []) if c.get("key")]
    performance = stage.get("performance") or {}
    got = f"{stage['status']}, {stage['points']} of {stage['max']} points, keys: " \
          f"{', '.join(keys) or 'none'}; performance: {performance.get('detail') or performance.get('ratio')}"
    if stage["status"] != entry["status"]:
        return f"{name} was graded {got}, not {entry['status']}"
    if entry.get("key") and not any(rules.key_matches(k, entry["key"]) for k in keys):
        return f"{name} lost no points with a key {entry['key']} ({got})"
    if entry.get("performance") == "none" and performance.get("points"):
        return f"{name} earned performance points ({got})"
    if entry.get("points") == "full" and stage["points"] < stage["max"]:
        return f"{name}, an honest solution, did not get full marks ({got})"
    return None


def submission(entry, answer):
    """`answer` with the entry's lines first in its block, or in place of the block's code
    (`replace`, the block's comments kept)."""
    lines, out, inside = answer.split("\n"), [], False
    for line in lines:
        begin = BEGIN.search(line)
        if begin and int(begin.group(1)) == entry["block"]:
            out += [line, entry["insert"]]
            inside = True
        elif inside and END.search(line):
            out.append(line)
            inside = False
        elif not (inside and entry.get("replace")) or line.strip().startswith("//"):
            out.append(line)
    return "\n".join(out)


def verdict(entry, stage, template, answer):
    """None when the entry came out as it says, else one line saying how it did not."""
    found = integrity.check(template, submission(entry, answer), stage, answer)
    rules = sorted({v.rule for v in found})
    if entry["expect"] == PASS:
        return None if not found else (f"red-team {entry['id']} (an honest solution) was "
                                       f"refused: {found[0]}")
    if entry["expect"] in rules:
        return None
    return (f"red-team {entry['id']} ({entry['why']}) was not stopped by the rule "
            f"{entry['expect']} (rules: {', '.join(rules) or 'none'})")


def problems(stages, numbers):
    """The red-team entries of the stages `numbers` ({number: the course registry's Stage})
    that did not come out as they say."""
    found = []
    for entry in entries():
        if entry["stage"] not in numbers:
            continue
        stage = stages[entry["stage"]]
        template = stage.template_source.read_text(encoding="utf-8")
        answer = stage.answer_source.read_text(encoding="utf-8")
        problem = verdict(entry, stage, template, answer)
        if problem:
            found.append(problem)
    return found
