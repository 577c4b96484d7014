"""The course's scripts as one package. Every scripts/*.sh is a thin entry point that runs
`python3 -m course.<module>` with scripts/ on PYTHONPATH; the modules share one build
(build.py), one stage registry (registry.py: build/stages.json), one reading of what an
executable is (describe.py)
and one reading of its report (report.py)."""
