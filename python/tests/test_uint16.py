# SPDX-License-Identifier: Apache-2.0
# uint16 arrays and DeviceImages through the filters that take 16-bit samples, against the library's CPU
# references.
import numpy as np
import pytest
from conftest import reference

import clfilters as clf


def random_u16(rng, height, width, channels):
    shape = (height, width) if channels == 1 else (height, width, channels)
    img = rng.integers(0, 65536, size=shape, dtype=np.uint16)
    img[0, 0], img[-1, -1] = 0, 65535  # both ends of the range, whatever the draw
    return img


def as_rgba(img):
    """RGB as the library takes it: RGBA with alpha 65535; 1 and 4 channels as they are."""
    if img.ndim == 3 and img.shape[2] == 3:
        return np.ascontiguousarray(np.dstack([img, np.full(img.shape[:2], 65535, np.uint16)]))
    return img


def like_input(out, img):
    return np.ascontiguousarray(out[..., :3]) if img.ndim == 3 and img.shape[2] == 3 else out


@pytest.mark.parametrize("channels", [1, 3, 4])
def test_box_blur(ctx, rng, channels):
    img = random_u16(rng, 37, 53, channels)
    got = clf.box_blur(img, diameter=7, border="constant=40000", ctx=ctx)
    assert got.dtype == np.uint16 and got.shape == img.shape
    expected = like_input(reference.box_blur(as_rgba(img), 7, "constant=40000"), img)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("channels", [1, 3, 4])
def test_epsilon(ctx, rng, channels):
    img = random_u16(rng, 41, 29, channels)
    got = clf.epsilon(img, radius=3, threshold=20000, border="reflect101", ctx=ctx)
    assert got.dtype == np.uint16 and got.shape == img.shape
    expected = like_input(reference.epsilon(as_rgba(img), 3, 20000, "reflect101"), img)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("channels", [1, 4])
def test_bilateral_within_one(ctx, rng, channels):
    img = random_u16(rng, 31, 47, channels)
    got = clf.bilateral(img, sigma_spatial=2.0, sigma_range=30.0 * 256, ctx=ctx)
    assert got.dtype == np.uint16 and got.shape == img.shape
    expected = reference.bilateral(img, 2.0, 30.0 * 256)
    assert np.abs(got.astype(np.int32) - expected.astype(np.int32)).max() <= 1


def test_uint16_threshold_range_follows_the_dtype(ctx, rng):
    img8 = rng.integers(0, 256, size=(8, 8), dtype=np.uint8)
    with pytest.raises(ValueError, match="0..255"):
        clf.epsilon(img8, threshold=300, ctx=ctx)
    clf.epsilon(img8.astype(np.uint16) * 257, threshold=300, ctx=ctx)


def test_sobel_refuses_uint16(ctx, rng):
    with pytest.raises(TypeError, match="8-bit"):
        clf.sobel(random_u16(rng, 8, 8, 1), ctx=ctx)


# ---- DeviceImages of uint16 ------------------------------------------------------------------------------

# The three filters as the device calls and the references take them, in sample units of the 0..65535 scale.
DEVICE_FILTERS = {
    "box_blur": (
        lambda img, **kw: clf.box_blur(img, diameter=6, border="constant=40000", **kw),
        lambda img: reference.box_blur(img, 6, "constant=40000"),
        0,
    ),
    "epsilon": (
        lambda img, **kw: clf.epsilon(img, radius=3, threshold=12000, border="reflect101", **kw),
        lambda img: reference.epsilon(img, 3, 12000, "reflect101"),
        0,
    ),
    "bilateral": (
        lambda img, **kw: clf.bilateral(img, sigma_spatial=1.5, sigma_range=40.0 * 256, **kw),
        lambda img: reference.bilateral(img, 1.5, 40.0 * 256),
        1,  # float weights: within 1 of the reference, as for arrays
    ),
}


def assert_close(got, expected, tolerance):
    assert got.dtype == np.uint16 and got.shape == expected.shape
    if tolerance == 0:
        np.testing.assert_array_equal(got, expected)
    else:
        assert np.abs(got.astype(np.int32) - expected.astype(np.int32)).max() <= tolerance


def want(img, *steps):
    """The references applied in turn to the library's layout of `img`, back in its shape."""
    out = as_rgba(img)
    for step in steps:
        out = step(out).reshape(out.shape)
    return like_input(out, img)


