"""The policy process of a class passed to polluxsim.run: serves the class
CLASS of the file FILE over the policy protocol.

    python3 serve.py FILE CLASS

FILE is imported as a module (not as __main__: its ``if __name__ ==
"__main__":`` block does not run), with its folder first on sys.path as
when it runs as a script; CLASS is built with no arguments."""

import importlib.util
import os
import sys


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: serve.py FILE CLASS\n")
        return 2
    path, name = argv
    # polluxsim_policy and this package: beside this file's package when
    # imported from the repository's python/ folder, else installed.
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    os.environ["POLLUXSIM_POLICY_CHILD"] = "1"  # polluxsim._binary.ENV_CHILD
    import polluxsim_policy
    spec = importlib.util.spec_from_file_location("polluxsim_served_policy", path)
    if spec is None:
        sys.stderr.write("%s: not a Python file\n" % path)
        return 1
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    cls = getattr(module, name, None)
    if cls is None or not isinstance(cls, type) or not issubclass(cls, polluxsim_policy.Policy):
        sys.stderr.write("%s: no polluxsim_policy.Policy subclass %s at its top level\n" % (path, name))
        return 1
    polluxsim_policy.main(cls())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
