// SPDX-License-Identifier: Apache-2.0
// clfilters._clfilters._reference: the library's CPU references, which define the right answers, for the Python
// tests. They take and return NumPy arrays of 1 or 4 channels (1 to 4 for Sobel, as the library's own).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "binding.hpp"
#include "clfilters/bilateral.hpp"
#include "clfilters/box_blur.hpp"
#include "clfilters/epsilon.hpp"
#include "clfilters/jacobi.hpp"
#include "clfilters/sobel.hpp"

namespace clf::py {

using namespace nb::literals;

namespace {

Image input(nb::handle array) {
  const HostArray a = host_array(array, "reference");
  if (!a.type) throw nb::type_error("reference: unsupported dtype");
  return to_image(a);
}

template <class F>
nb::object reference(nb::handle array, F run) {
  const Image in = input(array);
  Image out;
  {
    nb::gil_scoped_release release;
    out = run(in);
  }
  return to_numpy(std::move(out), false);
}

}  // namespace

void bind_references(nb::module_& m) {
  nb::module_ r = m.def_submodule("_reference", "The library's CPU references, for tests.");
  r.def(
      "box_blur",
      [](nb::handle a, int diameter, const std::string& border) {
        const BoxBlurParams p{.diameter = diameter, .border = parse_border(border)};
        return reference(a, [&](const Image& in) { return box_blur_reference(in, p); });
      },
      "img"_a, "diameter"_a, "border"_a = "replicate");
  r.def(
      "epsilon",
      [](nb::handle a, int radius, int threshold, const std::string& border) {
        const EpsilonParams p{.radius = radius, .threshold = threshold, .border = parse_border(border)};
        return reference(a, [&](const Image& in) { return epsilon_reference(in, p); });
      },
      "img"_a, "radius"_a, "threshold"_a, "border"_a = "replicate");
  r.def(
      "bilateral",
      [](nb::handle a, double sigma_spatial, double sigma_range, int radius, const std::string& border,
         const std::string& window, const std::string& distance) {
        const BilateralParams p{.sigma_spatial = sigma_spatial,
                                .sigma_range = sigma_range,
                                .radius = radius,
                                .border = parse_border(border),
                                .window = parse_bilateral_window(window),
                                .distance = parse_bilateral_distance(distance)};
        return reference(a, [&](const Image& in) { return bilateral_reference(in, p); });
      },
      "img"_a, "sigma_spatial"_a, "sigma_range"_a, "radius"_a = -1, "border"_a = "replicate", "window"_a = "square",
      "distance"_a = "l2");
  r.def(
      "sobel",
      [](nb::handle a, const std::string& output, const std::string& border) {
        const SobelParams p{.output = parse_sobel_output(output), .border = parse_border(border)};
        return reference(a, [&](const Image& in) { return sobel_reference(in, p); });
      },
      "img"_a, "output"_a = "magnitude", "border"_a = "replicate");
  r.def(
      "edges", [](nb::handle a) { return reference(a, [](const Image& in) { return jacobi_edges_reference(in); }); },
      "img"_a);
  r.def(
      "reconstruct_error",
      [](nb::handle edges, nb::handle got, int iterations) {
        const Image e = input(edges), g = input(got);
        nb::gil_scoped_release release;
        JacobiParams p;
        p.iterations = iterations;
        return jacobi_relative_l2(jacobi_reference(e, p), g);
      },
      "edges"_a, "got"_a, "iterations"_a,
      "The relative L2 error of `got` against the double-precision reference after `iterations` from zeros.");
}

}  // namespace clf::py
