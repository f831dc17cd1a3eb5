"""bpf_test: a shell test on the running kernel. It loads BPF programs, so it runs as
root ("local") and alone ("exclusive": its machine-wide tracepoints and uprobes would
perturb other tests, and theirs it). The script is NAME.sh unless `script` names
another (without .sh).

both_hooks: the test twice, NAME with the socket tier on the hooks chosen for this
kernel and NAME_syscalls forced onto the raw syscall fallback
(userspace/sock_hooks.h), through XPERF_SOCKET_HOOKS: the same ground truth in both."""

_HOOKS = [("", "auto"), ("_syscalls", "syscalls")]

def bpf_test(name, data, size = "medium", script = None, args = None, both_hooks = False):
    for suffix, hooks in (_HOOKS if both_hooks else [("", None)]):
        native.sh_test(
            name = name + suffix,
            size = size,
            srcs = [(script or name) + ".sh"],
            args = args,
            data = data,
            env = {"XPERF_SOCKET_HOOKS": hooks} if hooks else None,
            tags = ["exclusive", "local"],
        )
