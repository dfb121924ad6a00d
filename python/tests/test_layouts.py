# SPDX-License-Identifier: Apache-2.0
# Arrays of every layout NumPy makes: C-contiguous ones (read in place, RGB converted on the device), slices,
# transposes, Fortran order, negative strides and misaligned memory (packed first). Each result is checked against
# the library's CPU reference run on a C-contiguous copy, and against the same call on that copy.
import numpy as np
import pytest
from conftest import as_filter_layout, from_filter_layout, random_image, reference

import clfilters as clf


def box_blur_reference(img, diameter):
    contiguous = np.ascontiguousarray(img)
    out = reference.box_blur(as_filter_layout(contiguous), diameter=diameter)
    return from_filter_layout(out.reshape(as_filter_layout(contiguous).shape), contiguous)


def misaligned(img):
    """A copy of `img` whose data starts one byte past an aligned address: C-contiguous but not aligned."""
    raw = np.empty(img.nbytes + 64, np.uint8)
    start = (-raw.ctypes.data) % 64 + 1
    out = raw[start : start + img.nbytes].view(img.dtype).reshape(img.shape)
    out[...] = img
    assert out.flags.c_contiguous and out.ctypes.data % 16 != 0
    return out


def layouts(rng, height, width, channels):
    """(name, array) of one image content in several layouts, each of shape H x W (x C)."""
    wide = random_image(rng, height, 2 * width, channels)
    transposed = np.swapaxes(random_image(rng, width, height, channels), 0, 1)
    out = [
        ("C", random_image(rng, height, width, channels)),
        ("every other column", wide[:, ::2]),
        ("transposed", transposed),
        ("Fortran", np.asfortranarray(random_image(rng, height, width, channels))),
        ("reversed rows", random_image(rng, height, width, channels)[::-1]),
        ("misaligned", misaligned(random_image(rng, height, width, channels))),
    ]
    if channels == 3:
        out.append(("RGB of RGBA", random_image(rng, height, width, 4)[..., :3]))
    return out


@pytest.mark.parametrize("channels", [1, 3, 4])
@pytest.mark.parametrize("size", [(1, 1), (5, 3), (37, 29), (270, 480)])
def test_box_blur_of_every_layout(ctx, rng, channels, size):
    for name, img in layouts(rng, *size, channels):
        got = clf.box_blur(img, diameter=5, ctx=ctx)
        assert got.shape == img.shape and got.dtype == np.uint8, name
        assert got.flags.c_contiguous, name
        np.testing.assert_array_equal(got, box_blur_reference(img, 5), err_msg=name)


@pytest.mark.parametrize("channels", [1, 3, 4])
def test_epsilon_and_bilateral_of_other_layouts(ctx, rng, channels):
    for name, img in layouts(rng, 23, 41, channels):
        contiguous = np.ascontiguousarray(img)
        want = from_filter_layout(
            reference.epsilon(as_filter_layout(contiguous), radius=2, threshold=30).reshape(
                as_filter_layout(contiguous).shape
            ),
            contiguous,
        )
        np.testing.assert_array_equal(clf.epsilon(img, radius=2, threshold=30, ctx=ctx), want, err_msg=name)
        got = clf.bilateral(img, sigma_spatial=1.5, sigma_range=40, ctx=ctx)
        want = from_filter_layout(
            reference.bilateral(as_filter_layout(contiguous), sigma_spatial=1.5, sigma_range=40).reshape(
                as_filter_layout(contiguous).shape
            ),
            contiguous,
        )
        assert np.abs(got.astype(int) - want.astype(int)).max() <= 1, name


@pytest.mark.parametrize("channels", [1, 3, 4])
def test_sobel_of_other_layouts(ctx, rng, channels):
    for name, img in layouts(rng, 31, 19, channels):
        contiguous = np.ascontiguousarray(img)
        np.testing.assert_array_equal(
            clf.sobel(img, ctx=ctx), reference.sobel(contiguous).reshape(31, 19), err_msg=name
        )
        gx, gy = clf.sobel(img, output="gradients", ctx=ctx)
        want = reference.sobel(contiguous, output="gradients").reshape(31, 19, 2)
        np.testing.assert_array_equal(gx, want[..., 0], err_msg=name)
        np.testing.assert_array_equal(gy, want[..., 1], err_msg=name)


def test_rgb_box_blur_against_numpy(ctx, rng):
    # An independent formula: the rounded mean of the replicate-padded 3 x 3 window, per channel.
    img = random_image(rng, 21, 34, 3)
    padded = np.pad(img.astype(np.int64), ((1, 1), (1, 1), (0, 0)), mode="edge")
    sums = sum(padded[dy : dy + 21, dx : dx + 34] for dy in range(3) for dx in range(3))
    want = ((2 * sums + 9) // 18).astype(np.uint8)
    for name, view in [("C", img), ("Fortran", np.asfortranarray(img)), ("misaligned", misaligned(img))]:
        np.testing.assert_array_equal(clf.box_blur(view, diameter=3, ctx=ctx), want, err_msg=name)


def test_device_image_upload_of_other_layouts(ctx, rng):
    for channels in (1, 3, 4):
        for name, img in layouts(rng, 9, 14, channels):
            d = clf.DeviceImage.upload(ctx, img)
            np.testing.assert_array_equal(np.asarray(d), img, err_msg=f"{name}, {channels} channel(s)")


def test_the_input_is_left_as_it_was(ctx, rng):
    img = random_image(rng, 64, 48, 3)
    before = img.copy()
    clf.box_blur(img, diameter=7, ctx=ctx)
    clf.box_blur(img[:, ::3], diameter=7, ctx=ctx)
    np.testing.assert_array_equal(img, before)
