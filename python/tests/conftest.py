# SPDX-License-Identifier: Apache-2.0
# One Context for the whole run (programs are built once per context), fresh random inputs for every test.
import os
import secrets

import numpy as np
import pytest

import clfilters as clf
from clfilters._clfilters import _reference as reference  # noqa: F401  (the tests import it from here)


@pytest.fixture(scope="session")
def ctx():
    return clf.Context(os.environ.get("CLFILTERS_DEVICE", ""))


@pytest.fixture(scope="session")
def halves(ctx):
    """The test device as two sub-devices (skipped where it cannot be split)."""
    try:
        return clf.contexts(f"{ctx.device.index}/2")
    except ValueError as e:
        pytest.skip(f"the device cannot be split in two: {e}")


@pytest.fixture(scope="session")
def cl_setup():
    """pyopencl's context and queue with a Context adopted from them (skipped without pyopencl or a device)."""
    cl = pytest.importorskip("pyopencl")
    cl_array = pytest.importorskip("pyopencl.array")
    try:
        cl_ctx = cl.create_some_context(interactive=False)
    except cl.Error as e:
        pytest.skip(f"pyopencl finds no device: {e}")
    queue = cl.CommandQueue(cl_ctx)
    return cl, cl_array, cl_ctx, queue, clf.Context.from_pyopencl(cl_ctx, queue)


@pytest.fixture
def rng():
    seed = secrets.randbits(64)
    print(f"random seed {seed}")  # shown when the test fails
    return np.random.default_rng(seed)


def random_image(rng, height, width, channels, dtype=np.uint8):
    shape = (height, width) if channels == 1 else (height, width, channels)
    return rng.integers(0, 256, size=shape, dtype=dtype)


def as_filter_layout(img):
    """The library's RGB -> RGBA (alpha 255), what the references take: 1 and 4 channels as they are."""
    if img.ndim == 3 and img.shape[2] == 3:
        return np.ascontiguousarray(np.dstack([img, np.full(img.shape[:2], 255, np.uint8)]))
    return img


def from_filter_layout(out, like):
    return np.ascontiguousarray(out[..., :3]) if like.ndim == 3 and like.shape[2] == 3 else out
