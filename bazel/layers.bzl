"""The package order of docs/architecture.md, as Bazel visibility.

LAYERS lists the packages lowest first (docs/architecture.md's ```layers
block says the same; //bazel:layering_test checks both agree). A middle
package sets package(default_visibility = layer_visibility()): only its own
layer and the ones above may depend on it. Its layer is looked up by name, so
inserting a layer renumbers nothing.
"""

LAYERS = [
    ["third_party", "bazel", "lib", "theory"],
    ["schema"],
    ["core"],
    ["proto", "bpf", "sdk"],
    ["gpu", "userspace/locate"],
    ["userspace"],
    ["userspace/run"],
    ["userspace/daemon"],
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

def layer_of(pkg):
    """The layer of pkg: its own entry, else its nearest listed parent's."""
    for _ in range(pkg.count("/") + 1):
        for n, layer in enumerate(LAYERS):
            if pkg in layer:
                return n
        pkg = pkg.rpartition("/")[0]
    fail("%s: no layer in bazel/layers.bzl" % native.package_name())

def layer_visibility():
    """The calling package's layer and the ones above."""
    return ["//bazel:layer%d_up" % layer_of(native.package_name())]
