#!/usr/bin/env python3
# check_manifest.py DAEMONSET_YAML DOCKERFILE BINARY... - what a DaemonSet for xperf must
# say, checked without kubectl: the privileges the node agent needs (privileged, or the
# exact capabilities with an unconfined seccomp profile), hostPID, the BTF and trace
# mounts, GPU node selection, resources on every container (the agent's memory limit
# covering its BPF ring buffer), its discovery rules, its /metrics port matching the prometheus.io
# annotations and probes, and a Dockerfile on Debian bookworm whose packages provide every shared
# library the binaries link (their ELF NEEDED entries, mapped to Debian packages with
# dpkg on this bookworm machine). Prints one line per problem; exits 1 on any.
import os
import re
import subprocess
import sys

import yaml

RING_MIB = 16  # xperf-bpf's default ring buffer
BASE_PACKAGES = {"libc6", "libstdc++6", "libgcc-s1"}  # in debian:bookworm-slim


def mib(q):
    m = re.fullmatch(r"(\d+)(Mi|Gi)", q)
    return int(m.group(1)) * (1024 if m.group(2) == "Gi" else 1) if m else -1


def env_of(c):
    return {e["name"]: e for e in c.get("env", [])}


def check_agent(c, spec, errs):
    sc = c.get("securityContext", {})
    caps = set(sc.get("capabilities", {}).get("add", []))
    if sc.get("privileged"):
        errs.append("node-agent: privileged (it needs BPF, PERFMON, SYS_PTRACE only)")
    for need in ("BPF", "PERFMON", "SYS_PTRACE"):
        if need not in caps:
            errs.append("node-agent: capability %s missing" % need)
    if "SYS_ADMIN" in caps:
        errs.append("node-agent: SYS_ADMIN by default (only the documented variant adds it)")
    if sc.get("capabilities", {}).get("drop") != ["ALL"]:
        errs.append("node-agent: other capabilities are not dropped")
    if sc.get("seccompProfile", {}).get("type") != "Unconfined":
        errs.append("node-agent: a default seccomp profile refuses bpf(2)")
    env = env_of(c)
    args = c.get("args", [])
    if not {"--exe", "--cmdline", "--host", "--path", "--rules"} & set(args):
        errs.append("node-agent: no discovery rule in args (--exe, --cmdline, --host, --path, "
                    "--rules)")
    if env.get("NODE_NAME", {}).get("valueFrom", {}).get("fieldRef", {}).get(
            "fieldPath") != "spec.nodeName":
        errs.append("node-agent: NODE_NAME must come from spec.nodeName")
    if "command" in c:
        errs.append("node-agent: the image's entrypoint (xperf-bpf daemon) is overridden")
    mounts = {m["mountPath"]: m for m in c.get("volumeMounts", [])}
    if not mounts.get("/sys/kernel/btf", {}).get("readOnly"):
        errs.append("node-agent: /sys/kernel/btf not mounted read-only")
    trace_dir = "/var/lib/xperf"  # the entrypoint's -o
    if trace_dir not in mounts or mounts[trace_dir].get("readOnly"):
        errs.append("node-agent: trace dir %s not mounted writable" % trace_dir)
    limit = mib(c.get("resources", {}).get("limits", {}).get("memory", ""))
    if limit < RING_MIB + 64:
        errs.append("node-agent: memory limit %d MiB < %d MiB of ring buffer + 64" %
                    (limit, RING_MIB))
    return trace_dir


def check_metrics(c, annotations, errs):
    """The daemon serves /metrics itself: its listen port, the container port and the
    scrape annotations agree."""
    args = c.get("args", [])
    ports = {p.get("name"): str(p.get("containerPort")) for p in c.get("ports", [])}
    port = ports.get("metrics")
    if not port:
        return errs.append("node-agent: no containerPort named metrics")
    if "--metrics-listen" not in args or \
            not args[args.index("--metrics-listen") + 1].endswith(":" + port):
        errs.append("node-agent: --metrics-listen does not use containerPort %s" % port)
    want = {"prometheus.io/scrape": "true", "prometheus.io/port": port,
            "prometheus.io/path": "/metrics"}
    for k, v in want.items():
        if annotations.get(k) != v:
            errs.append("annotation %s = %r, want %r" % (k, annotations.get(k), v))
    for probe in ("readinessProbe", "livenessProbe"):
        get = c.get(probe, {}).get("httpGet", {})
        if get.get("path") != "/metrics" or get.get("port") not in ("metrics", int(port)):
            errs.append("node-agent: %s is not an HTTP GET of /metrics on the metrics port"
                        % probe)


