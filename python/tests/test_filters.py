# SPDX-License-Identifier: Apache-2.0
# Every filter from NumPy against the library's CPU reference: exact where the filter is exact, within 1 for the
# bilateral filter, within a relative L2 error of 1e-5 for the reconstruction (docs/SPEC.md).
import numpy as np
import pytest
from conftest import as_filter_layout, from_filter_layout, random_image, reference

import clfilters as clf

SMALL = [(1, 1), (1, 7), (13, 17)]
CHANNELS = [1, 3, 4]


def reference_u8(fn, img, **params):
    """A reference over 1 or 4 channels, applied to RGB as the library applies it: through RGBA."""
    out = fn(as_filter_layout(img), **params)
    return from_filter_layout(out.reshape(as_filter_layout(img).shape), img)


@pytest.mark.parametrize("shape", SMALL + [(1080, 1920)])
@pytest.mark.parametrize("channels", CHANNELS)
def test_box_blur(ctx, rng, shape, channels):
    img = random_image(rng, *shape, channels)
    got = clf.box_blur(img, diameter=9, ctx=ctx)
    assert got.shape == img.shape and got.dtype == np.uint8
    np.testing.assert_array_equal(got, reference_u8(reference.box_blur, img, diameter=9))


@pytest.mark.parametrize("shape", SMALL)
@pytest.mark.parametrize("channels", CHANNELS)
def test_epsilon(ctx, rng, shape, channels):
    img = random_image(rng, *shape, channels)
    got = clf.epsilon(img, radius=2, threshold=40, border="reflect101", ctx=ctx)
    assert got.shape == img.shape
    want = reference_u8(reference.epsilon, img, radius=2, threshold=40, border="reflect101")
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape", SMALL)
@pytest.mark.parametrize("channels", CHANNELS)
def test_bilateral(ctx, rng, shape, channels):
    img = random_image(rng, *shape, channels)
    got = clf.bilateral(img, sigma_spatial=1.5, sigma_range=40, border="constant=9", ctx=ctx)
    assert got.shape == img.shape
    want = reference_u8(reference.bilateral, img, sigma_spatial=1.5, sigma_range=40, border="constant=9")
    assert np.abs(got.astype(int) - want.astype(int)).max() <= 1


@pytest.mark.parametrize("shape", SMALL)
@pytest.mark.parametrize("channels", CHANNELS)
def test_sobel(ctx, rng, shape, channels):
    img = random_image(rng, *shape, channels)
    magnitude = clf.sobel(img, ctx=ctx)
    assert magnitude.shape == shape and magnitude.dtype == np.uint8
    np.testing.assert_array_equal(magnitude, reference.sobel(img).reshape(shape))
    gx, gy = clf.sobel(img, output="gradients", ctx=ctx)
    assert gx.shape == shape and gx.dtype == np.int16 and gy.dtype == np.int16
    want = reference.sobel(img, output="gradients").reshape(*shape, 2)
    np.testing.assert_array_equal(gx, want[..., 0])
    np.testing.assert_array_equal(gy, want[..., 1])


@pytest.mark.parametrize("shape", SMALL)
@pytest.mark.parametrize("channels", CHANNELS)
def test_edges_and_reconstruct(ctx, rng, shape, channels):
    img = random_image(rng, *shape, channels)
    e = clf.edges(img, ctx=ctx)
    assert e.shape == shape and e.dtype == np.float32
    np.testing.assert_array_equal(e, reference.edges(img).reshape(shape))
    u = clf.reconstruct(e, iterations=40, ctx=ctx)
    assert u.shape == shape and u.dtype == np.float32
    assert reference.reconstruct_error(e, u, 40) <= 1e-5


@pytest.mark.parametrize("channels", CHANNELS)
def test_1080p(ctx, rng, channels):
    # One full-size call of every other filter (box blur has its own above).
    img = random_image(rng, 1080, 1920, channels)
    np.testing.assert_array_equal(
        clf.epsilon(img, ctx=ctx), reference_u8(reference.epsilon, img, radius=4, threshold=20)
    )
    got = clf.bilateral(img, sigma_spatial=1, ctx=ctx)
    want = reference_u8(reference.bilateral, img, sigma_spatial=1, sigma_range=30)
    assert np.abs(got.astype(int) - want.astype(int)).max() <= 1
    np.testing.assert_array_equal(clf.sobel(img, ctx=ctx), reference.sobel(img).reshape(1080, 1920))
    e = clf.edges(img, ctx=ctx)
    np.testing.assert_array_equal(e, reference.edges(img).reshape(1080, 1920))
    if channels == 1:
        assert reference.reconstruct_error(e, clf.reconstruct(e, iterations=20, ctx=ctx), 20) <= 1e-5


def test_constant_image_keeps_its_value():
    out = clf.box_blur(np.zeros((64, 64, 3), np.uint8) + 7, diameter=3)
    assert out.shape == (64, 64, 3) and (out == 7).all()


def test_grey_with_channel_axis_keeps_its_shape(ctx, rng):
    img = random_image(rng, 13, 17, 1)[..., None]
    got = clf.box_blur(img, diameter=3, ctx=ctx)
    assert got.shape == (13, 17, 1)
    np.testing.assert_array_equal(got[..., 0], reference.box_blur(img[..., 0].copy(), diameter=3))


def test_grey_alpha_as_the_library_takes_it(ctx, rng):
    # Two channels: box blur blurs both; epsilon filters the grey and copies alpha.
    img = random_image(rng, 13, 17, 2)
    rgba = np.ascontiguousarray(np.dstack([img[..., 0]] * 3 + [img[..., 1]]))
    got = clf.box_blur(img, diameter=5, ctx=ctx)
    np.testing.assert_array_equal(got[..., 1], reference.box_blur(rgba, diameter=5)[..., 3])
    eps = clf.epsilon(img, ctx=ctx)
    np.testing.assert_array_equal(eps[..., 1], img[..., 1])
    np.testing.assert_array_equal(eps[..., 0], reference.epsilon(img[..., 0].copy(), radius=4, threshold=20))


def test_variant_is_the_one_asked_for(ctx, rng):
    img = random_image(rng, 13, 17, 4)
    want = reference.box_blur(img, diameter=4)
    for variant in ("naive", "two_pass"):
        np.testing.assert_array_equal(clf.box_blur(img, diameter=4, variant=variant, ctx=ctx), want)
    # two_pass needs an even diameter: refused with the reason, as --variant is.
    with pytest.raises(ValueError, match="two_pass"):
        clf.box_blur(img, diameter=5, variant="two_pass", ctx=ctx)


def test_reconstruct_with_tolerance_and_initial(ctx, rng):
    img = random_image(rng, 13, 17, 1)
    e = clf.edges(img, ctx=ctx)
    # Starting from the image itself, the iteration is already at its fixed point.
    u = clf.reconstruct(e, tolerance=1e-3, check_every=4, initial=img, ctx=ctx)
    np.testing.assert_allclose(u, img.astype(np.float32), atol=1e-3)


def test_default_context_and_devices():
    assert isinstance(clf.default_context(), clf.Context)
    assert clf.default_context() is clf.default_context()
    names = [d.name for d in clf.devices()]
    assert clf.default_context().device.name in names
