# SPDX-License-Identifier: Apache-2.0
# out= on host calls: box blur, epsilon and the bilateral filter write into the caller's array and return it, as
# NumPy's out= does. Box blur and epsilon exactly against the CPU references, the bilateral filter within 1
# (docs/SPEC.md). Every out is poisoned first, so a sample the call left unwritten shows, and the bytes around a
# window of a larger array must keep the poison. C-contiguous outs of 1 or 4 channels (and 8-bit RGB) are written
# directly; windows, reversed strides, 2 channels and 16-bit RGB go through a temporary: both paths are run.
import re

import numpy as np
import pytest
from conftest import reference

import clfilters as clf

HEIGHT, WIDTH = 37, 53


def poison(dtype):
    return 0xA5 if dtype == np.uint8 else 0xA5A5


def random_array(rng, channels, dtype):
    """Random samples over the dtype's whole range; channels 0 gives H x W x 1."""
    shape = (HEIGHT, WIDTH) if channels == 1 else (HEIGHT, WIDTH, max(channels, 1))
    return rng.integers(0, np.iinfo(dtype).max + 1, size=shape, dtype=dtype)


def call(name, img, **kwargs):
    """The filter `name` with this file's parameters (scaled to uint16's range where they are in sample units)."""
    dtype = img[0].dtype if isinstance(img, (list, tuple)) else img.dtype
    scale = 257 if dtype == np.uint16 else 1
    if name == "box_blur":
        return clf.box_blur(img, diameter=5, border="reflect101", **kwargs)
    if name == "epsilon":
        return clf.epsilon(img, radius=2, threshold=30 * scale, border="reflect101", **kwargs)
    return clf.bilateral(img, sigma_spatial=2.0, sigma_range=35.0 * scale, radius=3, **kwargs)


def reference_planes(name, img):
    """The CPU reference on 1 or 4 channels."""
    scale = 257 if img.dtype == np.uint16 else 1
    if name == "box_blur":
        out = reference.box_blur(img, 5, "reflect101")
    elif name == "epsilon":
        out = reference.epsilon(img, 2, 30 * scale, "reflect101")
    else:
        out = reference.bilateral(img, 2.0, 35.0 * scale, 3)
    return out.reshape(img.shape)


def want(name, img):
    """The reference as the library applies the filter: RGB through RGBA with alpha the largest sample, grey+alpha as
    its grey plane, with alpha filtered as a plane of its own (box blur) or copied (epsilon, bilateral)."""
    channels = img.shape[2] if img.ndim == 3 else 1
    if channels == 3:
        alpha = np.full(img.shape[:2] + (1,), np.iinfo(img.dtype).max, img.dtype)
        return reference_planes(name, np.ascontiguousarray(np.concatenate([img, alpha], axis=2)))[..., :3]
    if channels == 2:
        grey, alpha = (np.ascontiguousarray(img[..., c]) for c in range(2))
        alpha = reference_planes(name, alpha) if name == "box_blur" else alpha
        return np.stack([reference_planes(name, grey), alpha], axis=2)
    return reference_planes(name, img)


def poisoned_out(shape, dtype, kind):
    """An out of `shape` filled with the poison: "c" C-contiguous, "window" a window of a larger array (returned too,
    with the window's mask), "reversed" with negative strides."""
    if kind == "c":
        return np.full(shape, poison(dtype), dtype), None, None
    if kind == "reversed":
        return np.full(shape, poison(dtype), dtype)[::-1, ::-1], None, None
    big = np.full((shape[0] + 5, shape[1] + 9) + ((shape[2] + 1,) if len(shape) == 3 else ()), poison(dtype), dtype)
    window = (slice(2, 2 + shape[0]), slice(3, 3 + shape[1])) + ((slice(0, shape[2]),) if len(shape) == 3 else ())
    mask = np.zeros(big.shape, bool)
    mask[window] = True
    return big[window], big, mask


def assert_filtered(name, got, img):
    expected = want(name, img)
    assert got.shape == img.shape and got.dtype == img.dtype
    if name == "bilateral":
        assert np.abs(got.astype(np.int32) - expected.astype(np.int32)).max() <= 1
    else:
        np.testing.assert_array_equal(got, expected)


FILTERS = ["box_blur", "epsilon", "bilateral"]
# (channels, dtype, kind of out); channels 0 is H x W x 1.
CASES = [
    (1, np.uint8, "c"),
    (4, np.uint8, "c"),
    (0, np.uint8, "c"),
    (3, np.uint8, "c"),
    (1, np.uint16, "c"),
    (3, np.uint16, "c"),
    (2, np.uint8, "c"),
    (4, np.uint8, "window"),
    (3, np.uint8, "window"),
    (1, np.uint16, "reversed"),
]


@pytest.mark.parametrize("name", FILTERS)
@pytest.mark.parametrize("channels, dtype, kind", CASES)
def test_out_is_written_and_returned(ctx, rng, name, channels, dtype, kind):
    img = random_array(rng, channels, dtype)
    before = img.copy()
    out, big, mask = poisoned_out(img.shape, dtype, kind)
    assert call(name, img, ctx=ctx, out=out) is out
    assert_filtered(name, out, img)
    np.testing.assert_array_equal(img, before)
    if big is not None:
        assert (big[~mask] == poison(dtype)).all(), "a sample outside the window was written"
    # The same out again, for another image: every sample is the new call's.
    img = random_array(rng, channels, dtype)
    assert call(name, img, ctx=ctx, out=out) is out
    assert_filtered(name, out, img)


