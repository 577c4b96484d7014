"""The instructors' grader (scripts/grade.sh): one module per concern. Every stage fact
(numbers, folders, targets, what a build made, what a stage's rules allow) comes from the
stage registry (course/registry.py): the course build's and the pristine edition's.

    cli         the command line, the run's order, exit codes
    submissions folders, .zip and .tar.gz; the graded files, their digest, ignored files
    integrity   the template outside the TODO blocks, the allow-list inside them
    rubric      points per check, performance bands, time limits (default_rubric.toml)
    sandbox     no network, writes only to the student's folder, limits, killed on time-out
    build       the pristine student edition, built once, copied per student
    run         the GPU suite (hidden seed included) and the sanitizers, judged here
    perf        the student's executable against the answer's, alternated
    grading     one student, start to end: the stage statuses, checks and points
    calibrate   the answers must score full marks, the corpus must lose points
    report      gradebook.csv, result.json, feedback.md, class_report.md, manifest.json
    progress    graded N/M and about how long is left, a line at a time
    synthetic   a made-up class for the speed measurement and the GPU test
"""
