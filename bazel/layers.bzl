"""The package order of docs/architecture.md, as Bazel visibility.

LAYERS lists the packages lowest first (docs/architecture.md's ```layers
block says the same; //bazel:layering_test checks both agree). A package of
layer N sets package(default_visibility = visible_above(N)): only its own
layer and the ones above may depend on it.
"""

LAYERS = [
    ["third_party", "bazel", "lib", "theory"],
    ["schema"],
    ["core"],
    ["proto", "bpf", "sdk"],
    ["gpu", "userspace/locate"],
    ["userspace"],
    ["assemble"],
    ["analyze"],
    ["export", "fleet", "rubric", "top"],
    ["examples", "bench", "demo", "tests", "bindings", "deploy"],
    ["cli"],
]

def layer_groups():
    """One package_group per layer N: the packages of layers N and above."""
    for n in range(len(LAYERS)):
        pkgs = []
        for layer in LAYERS[n:]:
            pkgs += ["//%s/..." % p for p in layer]
        native.package_group(name = "layer%d_up" % n, packages = pkgs)

def visible_above(n):
    return ["//bazel:layer%d_up" % n]
