# SPDX-License-Identifier: Apache-2.0
# Bad inputs and parameters: TypeError for a wrong type, ValueError for a wrong shape, layout or value, with the
# library's and the command line's messages.
import numpy as np
import pytest
from conftest import random_image

import clfilters as clf


@pytest.fixture
def img(rng):
    return random_image(rng, 13, 17, 4)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda i, c: clf.box_blur(i, diameter=0, ctx=c), "diameter must be 1..4095, got 0"),
        (lambda i, c: clf.box_blur(i, diameter=4096, ctx=c), "diameter must be 1..4095, got 4096"),
        (lambda i, c: clf.box_blur(i, border="wrap", ctx=c), "unknown border 'wrap'"),
        (lambda i, c: clf.box_blur(i, border="constant=300", ctx=c), "0..255"),
        (lambda i, c: clf.box_blur(i, variant="fastest", ctx=c), "unknown variant 'fastest' (expected auto, naive,"),
        (lambda i, c: clf.epsilon(i, radius=0, ctx=c), "epsilon radius must be 1..32, got 0"),
        (lambda i, c: clf.epsilon(i, threshold=256, ctx=c), "epsilon threshold must be 0..255, got 256"),
        (lambda i, c: clf.bilateral(i, radius=-1, ctx=c), "radius must be 0..16, got -1"),
        (lambda i, c: clf.bilateral(i, radius=17, ctx=c), "17"),
        (lambda i, c: clf.bilateral(i, sigma_range=0, ctx=c), "sigma"),
        (lambda i, c: clf.sobel(i, output="angle", ctx=c), "angle"),
        (lambda i, c: clf.reconstruct(np.zeros((4, 4), np.float32), iterations=-1, ctx=c), "iterations"),
        (lambda i, c: clf.reconstruct(np.zeros((4, 4), np.float32), check_every=0, ctx=c), "check"),
    ],
)
def test_bad_parameters(ctx, img, call, message):
    with pytest.raises(ValueError) as e:
        call(img, ctx)
    assert message in str(e.value)


def test_wrong_dtype(ctx, img):
    with pytest.raises(TypeError, match="^box blur needs 8- or 16-bit samples, got int16$"):
        clf.box_blur(img.astype(np.int16), ctx=ctx)
    with pytest.raises(TypeError, match="^epsilon needs 8- or 16-bit samples, got float64$"):
        clf.epsilon(img.astype(np.float64), ctx=ctx)
    with pytest.raises(TypeError, match=r"^Sobel takes 8-bit images with 1 to 4 channels, got 4 channel\(s\) of int16$"):
        clf.sobel(img.astype(np.int16), ctx=ctx)
    with pytest.raises(TypeError, match=r"^the edge map must be 1 channel of float32, not 1 channel\(s\) of uint8$"):
        clf.reconstruct(img[..., 0].copy(), ctx=ctx)
    # A list is a batch of arrays (test_batches.py): nested lists are refused item by item.
    with pytest.raises(TypeError, match=r"img\[0\] is a list, not an array \(img is a NumPy array or a list"):
        clf.box_blur([[1, 2], [3, 4]], ctx=ctx)
    with pytest.raises(TypeError, match="takes a NumPy array or a DeviceImage, got dict"):
        clf.box_blur({"a": 1}, ctx=ctx)


def test_wrong_shape(ctx, rng):
    with pytest.raises(ValueError, match="^bilateral takes 1 to 4 channels, got 5$"):
        clf.bilateral(random_image(rng, 4, 4, 5), ctx=ctx)
    with pytest.raises(ValueError, match=r"shape H x W or H x W x C, got 1 dimension\(s\)"):
        clf.box_blur(np.zeros(16, np.uint8), ctx=ctx)
    with pytest.raises(ValueError, match=r"got 4 dimension\(s\)"):
        clf.box_blur(np.zeros((2, 4, 4, 3), np.uint8), ctx=ctx)
    with pytest.raises(ValueError, match="^box blur needs an image of at least 1x1$"):
        clf.box_blur(np.zeros((0, 5), np.uint8), ctx=ctx)
    with pytest.raises(ValueError, match="^epsilon needs an image of at least 1x1, got 5x0$"):
        clf.epsilon(np.zeros((0, 5), np.uint8), ctx=ctx)


def test_non_contiguous_of_an_unknown_dtype_is_refused(ctx, img):
    # Other layouts are packed first (test_layouts.py), which needs a sample type clfilters has.
    with pytest.raises(TypeError, match="^box blur takes arrays of uint8, uint16, int16 or float32, got float64$"):
        clf.box_blur(img.astype(np.float64)[:, ::2], ctx=ctx)
    with pytest.raises(TypeError, match="needs 8- or 16-bit samples, got float32"):
        clf.box_blur(img.astype(np.float32)[:, ::2], ctx=ctx)


def test_read_only_input_is_taken(ctx, img):
    img.flags.writeable = False
    assert clf.box_blur(img, diameter=1, ctx=ctx).tolist() == img.tolist()


def test_bad_context(img):
    with pytest.raises(TypeError, match="ctx must be a clfilters.Context"):
        clf.box_blur(img, ctx="pocl")
    with pytest.raises(ValueError, match="no device matches 'no such device anywhere'"):
        clf.Context("no such device anywhere")
