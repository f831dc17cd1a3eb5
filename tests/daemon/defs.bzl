"""daemon_test: one daemon test script, NAME.sh, with what every one of them uses
(lib.sh, the xperf-bpf binary) and runs under (root + BPF: "local"; alone, since a
daemon watches every exec on the machine: "exclusive")."""

def daemon_test(name, data = [], size = "medium"):
    native.sh_test(
        name = name,
        size = size,
        srcs = [name + ".sh"],
        data = ["lib.sh", "//cli:xperf-bpf"] + data,
        tags = ["exclusive", "local"],
    )
