"""A polluxsim_policy.Policy subclass as the command line of the policy
``external``: the file that defines the class, served by serve.py.

The rule (docs/python.md): the class is found in the file that defines
it, which the policy process imports as a module (never as __main__, so
a script's work under ``if __name__ == "__main__":`` does not run there)
and builds the class with no arguments. A class defined in a notebook
cell (no file on disk) is served from that cell's source, written to a
file named by its content: define such a class in a cell of its own,
with its imports."""

import hashlib
import inspect
import linecache
import os
import shlex
import sys
import tempfile

from . import _binary

SERVE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "serve.py")


def is_policy_class(obj):
    """Whether obj is a polluxsim_policy.Policy subclass or instance."""
    try:
        import polluxsim_policy
    except ImportError:
        return False
    cls = obj if inspect.isclass(obj) else type(obj)
    return inspect.isclass(cls) and issubclass(cls, polluxsim_policy.Policy) and cls is not polluxsim_policy.Policy


def command(policy, python=None, cells=None):
    """The command line (for --policy-opt command=...) that serves the
    policy class (or the class of an instance): python (default: this
    interpreter) runs serve.py on the class's defining file. cells is the
    folder of written notebook cells (default: polluxsim-policies in the
    system's temporary folder)."""
    cls = policy if inspect.isclass(policy) else type(policy)
    if "<" in cls.__qualname__ or "." in cls.__qualname__:
        raise _binary.PolluxsimError(
            "policy class %s is defined inside a function or class: define it at the top level of a file or cell" % cls.__qualname__)
    path = source_file(cls, cells)
    return " ".join(shlex.quote(w) for w in (python or sys.executable, SERVE, path, cls.__name__))


def source_file(cls, cells=None):
    """The file defining cls: the file of its own methods' code (of its
    module without methods of its own), or, when that is no file on disk
    (a notebook cell), the cell's source written to cells/NAME-DIGEST.py."""
    code_file = None
    for v in vars(cls).values():  # the code of its own methods
        fn = getattr(v, "__func__", v)
        if inspect.isfunction(fn):
            code_file = fn.__code__.co_filename
            break
    if code_file is None:  # no method of its own: its module's file
        try:
            code_file = inspect.getsourcefile(cls)
        except TypeError:
            code_file = None
    if code_file and os.path.isfile(code_file):
        return os.path.abspath(code_file)
    lines = linecache.getlines(code_file) if code_file else []
    if not lines:
        raise _binary.PolluxsimError(
            "policy class %s: its source is nowhere to be read (no file, no notebook cell); define it in a .py file" % cls.__name__)
    src = "".join(lines)
    digest = hashlib.sha256(src.encode()).hexdigest()[:16]
    folder = cells or os.path.join(tempfile.gettempdir(), "polluxsim-policies")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "%s-%s.py" % (cls.__name__, digest))
    if not os.path.isfile(path):
        tmp = path + ".tmp%d" % os.getpid()
        with open(tmp, "w") as f:
            f.write(src)
        os.replace(tmp, path)
    return path
