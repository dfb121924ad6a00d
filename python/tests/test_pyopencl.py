# SPDX-License-Identifier: Apache-2.0
# Inside pyopencl: a Context adopted from pyopencl's, and pyopencl arrays and buffers viewed with no copy.
import numpy as np
import pytest
from conftest import random_image, reference

import clfilters as clf

cl = pytest.importorskip("pyopencl")
cl_array = pytest.importorskip("pyopencl.array")


@pytest.fixture(scope="module")
def cl_setup():
    try:
        cl_ctx = cl.create_some_context(interactive=False)
    except cl.Error as e:
        pytest.skip(f"pyopencl finds no device: {e}")
    queue = cl.CommandQueue(cl_ctx)
    return cl_ctx, queue, clf.Context.from_pyopencl(cl_ctx, queue)


def test_arrays_are_read_and_written_in_place(cl_setup, rng):
    cl_ctx, queue, ctx = cl_setup
    assert ctx.device.name == queue.device.name
    img = random_image(rng, 23, 41, 4)
    src = cl_array.to_device(queue, img)
    dst = cl_array.empty(queue, img.shape, np.uint8)
    dst.fill(0xA5)
    out = clf.DeviceImage.view(ctx, dst)
    assert clf.box_blur(clf.DeviceImage.view(ctx, src), diameter=7, out=out) is out
    np.testing.assert_array_equal(dst.get(), reference.box_blur(img, diameter=7))


def test_pitched_and_offset_views(cl_setup, rng):
    cl_ctx, queue, ctx = cl_setup
    big = random_image(rng, 30, 50, 1)
    src = cl_array.to_device(queue, big)
    dst = cl_array.to_device(queue, np.full((30, 50), 0xA5, np.uint8))
    window = (slice(3, 20), slice(5, 37))  # an offset and a row pitch wider than the view
    clf.epsilon(clf.DeviceImage.view(ctx, src[window]), out=clf.DeviceImage.view(ctx, dst[window]))
    got = dst.get()
    want = np.full((30, 50), 0xA5, np.uint8)
    want[window] = reference.epsilon(np.ascontiguousarray(big[window]), radius=4, threshold=20)
    np.testing.assert_array_equal(got, want)


def test_buffer_with_shape(cl_setup, rng):
    cl_ctx, queue, ctx = cl_setup
    img = random_image(rng, 16, 24, 1)
    buf = cl.Buffer(cl_ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=img)
    d = clf.DeviceImage.view(ctx, buf, shape=(16, 24))
    np.testing.assert_array_equal(np.asarray(clf.sobel(d)), reference.sobel(img))
    with pytest.raises(ValueError, match="reaches"):
        clf.DeviceImage.view(ctx, buf, shape=(17, 24))
    with pytest.raises(ValueError, match="another OpenCL context"):
        clf.DeviceImage.view(clf.Context(), buf, shape=(16, 24))
