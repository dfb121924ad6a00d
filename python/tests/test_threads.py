# SPDX-License-Identifier: Apache-2.0
# The GIL is released while OpenCL works: another thread runs during a call, and calls from two threads on one
# Context give the reference's results. No timing: the first test checks who ran, not how fast.
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from conftest import random_image, reference

import clfilters as clf


def test_other_threads_run_during_a_call(ctx, rng):
    img = random_image(rng, 1080, 1920, 1)
    clf.bilateral(img[:8].copy(), sigma_spatial=1.5, ctx=ctx)  # builds the program before the test proper
    done = threading.Event()
    started = threading.Event()

    def worker():
        started.set()
        for _ in range(3):
            clf.bilateral(img, sigma_spatial=1.5, ctx=ctx)
        done.set()

    # With a long switch interval a thread that holds the GIL keeps it until it waits: the main thread then
    # runs during the calls only if they release it.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(30)
    try:
        thread = threading.Thread(target=worker)
        thread.start()
        started.wait()
        loops = 0
        while not done.is_set():
            loops += 1
            time.sleep(0)  # gives the GIL back at once when the worker's call returns
        thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert loops >= 100, f"the main thread ran {loops} times during three 1080p bilateral calls"


def test_two_threads_on_one_context(ctx, rng):
    # The same program and kernels for both: RGBA, different sizes.
    images = [random_image(rng, 120, 160, 4), random_image(rng, 90, 200, 4)]
    wants = [reference.box_blur(i, diameter=7) for i in images]

    def run(k):
        return [clf.box_blur(images[k], diameter=7, ctx=ctx) for _ in range(10)]

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(run, [0, 1]))
    for got, want in zip(results, wants):
        for g in got:
            np.testing.assert_array_equal(g, want)
