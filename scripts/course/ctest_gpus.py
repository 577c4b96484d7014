"""The GPU slots ctest handed this process (cmake/gpus.cmake, reduce_gpu_share) as
CUDA_VISIBLE_DEVICES, so that the tools a Python test starts (a student check's suite and
sanitizers, the grader's runs) use the GPU ctest gave the test. The C++ suites do the same
in tests/gpu/ctest_gpus.cpp. Without a resource spec ctest hands out nothing and this
changes nothing."""
import os
import re


def visible_devices(environ):
    """'1' or '0,1' from ctest's CTEST_RESOURCE_GROUP_<i>_GPUS variables; None without them."""
    try:
        count = int(environ.get("CTEST_RESOURCE_GROUP_COUNT", ""))
    except ValueError:
        return None
    ids = []
    for group in range(count):
        for found in re.findall(r"id:([^,;]+)", environ.get(f"CTEST_RESOURCE_GROUP_{group}_GPUS", "")):
            if found not in ids:
                ids.append(found)
    return ",".join(ids) or None


def apply(environ=os.environ):
    devices = visible_devices(environ)
    if devices is not None:
        environ["CUDA_VISIBLE_DEVICES"] = devices
