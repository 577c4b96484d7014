"""The one reading of what a stage executable prints: its report (for a person) and its
--csv line (for a script), read by column name. The columns are common/harness/report.h's
kCsvHeader, which the executables' --help prints; a host test keeps the two the same."""
import csv
import io
import re

CSV_COLUMNS = ("name", "n", "block", "gpu_ms", "gbps", "relative_error", "match")

# "  GPU time : 0.1590 ms", "  Bandwidth: 422.1 GB/s" (a row stage's line goes on),
# "CPU sum : ..." / "GPU max : ...": the report's lines (common/harness/report.cpp).
REPORT_LINES = {
    "gpu_ms": re.compile(r"^  GPU time : (\S+) ms$", re.M),
    "gbps": re.compile(r"^  Bandwidth: ([0-9.]+) GB/s", re.M),
    "gpu_value": re.compile(r"^GPU \w+ : (\S+)", re.M),
    "cpu_value": re.compile(r"^CPU \w+ : (\S+)", re.M),
}


def parse_report(text):
    """{'gpu_ms', 'gbps', 'gpu_value', 'cpu_value'} as printed (text), None where absent."""
    found = {}
    for key, pattern in REPORT_LINES.items():
        match = pattern.search(text)
        found[key] = match.group(1) if match else None
    return found


def csv_line(stdout, columns=CSV_COLUMNS):
    """The --csv line of a stage executable's stdout as a dict of text, by column name;
    None when there is none."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    if not lines:
        return None
    row = next(csv.DictReader(io.StringIO(lines[-1]), fieldnames=columns), None)
    if row is None or None in row or any(row[c] is None for c in columns):
        return None  # a line with more or fewer cells than columns is not the --csv line
    return row


def typed_csv_row(row):
    """A stage's --csv line with its numbers as numbers and match as a bool."""
    return {"name": row["name"], "n": int(row["n"]), "block": int(row["block"]),
            "gpu_ms": float(row["gpu_ms"]), "gbps": float(row["gbps"]),
            "relative_error": row["relative_error"], "match": row["match"] == "1"}


def csv_table(stdout, first_column):
    """Rows of a --csv output that prints its own header (bench_allreduce): every line from
    the header on, read by column name, numbers as numbers."""
    lines = stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(first_column + ",")), None)
    if start is None:
        return []
    rows = csv.DictReader(io.StringIO("\n".join(lines[start:])))
    return [{key: number(value) for key, value in row.items()} for row in rows if row[first_column]]


def number(text):
    try:
        return int(text)
    except ValueError:
        return float(text)
