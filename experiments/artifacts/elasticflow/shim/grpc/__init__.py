"""Stand-in for grpc (not packaged by Debian).

ElasticFlow's scheduler.py imports its RPC client and server at module
level; in simulation (--simulation=True) it never calls them. Any use of
this stand-in is an error, said at once.
"""


class _Unavailable:
    def __init__(self, name):
        self._name = name

    def __call__(self, *args, **kwargs):
        raise RuntimeError("grpc stand-in: grpc.%s called; the artifact's "
                           "testbed mode is not supported here" % self._name)

    def __getattr__(self, attr):
        return _Unavailable(self._name + "." + attr)


def __getattr__(name):
    return _Unavailable(name)
