"""Finding the polluxsim binary and running it, its output streamed."""

import os
import shutil
import subprocess
import sys
import threading

ENV_BINARY = "POLLUXSIM"
"""The environment variable naming the binary."""

ENV_CHILD = "POLLUXSIM_POLICY_CHILD"
"""Set in a policy process the package started (serve.py), so that a
script that runs the simulator at its top level, outside
``if __name__ == "__main__":``, fails instead of starting itself again."""


class PolluxsimError(RuntimeError):
    """The binary failed (its message is the binary's last line of error),
    or cannot be found or used."""


def find_binary(binary=None):
    """The polluxsim binary: ``binary`` if given, else $POLLUXSIM, else
    ``bin/polluxsim`` beside the package (inside it, or the repository's
    ``bin/`` that ``make build`` writes when the package is imported from
    the repository's ``python/`` folder), else ``polluxsim`` on PATH."""
    if binary:
        return _checked(binary, "the binary argument")
    if os.environ.get(ENV_BINARY):
        return _checked(os.environ[ENV_BINARY], "$" + ENV_BINARY)
    here = os.path.dirname(os.path.abspath(__file__))
    for cand in (os.path.join(here, "bin", "polluxsim"), os.path.join(here, "..", "..", "bin", "polluxsim")):
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return os.path.normpath(cand)
    found = shutil.which("polluxsim")
    if found:
        return found
    raise PolluxsimError(
        "no polluxsim binary: pass binary=..., set $POLLUXSIM, run `make build` in the repository "
        "(bin/polluxsim), or put polluxsim on PATH (go install ./cmd/polluxsim)")


def _checked(path, what):
    found = shutil.which(path) if os.sep not in path else path
    if not found or not os.path.isfile(found) or not os.access(found, os.X_OK):
        raise PolluxsimError("%s: %s is not an executable file" % (what, path))
    return found


def call(binary, args, env=None):
    """Runs the binary with args, copying its standard output and error to
    sys.stderr line by line as they come (progress, the summary, warnings;
    sys.stderr is a notebook's output cell in Jupyter), and raises
    PolluxsimError, quoting its error line (its last "polluxsim: ..."
    line, else its last line of error), when it fails."""
    if os.environ.get(ENV_CHILD):
        raise PolluxsimError(
            "polluxsim was called from inside a policy process it started: keep the top-level work of "
            "the script that defines the policy under `if __name__ == \"__main__\":` (docs/python.md)")
    try:
        proc = subprocess.Popen([binary] + list(args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env)
    except OSError as e:
        raise PolluxsimError("%s: %s" % (binary, e)) from e
    last = []

    def copy(stream, keep):
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace")
            # The binary's error is its line "polluxsim: ..."; otherwise
            # the last line said.
            if keep and line.strip() and (not last or not last[0].startswith("polluxsim:") or line.startswith("polluxsim:")):
                last[:] = [line.strip()]
            sys.stderr.write(line)
            sys.stderr.flush()
        stream.close()

    threads = [threading.Thread(target=copy, args=(proc.stdout, False), daemon=True),
               threading.Thread(target=copy, args=(proc.stderr, True), daemon=True)]
    for t in threads:
        t.start()
    try:
        code = proc.wait()
    except BaseException:  # KeyboardInterrupt: the binary ends its run cleanly on SIGINT
        proc.terminate()
        proc.wait()
        raise
    finally:
        for t in threads:
            t.join()
    if code != 0:
        msg = last[0] if last else "no message"
        raise PolluxsimError("polluxsim %s: exit status %d: %s" % (" ".join(args[:1]), code, msg))


def output(binary, args):
    """The binary's standard output for args (a listing); PolluxsimError
    quoting its error when it fails."""
    proc = subprocess.run([binary] + list(args), stdin=subprocess.DEVNULL, capture_output=True)
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise PolluxsimError("polluxsim %s: %s" % (" ".join(args[:1]), err[-1] if err else "exit status %d" % proc.returncode))
    return proc.stdout.decode("utf-8")
