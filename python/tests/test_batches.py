# SPDX-License-Identifier: Apache-2.0
# Lists from Python: a batch of arrays, a list of Contexts (sub-devices of the test device) sharing one array's bands
# or a batch's images, and a device with its memory capped, whose host calls go through in bands. Box blur, epsilon
# and Sobel exactly against the CPU references; the bilateral filter against its single call on the same Context.
import numpy as np
import pytest
from conftest import reference

import clfilters as clf

# (height, width, channels, dtype) of a batch: every layout the single calls take, of several shapes.
BATCH = [
    (17, 23, 1, np.uint8),
    (9, 31, 3, np.uint8),
    (20, 12, 4, np.uint16),
    (5, 7, 2, np.uint8),
    (11, 11, 0, np.uint16),  # 0: H x W x 1
    (13, 6, 3, np.uint16),
    (1, 1, 4, np.uint8),
]


def random_array(rng, height, width, channels, dtype=np.uint8):
    """Random samples over the dtype's whole range; channels 1 gives H x W, 0 gives H x W x 1."""
    shape = (height, width) if channels == 1 else (height, width, max(channels, 1))
    return rng.integers(0, np.iinfo(dtype).max + 1, size=shape, dtype=dtype)


def random_batch(rng, layouts=BATCH):
    return [random_array(rng, *layout) for layout in layouts]


def per_plane(fn, img, alpha_copied=False, **params):
    """The reference of a filter whose channels are filtered apart: each plane as a grey image. `alpha_copied`: the
    last channel of 2 or 4 is copied (epsilon)."""
    if img.ndim == 2:
        return fn(img, **params).reshape(img.shape)
    channels = img.shape[2]
    planes = []
    for c in range(channels):
        plane = np.ascontiguousarray(img[..., c])
        copied = alpha_copied and channels in (2, 4) and c == channels - 1
        planes.append(plane if copied else fn(plane, **params).reshape(plane.shape))
    return np.stack(planes, axis=2)


def box_blur_want(img):
    return per_plane(reference.box_blur, img, diameter=5, border="reflect101")


def epsilon_want(img):
    threshold = 30 if img.dtype == np.uint8 else 30 * 257
    return per_plane(reference.epsilon, img, alpha_copied=True, radius=2, threshold=threshold)


def assert_results(got, want, inputs):
    assert isinstance(got, list) and len(got) == len(inputs)
    for i, (g, w, img) in enumerate(zip(got, want, inputs)):
        assert g.shape == img.shape and g.dtype == img.dtype, i
        np.testing.assert_array_equal(g, w, err_msg=f"image {i}")


def test_contexts(ctx):
    (one,) = clf.contexts(ctx.device.index)
    assert isinstance(one, clf.Context) and one.device.index == ctx.device.index


def test_contexts_refuse_bad_lists(ctx):
    index = ctx.device.index
    with pytest.raises(ValueError, match="already in the list"):
        clf.contexts(f"{index},{index}")
    with pytest.raises(ValueError, match="no device matches 'nonsense'"):
        clf.contexts("nonsense")
    # More parts than compute units; a driver with no equal partition (NVIDIA's) refuses any split.
    with pytest.raises(ValueError, match="too few to split|cannot be split into sub-devices"):
        clf.contexts(f"{index}/{ctx.device.compute_units + 1}")


def test_batch_in_order(ctx, rng):
    inputs = random_batch(rng)
    assert_results(clf.box_blur(inputs, diameter=5, border="reflect101", ctx=ctx), map(box_blur_want, inputs), inputs)
    # A tuple is a batch too, and ctx=None is the default context.
    u8 = [img for img in inputs if img.dtype == np.uint8]
    got = clf.epsilon(tuple(u8), radius=2, threshold=30)
    assert_results(got, map(epsilon_want, u8), u8)
    u16 = [img for img in inputs if img.dtype == np.uint16]
    assert_results(clf.epsilon(u16, radius=2, threshold=30 * 257, ctx=ctx), map(epsilon_want, u16), u16)


def test_bilateral_batch_is_its_single_calls(ctx, rng):
    inputs = random_batch(rng)
    params = dict(sigma_spatial=1.5, sigma_range=40, border="constant=9")
    got = clf.bilateral(inputs, ctx=ctx, **params)
    assert_results(got, [clf.bilateral(img, ctx=ctx, **params) for img in inputs], inputs)


def test_sobel_batch(ctx, rng):
    inputs = [random_array(rng, *layout) for layout in [(14, 9, 1), (8, 21, 3), (10, 10, 4), (6, 5, 2), (3, 4, 0)]]
    got = clf.sobel(inputs, output="l1", ctx=ctx)
    assert isinstance(got, list) and len(got) == len(inputs)
    for g, img in zip(got, inputs):
        assert g.shape == img.shape[:2] and g.dtype == np.uint8
        np.testing.assert_array_equal(g, reference.sobel(img, output="l1").reshape(img.shape[:2]))
    for (gx, gy), img in zip(clf.sobel(inputs, output="gradients", ctx=ctx), inputs):
        want = reference.sobel(img, output="gradients").reshape(*img.shape[:2], 2)
        assert gx.dtype == np.int16 and gx.flags.c_contiguous and gy.shape == img.shape[:2]
        np.testing.assert_array_equal(gx, want[..., 0])
        np.testing.assert_array_equal(gy, want[..., 1])


