"""xp_fuzz_test: a libFuzzer target run for a bounded time as a test.

The target defines LLVMFuzzerTestOneInput. It and everything it depends on
are built with coverage instrumentation and ASan + UBSan: a transition adds
the flags to the whole dependency tree, so a parser listed in `deps` is
fuzzed with feedback exactly like one listed in `srcs` (a cc_binary's own
copts would stop at its sources, and the fuzzer would see only the harness).

The test fails on any crash, sanitizer report, leak or slow input (over
10 s), and when the coverage the seeds alone reach falls under `min_cov`
(a harness that no longer reaches its parser). `corpus` is a directory of
seed inputs, `dict` a libFuzzer dictionary of the protocol's tokens.
"""

_SAN = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined"]
_INSTRUMENT = ["-fsanitize=fuzzer-no-link", "-fno-omit-frame-pointer"] + _SAN

def _instrumented_impl(settings, attr):
    copt = settings["//command_line_option:copt"]
    if "-fsanitize=fuzzer-no-link" in copt:
        return {"//command_line_option:copt": copt}
    return {"//command_line_option:copt": copt + _INSTRUMENT}

_instrumented = transition(
    implementation = _instrumented_impl,
    inputs = ["//command_line_option:copt"],
    outputs = ["//command_line_option:copt"],
)

def _fuzz_binary_impl(ctx):
    binary = ctx.attr.binary[0][DefaultInfo].files_to_run.executable
    out = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.symlink(output = out, target_file = binary, is_executable = True)
    return [DefaultInfo(executable = out, files = depset([out]))]

# The cc_binary of a harness, rebuilt with its deps in the instrumented
# configuration.
_fuzz_binary = rule(
    implementation = _fuzz_binary_impl,
    attrs = {
        "binary": attr.label(cfg = _instrumented, mandatory = True),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
    executable = True,
)

def xp_fuzz_test(name, srcs, deps = [], corpus = None, corpus_of = None, dict = None, min_cov = 0, seconds = 15, tags = []):
    """corpus: a directory of this package; corpus_of: seeds another package keeps, as
    (label of its filegroup, their directory from the repository root)."""
    native.cc_binary(
        name = name + "_harness",
        srcs = srcs,
        deps = deps,
        linkopts = ["-fsanitize=fuzzer"] + _SAN,
        testonly = True,
        tags = ["manual"],
    )
    _fuzz_binary(name = name + "_bin", binary = ":" + name + "_harness", testonly = True)
    data = [":" + name + "_bin"]
    args = ["$(location :%s_bin)" % name, str(seconds), str(min_cov)]
    if dict:
        data.append(dict)
        args.append("-dict=$(location %s)" % dict)
    if corpus:
        native.filegroup(name = name + "_seeds", srcs = native.glob([corpus + "/**"]), testonly = True)
        data.append(":" + name + "_seeds")
        args.append("%s/%s" % (native.package_name(), corpus))
    if corpus_of:
        data.append(corpus_of[0])
        args.append(corpus_of[1])
    native.sh_test(
        name = name,
        srcs = ["//bazel:run_fuzz.sh"],
        args = args,
        data = data,
        tags = tags + ["fuzz", "noasan"],
        size = "medium",
    )
