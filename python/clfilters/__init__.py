# SPDX-License-Identifier: Apache-2.0
"""Classic image filters on any OpenCL device, from NumPy.

    import clfilters as clf
    ctx = clf.Context("pocl")                      # or clf.Context() for the default device
    out = clf.box_blur(img, diameter=9, ctx=ctx)   # img: uint8 or uint16, H x W or H x W x C

Every filter takes a NumPy array and returns a new one of its shape (box_blur, epsilon and bilateral write into
out= instead where given, as NumPy's out= does), or takes a DeviceImage and returns one, so that a chain of filters
stays on the device. The GIL is released while OpenCL works.
"""
from ._clfilters import (
    ClError,
    Context,
    DeviceImage,
    DeviceInfo,
    NoOpenClError,
    __version__,
    bilateral,
    box_blur,
    contexts,
    default_context,
    devices,
    edges,
    epsilon,
    reconstruct,
    sobel,
    tune,
)

__all__ = [
    "ClError",
    "Context",
    "DeviceImage",
    "DeviceInfo",
    "NoOpenClError",
    "__version__",
    "bilateral",
    "box_blur",
    "contexts",
    "default_context",
    "devices",
    "edges",
    "epsilon",
    "reconstruct",
    "sobel",
    "tune",
]
