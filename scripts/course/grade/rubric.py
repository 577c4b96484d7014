"""The rubric: points per check, the performance bands, the time limits. A TOML (or JSON)
file holds only what it changes; default_rubric.toml holds the rest."""
import copy
import hashlib
import json
import pathlib
import tomllib

DEFAULT = pathlib.Path(__file__).with_name("default_rubric.toml")
CHECKS = ("tests", "memcheck", "racecheck", "synccheck", "initcheck", "hidden", "performance")
LIMITS = ("build", "suite", "sanitizer", "performance", "build_memory_gib")


class RubricError(Exception):
    """A rubric that cannot be used: one line saying why."""


def load(path=None):
    """The rubric: the default, with `path`'s values over it."""
    rubric = read(DEFAULT)
    if path is not None:
        merge(rubric, read(pathlib.Path(path)))
    validate(rubric)
    return rubric


def read(path):
    try:
        text = path.read_text(encoding="utf-8")
        return json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except OSError as error:
        raise RubricError(f"cannot read the rubric {path}: {error.strerror or error}") from None
    except (ValueError, tomllib.TOMLDecodeError) as error:
        raise RubricError(f"the rubric {path} is not valid {path.suffix[1:] or 'TOML'}: "
                          f"{error}") from None


def merge(base, changes):
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            merge(base[key], value)
        else:
            base[key] = copy.deepcopy(value)


def number(value, where, positive=False):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or (
            positive and value == 0):
        raise RubricError(f"rubric: {where} must be a {'positive' if positive else 'non-negative'}"
                          f" number, not {value!r}")
    return value


def validate(rubric):
    unknown = set(rubric) - {"points", "performance", "limits", "stages"}
    if unknown:
        raise RubricError(f"rubric: unknown section(s): {', '.join(sorted(unknown))}")
    check_points(rubric.get("points", {}), "points")
    for check in CHECKS:
        if check not in rubric["points"]:
            raise RubricError(f"rubric: points.{check} is missing")
    performance = rubric.get("performance", {})
    number(performance.get("rounds"), "performance.rounds", positive=True)
    number(performance.get("repeat"), "performance.repeat", positive=True)
    bands = performance.get("bands")
    if not isinstance(bands, list) or not bands:
        raise RubricError("rubric: performance.bands must be a list of {at_most, share}")
    for index, band in enumerate(bands):
        if not isinstance(band, dict) or set(band) != {"at_most", "share"}:
            raise RubricError(f"rubric: performance.bands[{index}] must have at_most and share")
        number(band["at_most"], f"performance.bands[{index}].at_most", positive=True)
        if number(band["share"], f"performance.bands[{index}].share") > 1:
            raise RubricError(f"rubric: performance.bands[{index}].share is at most 1")
    for limit in LIMITS:
        number(rubric.get("limits", {}).get(limit), f"limits.{limit}", positive=True)
    for stage, changes in rubric.get("stages", {}).items():
        if not stage.isdigit() or not isinstance(changes, dict) or set(changes) - {"points"}:
            raise RubricError(f"rubric: [stages.{stage}] may only change points")
        check_points(changes.get("points", {}), f"stages.{stage}.points")


def check_points(points, where):
    if not isinstance(points, dict):
        raise RubricError(f"rubric: {where} must be a table")
    for key, value in points.items():
        if key not in CHECKS:
            raise RubricError(f"rubric: {where}.{key} is not a check ({', '.join(CHECKS)})")
        number(value, f"{where}.{key}")


def points(rubric, stage):
    """{check: points} for stage `stage` (a number)."""
    found = dict(rubric["points"])
    found.update(rubric.get("stages", {}).get(str(stage), {}).get("points", {}))
    return found


def maximum(rubric, stage):
    return sum(points(rubric, stage).values())


def performance_share(rubric, ratio):
    """The share of the performance points a time ratio earns (0 to 1)."""
    if ratio is None:
        return 0.0
    for band in sorted(rubric["performance"]["bands"], key=lambda b: b["at_most"]):
        if ratio <= band["at_most"]:
            return band["share"]
    return 0.0


def digest(rubric):
    return hashlib.sha256(json.dumps(rubric, sort_keys=True).encode()).hexdigest()