# One image over a list of Contexts: grey straight into out, RGB and a window of a larger array through a temporary.
@pytest.mark.parametrize(
    "name, channels, dtype, kind",
    [("box_blur", 1, np.uint8, "c"), ("epsilon", 3, np.uint8, "c"), ("bilateral", 4, np.uint16, "window")],
)
def test_out_over_several_contexts(halves, rng, name, channels, dtype, kind):
    img = random_array(rng, channels, dtype)
    out, big, mask = poisoned_out(img.shape, dtype, kind)
    assert call(name, img, ctx=halves, out=out) is out
    assert_filtered(name, out, img)
    if big is not None:
        assert (big[~mask] == poison(dtype)).all(), "a sample outside the window was written"


def test_out_next_to_the_input_in_one_buffer(ctx, rng):
    """Two halves of one array share no bytes: one is the input, the other the out."""
    both = rng.integers(0, 256, size=(2 * HEIGHT, WIDTH, 4), dtype=np.uint8)
    img, out = both[:HEIGHT], both[HEIGHT:]
    before = img.copy()
    assert clf.box_blur(img, diameter=5, border="reflect101", ctx=ctx, out=out) is out
    np.testing.assert_array_equal(out, want("box_blur", before))
    np.testing.assert_array_equal(img, before)


WHAT = {"box_blur": "box blur", "epsilon": "epsilon", "bilateral": "bilateral"}


@pytest.mark.parametrize("name", FILTERS)
def test_wrong_outs_are_refused(ctx, rng, name):
    img = random_array(rng, 4, np.uint8)
    what = WHAT[name]
    cases = [
        (np.empty((HEIGHT, WIDTH, 3), np.uint8), f"{what}: out must be 37x53x4 uint8, got 37x53x3 uint8"),
        (np.empty((WIDTH, HEIGHT, 4), np.uint8), f"{what}: out must be 37x53x4 uint8, got 53x37x4 uint8"),
        (np.empty((HEIGHT, WIDTH, 4), np.uint16), f"{what}: out must be 37x53x4 uint8, got 37x53x4 uint16"),
        (np.empty((HEIGHT, WIDTH), np.float64), f"{what}: out must be 37x53x4 uint8, got 37x53 float64"),
    ]
    for out, message in cases:
        with pytest.raises(ValueError, match=re.escape(message)):
            call(name, img, ctx=ctx, out=out)
    grey = random_array(rng, 0, np.uint8)  # H x W x 1 takes no H x W out, as NumPy's out= would not
    with pytest.raises(ValueError, match=re.escape(f"{what}: out must be 37x53x1 uint8, got 37x53 uint8")):
        call(name, grey, ctx=ctx, out=np.empty((HEIGHT, WIDTH), np.uint8))
    read_only = np.full(img.shape, poison(np.uint8), np.uint8)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match=f"{what}: out must be writeable, got a read-only array"):
        call(name, img, ctx=ctx, out=read_only)
    assert (read_only == poison(np.uint8)).all()
    with pytest.raises(TypeError, match=f"{what}: out must be a NumPy array, got list"):
        call(name, img, ctx=ctx, out=[0])


@pytest.mark.parametrize("name", FILTERS)
def test_outs_sharing_memory_with_img_are_refused(ctx, rng, name):
    message = f"{WHAT[name]}: out shares memory with img"
    img = random_array(rng, 1, np.uint8)
    before = img.copy()
    big = rng.integers(0, 256, size=(HEIGHT, WIDTH + 1), dtype=np.uint8)
    rgb = random_array(rng, 3, np.uint8)
    # img itself, img reversed, two windows of one array a column apart, and RGB (whose out= takes a temporary).
    for source, out in [(img, img), (img, img[::-1]), (big[:, :-1], big[:, 1:]), (rgb, rgb[:, ::-1])]:
        with pytest.raises(ValueError, match=message):
            call(name, source, ctx=ctx, out=out)
    np.testing.assert_array_equal(img, before)
    for ctxs in ([ctx], ctx):
        with pytest.raises(ValueError, match=message):
            call(name, img, ctx=ctxs, out=img)


@pytest.mark.parametrize("name", FILTERS)
def test_batches_and_device_images_refuse_array_outs(ctx, rng, name):
    what = WHAT[name]
    img = random_array(rng, 4, np.uint8)
    out = np.empty_like(img)
    for images, ctxs in [([img], ctx), ((img, img), [ctx]), ([img], None)]:
        with pytest.raises(TypeError, match=re.escape(f"{what}: out= takes one array; a batch (a list of arrays)")):
            call(name, images, ctx=ctxs, out=out)
    device = clf.DeviceImage.upload(ctx, img)
    with pytest.raises(TypeError, match=f"{what}: out must be a DeviceImage for a DeviceImage input, got a NumPy"):
        call(name, device, out=out)
    for ctxs in (ctx, [ctx]):
        with pytest.raises(TypeError, match=f"{what}: out must be a NumPy array for a NumPy input, got a DeviceImage"):
            call(name, img, ctx=ctxs, out=device)
