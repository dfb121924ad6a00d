# SPDX-License-Identifier: Apache-2.0
# The bilateral filter's window and distance keyword arguments: the library's CPU reference with the same
# options within 1 at every sample, the defaults unchanged, and bad values refused with the parameter's name.
import numpy as np
import pytest
from conftest import as_filter_layout, from_filter_layout, random_image, reference

import clfilters as clf


def reference_u8(img, **params):
    out = reference.bilateral(as_filter_layout(img), **params)
    return from_filter_layout(out.reshape(as_filter_layout(img).shape), img)


def max_difference(a, b):
    return int(np.abs(a.astype(int) - b.astype(int)).max())


@pytest.mark.parametrize("channels", [1, 3, 4])
@pytest.mark.parametrize("window, distance", [("square", "l2"), ("disk", "l2"), ("square", "l1"), ("disk", "l1")])
@pytest.mark.parametrize("variant", ["auto", "naive", "range_table"])
def test_window_and_distance_match_the_reference(ctx, rng, channels, window, distance, variant):
    img = random_image(rng, 23, 31, channels)
    params = dict(sigma_spatial=2.0, sigma_range=35.0, radius=4, border="reflect101")
    got = clf.bilateral(img, window=window, distance=distance, variant=variant, ctx=ctx, **params)
    assert got.shape == img.shape and got.dtype == np.uint8
    assert max_difference(got, reference_u8(img, window=window, distance=distance, **params)) <= 1


def test_defaults_are_the_square_window_and_l2(ctx, rng):
    img = random_image(rng, 19, 27, 4)
    params = dict(sigma_spatial=2.0, sigma_range=35.0, radius=4)
    want = reference_u8(img, **params)
    assert max_difference(clf.bilateral(img, ctx=ctx, **params), want) <= 1
    # The reference with disk and l1 differs from the default by more than the tolerance: the options reach it.
    assert max_difference(reference_u8(img, window="disk", distance="l1", **params), want) > 1


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(window="round"), "unknown bilateral window 'round' (expected square or disk)"),
        (dict(distance="l3"), "unknown bilateral distance 'l3' (expected l2 or l1)"),
        (dict(window="Disk"), "window"),
    ],
)
def test_bad_values_are_refused(ctx, rng, kwargs, message):
    with pytest.raises(ValueError) as e:
        clf.bilateral(random_image(rng, 8, 8, 1), ctx=ctx, **kwargs)
    assert message in str(e.value)
