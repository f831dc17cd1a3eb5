"""xp_fuzz_test: a libFuzzer target run for a bounded time as a test.

The target defines LLVMFuzzerTestOneInput and is always built with
ASan + UBSan. The test fails on any crash, sanitizer report, leak or
slow input (over 10 s). `corpus` is a directory of seed inputs.

Instrumentation applies to `srcs` only, not to `deps`: list the parser's own
.c files in `srcs` (and only its plain dependencies in `deps`) so that the
fuzzer gets coverage feedback and sanitizer checks from the code under test.
"""

def xp_fuzz_test(name, srcs, deps = [], corpus = None, seconds = 15, tags = []):
    san = ["-fsanitize=fuzzer,address,undefined", "-fno-sanitize-recover=undefined"]
    native.cc_binary(
        name = name + "_bin",
        srcs = srcs,
        deps = deps,
        copts = san,
        linkopts = san,
        testonly = True,
    )
    data = [":" + name + "_bin"]
    args = ["$(location :%s_bin)" % name, str(seconds)]
    if corpus:
        native.filegroup(name = name + "_seeds", srcs = native.glob([corpus + "/**"]), testonly = True)
        data.append(":" + name + "_seeds")
        args.append("%s/%s" % (native.package_name(), corpus))
    native.sh_test(
        name = name,
        srcs = ["//bazel:run_fuzz.sh"],
        args = args,
        data = data,
        tags = tags + ["fuzz", "noasan"],
        size = "medium",
    )
