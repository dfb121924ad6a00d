// SPDX-License-Identifier: Apache-2.0
// The reconstruction's internals: a call's description, its variant table, and the loop that runs a call's
// iterations through an entry's kernel.
#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clfilters/jacobi.hpp"
#include "clfilters/runtime.hpp"
#include "clfilters/variant.hpp"
#include "filters/variant_table.hpp"

namespace clf {

// One call: an iteration run of `params` on a width x height image. `measure` asks an entry's plan for the
// build of the launches that measure each iteration's largest change (wavefront builds them with MEASURE 1).
// Only rows [measured_from, measured_to) count towards those maxima: a band of the banded host call
// (jacobi_bands.cpp) measures its own rows, not the halo rows whose values are wrong.
struct JacobiCall {
  JacobiParams params;
  int width = 0;
  int height = 0;
  bool measure = false;
  int measured_from = 0;
  int measured_to = std::numeric_limits<int>::max();
};

// `u` holds the initial iterate and receives the result; the entry's enqueue records what the run did in
// `outcome`, and counts its launches (before the first, u is untouched, so "auto" may still fall back).
// With `every_change` (a band of the banded host call; its params have no tolerance) every iteration's largest
// change over the measured rows is read into it as float bits, without waiting: the bits are there once the
// queue has passed the call's commands.
struct JacobiTarget {
  const DeviceFloatImage& edges;
  DeviceFloatImage& u;
  JacobiOutcome outcome = {};
  int launches = 0;
  std::vector<cl_uint>* every_change = nullptr;
};

using JacobiTable = VariantTable<JacobiCall, JacobiTarget>;
// Every reconstruction variant, in the order seed 002 introduces them, then the ones beyond it
// (jacobi_variants.cpp).
const JacobiTable& jacobi_table();

// One kernel launch of a run: `count` iterations from `src` into `dst`, and its part in the read-back window
// (jacobi.cl): `changes` holds each iteration's largest change as float bits, the launch first looks at the
// previous launch's slots [prev_from, prev_to) against `tol_bits`, and `slot` is the slot of its first
// iteration (< 0: it does not measure).
struct JacobiLaunch {
  const cl::Buffer& edges;
  const cl::Buffer& src;
  const cl::Buffer& dst;
  int count;
  const cl::Buffer& changes;
  int prev_from;
  int prev_to;
  int slot;
  cl_uint tol_bits;
};

// How an entry's launches run a call's iterations.
struct JacobiLoop {
  int steps_per_launch = 1;
  // After every launch the new iterate goes to the host and back up into the launch's input buffer (seed
  // 002's starting point) instead of the buffers being swapped.
  bool through_host = false;
  // The build options of the launches that measure the change.
  std::string measuring_options;
  // Sets one launch's kernel arguments.
  std::function<void(cl::Kernel&, const JacobiLaunch&)> set_args;
};

// Runs the call's iterations as launches of the plan's one pass (built with plan.options, or with
// loop.measuring_options for the launches that measure), with the tolerance stop's exact count, and records
// the outcome in `target`. The result ends in target.u. Returns every kernel's and copy's event.
std::vector<cl::Event> jacobi_run(Context& ctx, const KernelPlan& plan, const JacobiCall& call, const JacobiLoop& loop,
                                  JacobiTarget& target);

// The output rows of each band when the host call on a width x height image, with `halo` rows each side of a band
// (the iterations a pass runs), runs in bands, or nullopt for one piece: where the edge map, the iterate and the
// variant's second iterate exceed the device's allocation limit or half its memory (the rule of host_call_band_rows),
// or where CLFILTERS_BAND_ROWS=N asks for bands of N rows. Throws std::invalid_argument, naming the sizes, where not
// even a band of one row and its halos fits.
std::optional<int> jacobi_band_rows(const DeviceInfo& device, int width, int height, int halo);

// The host call in bands of rows when the image does not fit the device in one piece, or CLFILTERS_BAND_ROWS asks
// for bands (jacobi_bands.cpp): nullopt where it runs in one piece, else the result of the whole call, bit for bit
// the one-piece run's. `edges` and `initial` are checked already.
std::optional<JacobiResult> jacobi_reconstruct_in_bands(Context& ctx, const Image& edges, const JacobiParams& params,
                                                        std::string_view variant, const Image& initial, Timing* timing);

}  // namespace clf
