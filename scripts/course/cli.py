"""What every entry point shares: a one-line error that ends a script with an exit code,
and the wrapper that turns it into that line on stderr instead of a traceback."""
import os
import pathlib
import sys

SCRIPTS = str(pathlib.Path(__file__).resolve().parents[1])


class Stop(Exception):
    """A one-line error that ends the script with an exit code."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


def run_main(main, name):
    """sys.exit(main(argv)), with a Stop printed as its line and Ctrl-C as one line too."""
    # Scripts that run other course modules (python3 -m course.X) pass the package on.
    paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if SCRIPTS not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([SCRIPTS] + [p for p in paths if p])
    from course import ctest_gpus  # under ctest: the GPU the test was given, to every tool
    ctest_gpus.apply()
    try:
        code = main(sys.argv[1:])
    except Stop as stop:
        if str(stop):
            print(str(stop), file=sys.stderr)
        code = stop.code
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        code = 130
    except OSError as error:  # a tool that is not installed (cmake, ctest, a compiler)
        print(f"{name}: error: {error.strerror or error}: {error.filename or ''}", file=sys.stderr)
        code = 4
    sys.exit(code)