def test_sub_devices_share_one_array(halves, rng):
    img = random_array(rng, 97, 61, 4)
    np.testing.assert_array_equal(clf.box_blur(img, diameter=5, border="reflect101", ctx=halves), box_blur_want(img))
    np.testing.assert_array_equal(clf.epsilon(img, radius=2, threshold=30, ctx=halves), epsilon_want(img))
    grey = random_array(rng, 83, 45, 1)
    np.testing.assert_array_equal(clf.sobel(grey, ctx=halves), reference.sobel(grey).reshape(grey.shape))
    rgb = random_array(rng, 40, 33, 3, np.uint16)
    np.testing.assert_array_equal(clf.box_blur(rgb, diameter=5, border="reflect101", ctx=halves), box_blur_want(rgb))


def test_sub_devices_share_a_batch(halves, rng):
    inputs = random_batch(rng)
    got = clf.box_blur(inputs, diameter=5, border="reflect101", ctx=tuple(halves))
    assert_results(got, map(box_blur_want, inputs), inputs)
    u8 = [img for img in inputs if img.dtype == np.uint8]
    assert_results(clf.epsilon(u8, radius=2, threshold=30, ctx=halves), map(epsilon_want, u8), u8)
    params = dict(sigma_spatial=1.5, sigma_range=40)
    want = [clf.bilateral(img, ctx=halves[0], **params) for img in u8]
    assert_results(clf.bilateral(u8, ctx=halves, **params), want, u8)


def test_one_context_in_a_list_is_that_context(ctx, rng):
    img = random_array(rng, 31, 27, 3)
    np.testing.assert_array_equal(clf.box_blur(img, diameter=5, ctx=[ctx]), clf.box_blur(img, diameter=5, ctx=ctx))
    params = dict(sigma_spatial=2, sigma_range=25)
    np.testing.assert_array_equal(clf.bilateral(img, ctx=[ctx], **params), clf.bilateral(img, ctx=ctx, **params))
    inputs = random_batch(rng)
    assert_results(
        clf.box_blur(inputs, diameter=5, border="reflect101", ctx=[ctx]), map(box_blur_want, inputs), inputs
    )


def test_errors(ctx, rng):
    img = random_array(rng, 8, 9, 3)
    with pytest.raises(ValueError, match="box blur: img is an empty list"):
        clf.box_blur([], ctx=ctx)
    with pytest.raises(TypeError, match=r"epsilon: img\[1\] is a str, not an array"):
        clf.epsilon([img, "img.png"], ctx=ctx)
    with pytest.raises(TypeError, match=r"img\[1\]: box blur needs 8- or 16-bit samples, got float64"):
        clf.box_blur([img, rng.random((4, 4))], ctx=ctx)
    with pytest.raises(ValueError, match=r"img\[0\]: box blur takes 1 to 4 channels, got 5"):
        clf.box_blur([random_array(rng, 4, 4, 5)], ctx=ctx)
    with pytest.raises(TypeError, match=r"img\[0\]: Sobel takes 8-bit images"):
        clf.sobel([random_array(rng, 4, 4, 1, np.uint16)], ctx=ctx)
    # The parameters as the single call checks them.
    with pytest.raises(ValueError, match="diameter must be 1..4095, got 0"):
        clf.box_blur([img], diameter=0, ctx=ctx)
    with pytest.raises(ValueError, match="diameter must be 1..255 for 16-bit samples"):
        clf.box_blur([random_array(rng, 4, 4, 1, np.uint16)], diameter=300, ctx=ctx)
    with pytest.raises(ValueError, match="unknown variant 'nope'"):
        clf.bilateral([img], variant="nope", ctx=[ctx])
    device = clf.DeviceImage.upload(ctx, img)
    with pytest.raises(TypeError, match=r"img\[1\] is a DeviceImage"):
        clf.box_blur([img, device], ctx=ctx)
    with pytest.raises(TypeError, match="a DeviceImage runs on its own Context"):
        clf.epsilon(device, ctx=[ctx])
    with pytest.raises(TypeError, match="a DeviceImage runs on its own Context"):
        clf.sobel(device, ctx=(ctx,))
    with pytest.raises(TypeError, match="box blur: out= takes one array; a batch"):
        clf.box_blur([img], ctx=ctx, out=device)
    with pytest.raises(ValueError, match="ctx is an empty list"):
        clf.box_blur(img, ctx=[])
    with pytest.raises(TypeError, match=r"ctx\[1\] must be a clfilters.Context, got str"):
        clf.box_blur([img], ctx=[ctx, "0"])


@pytest.mark.parametrize("channels", [3, 4])
def test_capped_device_filters_in_bands(ctx, rng, monkeypatch, channels):
    # 200 x 150 RGBA is 120000 bytes, more than the 64 KiB the device says it has: the host call cuts it into bands.
    monkeypatch.setenv("CLFILTERS_DEVICE_MEMORY", "64K")
    capped = clf.Context(ctx.device.index)
    assert capped.device.global_mem_bytes <= 65536
    img = random_array(rng, 200, 150, channels)
    np.testing.assert_array_equal(clf.box_blur(img, diameter=5, border="reflect101", ctx=capped), box_blur_want(img))
    np.testing.assert_array_equal(clf.epsilon(img, radius=2, threshold=30, ctx=capped), epsilon_want(img))
    # The array path asks the library about bands (rather than holding the image whole, which PoCL would allow):
    # below one band of rows it refuses.
    monkeypatch.setenv("CLFILTERS_DEVICE_MEMORY", "1K")
    with pytest.raises(ValueError, match="does not fit the device"):
        clf.box_blur(img, diameter=5, ctx=clf.Context(ctx.device.index))