@pytest.mark.parametrize("channels", [1, 3, 4])
def test_device_round_trip_is_exact(ctx, rng, channels):
    img = random_u16(rng, 19, 33, channels)
    d = clf.DeviceImage.upload(ctx, img)
    assert d.shape == img.shape and d.dtype == np.uint16 and d.channels == channels
    assert repr(d).endswith("dtype=uint16)")
    for got in (d.download(), np.asarray(d)):
        assert got.dtype == np.uint16 and got.shape == img.shape
        np.testing.assert_array_equal(got, img)
    # Any layout goes up: a strided slice is packed first.
    strided = random_u16(rng, 40, 70, channels)[::2, 1::2]
    np.testing.assert_array_equal(clf.DeviceImage.upload(ctx, strided).download(), strided)


def test_device_rgb_is_rgba_with_alpha_65535(ctx, rng):
    img = random_u16(rng, 9, 14, 3)
    d = clf.DeviceImage.upload(ctx, img)
    # A 1 x 1 box blur copies the device's RGBA, alpha included, into a 4-channel image.
    rgba = clf.DeviceImage.upload(ctx, np.zeros((9, 14, 4), np.uint16))
    clf.box_blur(d, diameter=1, out=rgba)
    np.testing.assert_array_equal(rgba.download(), as_rgba(img))


@pytest.mark.parametrize("name", sorted(DEVICE_FILTERS))
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_device_filter(ctx, rng, name, channels):
    run, ref, tolerance = DEVICE_FILTERS[name]
    img = random_u16(rng, 37, 45, channels)
    d = clf.DeviceImage.upload(ctx, img)
    out = run(d)
    assert isinstance(out, clf.DeviceImage) and out.dtype == np.uint16 and out.shape == img.shape
    assert_close(out.download(), want(img, ref), tolerance)
    np.testing.assert_array_equal(d.download(), img)  # the input is left as it was


@pytest.mark.parametrize("name", sorted(DEVICE_FILTERS))
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_device_filter_writes_all_of_out(ctx, rng, name, channels):
    run, ref, tolerance = DEVICE_FILTERS[name]
    img = random_u16(rng, 23, 31, channels)
    for poison in (0xA5A5, 0, 65535):
        out = clf.DeviceImage.upload(ctx, np.full(img.shape, poison, np.uint16))
        assert run(clf.DeviceImage.upload(ctx, img), out=out) is out
        assert_close(out.download(), want(img, ref), tolerance)


@pytest.mark.parametrize("channels", [1, 3, 4])
def test_device_chains(ctx, rng, channels):
    img = random_u16(rng, 41, 38, channels)
    d = clf.DeviceImage.upload(ctx, img)
    blur, blur_ref, _ = DEVICE_FILTERS["box_blur"]
    eps, eps_ref, _ = DEVICE_FILTERS["epsilon"]
    bil, bil_ref, _ = DEVICE_FILTERS["bilateral"]
    assert_close(eps(blur(d)).download(), want(img, blur_ref, eps_ref), 0)
    assert_close(bil(eps(d)).download(), want(img, eps_ref, bil_ref), 1)
    # Into given outputs, one after another on the queue: the second reads what the first wrote.
    a = clf.DeviceImage.upload(ctx, np.full(img.shape, 7, np.uint16))
    b = clf.DeviceImage.upload(ctx, np.full(img.shape, 7, np.uint16))
    blur(d, out=a)
    eps(a, out=b)
    assert_close(b.download(), want(img, blur_ref, eps_ref), 0)


def test_device_parameters_are_in_sample_units(ctx, rng):
    img = random_u16(rng, 16, 16, 1)
    d = clf.DeviceImage.upload(ctx, img)
    for threshold in (0, 300, 65535):
        got = clf.epsilon(d, radius=2, threshold=threshold).download()
        np.testing.assert_array_equal(got, reference.epsilon(img, 2, threshold))
    with pytest.raises(ValueError, match="0..65535"):
        clf.epsilon(d, threshold=65536)
    with pytest.raises(ValueError, match="0..255"):
        clf.epsilon(clf.DeviceImage.upload(ctx, (img >> 8).astype(np.uint8)), threshold=300)