def check_daemonset(ds, errs):
    tpl = ds["spec"]["template"]
    spec = tpl["spec"]
    if ds["spec"]["selector"]["matchLabels"].items() - tpl["metadata"]["labels"].items():
        errs.append("selector does not match the pod labels")
    if spec.get("hostPID") is not True:
        errs.append("hostPID must be true (agent processes live in other pods)")
    if not spec.get("nodeSelector") and not spec.get("affinity"):
        errs.append("no GPU node selection")
    if not any(t.get("key") == "nvidia.com/gpu" for t in spec.get("tolerations", [])):
        errs.append("no toleration for the nvidia.com/gpu taint")
    vols = {v["name"]: v for v in spec["volumes"]}
    if vols.get("btf", {}).get("hostPath", {}).get("path") != "/sys/kernel/btf":
        errs.append("no hostPath volume for /sys/kernel/btf")
    cs = {c["name"]: c for c in spec["containers"]}
    if set(cs) != {"node-agent"}:
        return errs.append("containers %s, want node-agent alone (it serves /metrics)"
                           % sorted(cs))
    trace_dir = check_agent(cs["node-agent"], spec, errs)
    check_metrics(cs["node-agent"], tpl["metadata"].get("annotations", {}), errs)
    for c in cs.values():
        res = c.get("resources", {})
        if not all(k in res.get(w, {}) for w in ("requests", "limits") for k in ("cpu", "memory")):
            errs.append("%s: cpu/memory requests and limits not all set" % c["name"])
        sc = c.get("securityContext", {})
        if sc.get("readOnlyRootFilesystem") and "/tmp" not in {
                m["mountPath"] for m in c.get("volumeMounts", [])}:
            errs.append("%s: read-only root without a writable /tmp (tmpfile())" % c["name"])
        if c["image"] != cs["node-agent"]["image"]:
            errs.append("%s: not the same image as node-agent" % c["name"])
        vol = [m for m in c.get("volumeMounts", []) if m["mountPath"] == trace_dir]
        if vol and vols[vol[0]["name"]].get("hostPath", {}).get("path") != trace_dir:
            errs.append("%s: trace dir is not the node's hostPath %s" % (c["name"], trace_dir))


def package_of(lib, cache={}):
    """The Debian package shipping a shared library, via ldconfig's path and dpkg -S."""
    if "ldconfig" not in cache:
        cache["ldconfig"] = subprocess.run(["ldconfig", "-p"], capture_output=True,
                                           text=True).stdout
    if lib in cache:
        return cache[lib]
    for line in cache["ldconfig"].splitlines():
        if line.strip().startswith(lib + " ") and "x86-64" in line:
            path = os.path.realpath(line.split("=>")[1].strip())
            for p in (path, path.replace("/usr/lib/", "/lib/", 1)):
                r = subprocess.run(["dpkg", "-S", p], capture_output=True, text=True)
                if r.returncode == 0:
                    cache[lib] = r.stdout.split(":")[0]
                    return cache[lib]
    return None


def check_dockerfile(path, binaries, errs):
    text = open(path).read()
    if not re.search(r"^FROM debian:bookworm", text, re.M):
        errs.append("Dockerfile: not based on debian:bookworm")
    installed = set(re.findall(r"\b(lib[a-z0-9.+-]+|zlib1g)\b",
                               text[text.find("apt-get install"):]))
    for b in binaries:
        elf = subprocess.run(["readelf", "-d", b], capture_output=True, text=True).stdout
        for lib in re.findall(r"NEEDED.*\[(.+)\]", elf):
            pkg = package_of(lib)
            if pkg is None:
                errs.append("Dockerfile: no package found for %s (%s)" % (lib, b))
            elif pkg not in installed and pkg not in BASE_PACKAGES:
                errs.append("Dockerfile: %s needs %s (package %s), not installed" %
                            (os.path.basename(b), lib, pkg))
    if 'ENTRYPOINT ["/usr/local/bin/xperf-bpf", "daemon", "-o", "/var/lib/xperf"]' not in text:
        errs.append("Dockerfile: the node agent (xperf-bpf daemon) is not the entrypoint")


def main():
    errs = []
    docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
    ds = [d for d in docs if d.get("kind") == "DaemonSet"]
    if len(ds) != 1 or ds[0].get("apiVersion") != "apps/v1":
        errs.append("want exactly one apps/v1 DaemonSet")
    else:
        check_daemonset(ds[0], errs)
    check_dockerfile(sys.argv[2], sys.argv[3:], errs)
    for e in errs:
        print("FAIL: " + e)
    print("checked %s and %s: %d problem(s)" % (sys.argv[1], sys.argv[2], len(errs)))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
