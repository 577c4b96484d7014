#!/usr/bin/env python3
"""The GitHub workflows parse, and every command their steps run exists in the repository
and is executable, so a CI maintainer's runner does not fail on a renamed script."""
import pathlib
import shlex
import sys
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # the package, also when run by hand
from course.export import withheld  # noqa: E402

try:
    import yaml
except ImportError:  # .ci/run installs python3-yaml; without it this test is skipped
    print("PyYAML is not installed: skipping the workflow checks")
    sys.exit(77)


def workflows():
    return sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def run_steps(document):
    for name, job in document["jobs"].items():
        for step in job.get("steps", []):
            if "run" in step:
                yield name, step["run"]


class Workflows(unittest.TestCase):
    def test_there_is_a_cpu_and_a_gpu_job(self):
        jobs = {name for path in workflows() for name in yaml.safe_load(path.read_text())["jobs"]}
        self.assertIn("cpu", jobs)
        self.assertIn("gpu", jobs)

    def test_every_command_exists_and_is_executable(self):
        self.assertTrue(workflows())
        for path in workflows():
            for job, command in run_steps(yaml.safe_load(path.read_text())):
                for line in filter(None, (l.strip() for l in command.splitlines())):
                    words = shlex.split(line)
                    script = words[1] if words[0] == "bash" else words[0]
                    target = ROOT / script
                    if withheld(script) and not (ROOT / "answers").is_dir():
                        continue  # an instructor's script: the student edition leaves it out
                    self.assertTrue(target.is_file(), f"{path.name} {job}: {script} is missing")
                    if words[0] != "bash":
                        self.assertTrue(target.stat().st_mode & 0o111, f"{script} is not executable")

    def test_the_cpu_job_runs_what_ci_runs(self):
        document = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text())
        commands = [c for job, c in run_steps(document) if job == "cpu"]
        self.assertEqual(commands, ["bash .ci/run"])


if __name__ == "__main__":
    unittest.main()