def test_device_refusals(ctx, rng):
    img = random_u16(rng, 8, 10, 4)
    d = clf.DeviceImage.upload(ctx, img)
    grey = clf.DeviceImage.upload(ctx, random_u16(rng, 8, 10, 1))
    with pytest.raises(TypeError, match="Sobel needs a DeviceImage of uint8, got uint16"):
        clf.sobel(d)
    with pytest.raises(TypeError, match="Sobel needs a DeviceImage of uint8, got uint16"):
        clf.sobel(grey, output="gradients")
    with pytest.raises(TypeError, match="edges needs a DeviceImage of uint8 or float32, got uint16"):
        clf.edges(grey)
    with pytest.raises(TypeError, match="reconstruct needs a DeviceImage of float32, got uint16"):
        clf.reconstruct(grey)
    # Outputs of another dtype, either way round.
    with pytest.raises(ValueError, match="out must be 10x8 with 4 channel.s. of uint16, got 10x8x4 of uint8"):
        clf.box_blur(d, out=clf.DeviceImage.upload(ctx, np.zeros(img.shape, np.uint8)))
    with pytest.raises(ValueError, match="out must be 10x8 with 4 channel.s. of uint8, got 10x8x4 of uint16"):
        clf.epsilon(clf.DeviceImage.upload(ctx, np.zeros(img.shape, np.uint8)), out=d)
    with pytest.raises(ValueError, match="out must be 10x8 with 4 channel.s. of uint16, got 10x8x1 of uint16"):
        clf.bilateral(d, out=grey)
    gx, _ = clf.sobel(clf.DeviceImage.upload(ctx, np.zeros((8, 10), np.uint8)), output="gradients")
    with pytest.raises(TypeError, match="box blur needs a DeviceImage of uint8 or uint16, got int16"):
        clf.box_blur(gx)
    with pytest.raises(ValueError, match="1, 3 or 4 channels of uint16, got 2"):
        clf.DeviceImage.upload(ctx, random_u16(rng, 4, 4, 2))
    with pytest.raises(TypeError, match="uint8 or uint16 .* got int32"):
        clf.DeviceImage.upload(ctx, img.astype(np.int32))
    np.testing.assert_array_equal(d.download(), img)  # nothing was written


# ---- views of pyopencl's uint16 memory (skipped without pyopencl) ----------------------------------------


@pytest.mark.parametrize("channels", [1, 4])
def test_views_are_read_and_written_in_place(cl_setup, rng, channels):
    cl, cl_array, cl_ctx, queue, ctx = cl_setup
    img = random_u16(rng, 23, 41, channels)
    src = cl_array.to_device(queue, img)
    dst = cl_array.to_device(queue, np.full(img.shape, 0xA5A5, np.uint16))
    view = clf.DeviceImage.view(ctx, src)
    assert view.dtype == np.uint16 and view.shape == img.shape
    out = clf.DeviceImage.view(ctx, dst)
    assert clf.epsilon(view, radius=2, threshold=9000, out=out) is out
    np.testing.assert_array_equal(dst.get(), reference.epsilon(img, 2, 9000))
    np.testing.assert_array_equal(np.asarray(view), img)


def test_pitched_and_offset_views(cl_setup, rng):
    cl, cl_array, cl_ctx, queue, ctx = cl_setup
    big = random_u16(rng, 30, 50, 1)
    src = cl_array.to_device(queue, big)
    dst = cl_array.to_device(queue, np.full((30, 50), 0xA5A5, np.uint16))
    window = (slice(3, 20), slice(5, 37))  # an offset and a row pitch wider than the view
    clf.box_blur(clf.DeviceImage.view(ctx, src[window]), diameter=5, out=clf.DeviceImage.view(ctx, dst[window]))
    expected = np.full((30, 50), 0xA5A5, np.uint16)
    expected[window] = reference.box_blur(np.ascontiguousarray(big[window]), 5)
    np.testing.assert_array_equal(dst.get(), expected)


def test_buffer_view_with_dtype(cl_setup, rng):
    cl, cl_array, cl_ctx, queue, ctx = cl_setup
    img = random_u16(rng, 16, 24, 4)
    buf = cl.Buffer(cl_ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=img)
    d = clf.DeviceImage.view(ctx, buf, shape=img.shape, dtype="uint16")
    assert d.dtype == np.uint16 and repr(d) == "DeviceImage(shape=(16, 24, 4), dtype=uint16)"
    np.testing.assert_array_equal(d.download(), img)
    np.testing.assert_array_equal(clf.box_blur(d, diameter=3).download(), reference.box_blur(img, 3))
    with pytest.raises(ValueError, match="reaches"):
        clf.DeviceImage.view(ctx, buf, shape=(17, 24, 4), dtype=np.uint16)
    with pytest.raises(ValueError, match="1 or 4 channels of uint16"):
        clf.DeviceImage.view(ctx, buf, shape=(16, 24, 3), dtype="uint16")
    with pytest.raises(TypeError, match="got int16 of 1 channel"):
        clf.DeviceImage.view(ctx, buf, shape=(16, 24), dtype="int16")
