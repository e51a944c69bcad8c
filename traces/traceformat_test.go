package traces

// builtinFormats is a registry of the built-in trace formats, for tests.
var builtinFormats = MustTraceFormats(BuiltinTraceFormats()...)
