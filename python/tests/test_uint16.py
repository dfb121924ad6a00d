# SPDX-License-Identifier: Apache-2.0
# uint16 arrays through the filters that take 16-bit samples, against the library's CPU references.
import numpy as np
import pytest
from conftest import reference

import clfilters as clf


def random_u16(rng, height, width, channels):
    shape = (height, width) if channels == 1 else (height, width, channels)
    return rng.integers(0, 65536, size=shape, dtype=np.uint16)


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
