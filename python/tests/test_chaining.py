# SPDX-License-Identifier: Apache-2.0
# DeviceImage: filters chained on the device, with no host round trip, give what the same chain gives through
# the CPU references. Inside pyopencl (skipped without it): a Context adopted from pyopencl's, and pyopencl arrays
# and buffers viewed with no copy.
import numpy as np
import pytest
from conftest import as_filter_layout, from_filter_layout, random_image, reference

import clfilters as clf


@pytest.mark.parametrize("channels", [1, 3, 4])
def test_chain_of_8bit_filters(ctx, rng, channels):
    img = random_image(rng, 37, 53, channels)
    d = clf.DeviceImage.upload(ctx, img)
    assert d.shape == img.shape and d.dtype == np.uint8 and d.context is ctx
    blurred = clf.box_blur(d, diameter=5)
    smoothed = clf.epsilon(blurred, radius=3, threshold=30)
    assert isinstance(smoothed, clf.DeviceImage) and smoothed.shape == img.shape
    want = reference.epsilon(reference.box_blur(as_filter_layout(img), diameter=5), radius=3, threshold=30)
    want = from_filter_layout(want.reshape(as_filter_layout(img).shape), img)
    np.testing.assert_array_equal(np.asarray(smoothed), want)
    np.testing.assert_array_equal(smoothed.download(), want)
    with pytest.raises(ValueError, match="copy=False"):
        np.asarray(smoothed, copy=False)


def test_out_is_written_in_full(ctx, rng):
    img = random_image(rng, 29, 31, 4)
    d = clf.DeviceImage.upload(ctx, img)
    out = clf.DeviceImage.upload(ctx, np.full(img.shape, 0xA5, np.uint8))  # poison: unwritten pixels show
    assert clf.bilateral(d, sigma_spatial=1, out=out) is out
    want = reference.bilateral(img, sigma_spatial=1, sigma_range=30)
    assert np.abs(np.asarray(out).astype(int) - want.astype(int)).max() <= 1
    with pytest.raises(ValueError, match="out must be 31x29 with 4 channel"):
        clf.box_blur(d, out=clf.DeviceImage.upload(ctx, img[:5].copy()))


def test_sobel_and_reconstruction_on_the_device(ctx, rng):
    img = random_image(rng, 21, 34, 3)
    d = clf.DeviceImage.upload(ctx, img)
    grey = clf.sobel(d)  # colour made grey on the device
    assert grey.shape == (21, 34) and grey.dtype == np.uint8
    np.testing.assert_array_equal(np.asarray(grey), reference.sobel(img).reshape(21, 34))
    gx, gy = clf.sobel(d, output="gradients")
    want = reference.sobel(img, output="gradients").reshape(21, 34, 2)
    assert gx.dtype == np.int16
    np.testing.assert_array_equal(np.asarray(gx), want[..., 0])
    np.testing.assert_array_equal(np.asarray(gy), want[..., 1])
    e = clf.edges(d)
    assert e.dtype == np.float32 and e.shape == (21, 34)
    np.testing.assert_array_equal(np.asarray(e), reference.edges(img).reshape(21, 34))
    u = clf.reconstruct(e, iterations=30)
    assert isinstance(u, clf.DeviceImage)
    assert reference.reconstruct_error(np.asarray(e), np.asarray(u), 30) <= 1e-5
    # A float32 image goes up and through edges as it is.
    f = rng.integers(0, 256, (9, 11)).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(clf.edges(clf.DeviceImage.upload(ctx, f))), reference.edges(f))


def test_device_image_errors(ctx, rng):
    img = random_image(rng, 8, 8, 4)
    d = clf.DeviceImage.upload(ctx, img)
    gx, _ = clf.sobel(d, output="gradients")
    with pytest.raises(TypeError, match="box blur needs a DeviceImage of uint8 or uint16, got int16"):
        clf.box_blur(gx)
    with pytest.raises(TypeError, match="the edge map must be|needs a DeviceImage of float32"):
        clf.reconstruct(d)
    other = clf.Context()
    with pytest.raises(ValueError, match="another Context"):
        clf.box_blur(d, ctx=other)
    with pytest.raises(ValueError, match="1, 3 or 4 channels"):
        clf.DeviceImage.upload(ctx, random_image(rng, 4, 4, 2))
    with pytest.raises(TypeError, match="float32"):
        clf.DeviceImage.upload(ctx, img.astype(np.float64))
    with pytest.raises(TypeError, match="box blur: out must be a NumPy array for a NumPy input, got a DeviceImage"):
        clf.box_blur(img, out=d, ctx=ctx)


def test_arrays_are_read_and_written_in_place(cl_setup, rng):
    cl, cl_array, cl_ctx, queue, ctx = cl_setup
    assert ctx.device.name == queue.device.name
    img = random_image(rng, 23, 41, 4)
    src = cl_array.to_device(queue, img)
    dst = cl_array.empty(queue, img.shape, np.uint8)
    dst.fill(0xA5)
    out = clf.DeviceImage.view(ctx, dst)
    assert clf.box_blur(clf.DeviceImage.view(ctx, src), diameter=7, out=out) is out
    np.testing.assert_array_equal(dst.get(), reference.box_blur(img, diameter=7))


def test_pitched_and_offset_views(cl_setup, rng):
    cl, cl_array, cl_ctx, queue, ctx = cl_setup
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
    cl, cl_array, cl_ctx, queue, ctx = cl_setup
    img = random_image(rng, 16, 24, 1)
    buf = cl.Buffer(cl_ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=img)
    d = clf.DeviceImage.view(ctx, buf, shape=(16, 24))
    np.testing.assert_array_equal(np.asarray(clf.sobel(d)), reference.sobel(img))
    with pytest.raises(ValueError, match="reaches"):
        clf.DeviceImage.view(ctx, buf, shape=(17, 24))
    with pytest.raises(ValueError, match="another OpenCL context"):
        clf.DeviceImage.view(clf.Context(), buf, shape=(16, 24))
