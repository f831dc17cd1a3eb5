"""bpf_skeleton: foo.bpf.c -> foo.bpf.o (clang -target bpf) -> foo.skel.h (bpftool gen skeleton).

The result is a cc_library exposing the skeleton header, in the libbpf-tools
shape: bpf/foo.bpf.c gives bpf/foo.skel.h with struct foo_bpf, foo_bpf__open().
"""

def bpf_skeleton(name, src, hdrs = [], visibility = None):
    obj = name + ".bpf.o"
    skel = name + ".skel.h"
    native.genrule(
        name = name + "_obj",
        srcs = [src, "//bazel:vmlinux_h"] + hdrs,
        outs = [obj],
        cmd = " ".join([
            "clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror",
            "-I$$(dirname $(location //bazel:vmlinux_h))",
            "-I$$(dirname $(location %s))" % src,
            "-c $(location %s) -o $@.tmp &&" % src,
            "bpftool gen object $@ $@.tmp && rm -f $@.tmp",
        ]),
        tags = ["no-sandbox"],
    )
    native.genrule(
        name = name + "_skel",
        srcs = [obj],
        outs = [skel],
        cmd = "bpftool gen skeleton $(location %s) > $@" % obj,
    )
    native.cc_library(
        name = name,
        hdrs = [skel] + hdrs,
        deps = ["//third_party/system:libbpf"],
        visibility = visibility,
    )
