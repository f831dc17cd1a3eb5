"""cuda_configure: find the CUDA toolkit at configure time.

Creates the repository @local_cuda with
  - defs.bzl: HAVE_CUPTI (True when <cuda>/include/cupti.h exists) and CUDA_PATH;
  - BUILD: cc_library `cuda_headers` (-isystem <cuda>/include) and `cudart`
    (links libcudart.so with an rpath), both empty when CUDA is absent.
The CUDA root is $XPERF_CUDA_PATH, else /usr/local/cuda. BUILD files load
HAVE_CUPTI and declare the GPU targets only when it is True, so machines
without CUDA build everything else and say which targets were skipped.
"""

def _cuda_configure_impl(ctx):
    root = ctx.os.environ.get("XPERF_CUDA_PATH", "/usr/local/cuda")
    have = ctx.path(root + "/include/cupti.h").exists
    if have:
        ctx.symlink(root + "/include", "include")
        build = """
package(default_visibility = ["//visibility:public"])
cc_library(
    name = "cuda_headers",
    hdrs = glob(["include/**/*.h", "include/**/*.hpp"]),
    includes = ["include"],
)
cc_library(
    name = "cudart",
    linkopts = ["-L{lib}", "-lcudart", "-Wl,-rpath,{lib}"],
    deps = [":cuda_headers"],
)
""".format(lib = root + "/lib64")
    else:
        build = """
package(default_visibility = ["//visibility:public"])
cc_library(name = "cuda_headers")
cc_library(name = "cudart")
"""
    ctx.file("BUILD", build)
    ctx.file("WORKSPACE", "")
    ctx.file("defs.bzl", "HAVE_CUPTI = %s\nCUDA_PATH = %r\n" % (have, root))

cuda_configure = repository_rule(
    implementation = _cuda_configure_impl,
    environ = ["XPERF_CUDA_PATH"],
    local = True,
)
