// SPDX-License-Identifier: Apache-2.0
// Border modes shared by every neighbourhood filter (docs/SPEC.md, "Borders").
#pragma once

#include <string>
#include <string_view>

#include "clfilters/export.hpp"
#include "clfilters/image.hpp"

namespace CLF_API clf {

// Values match the BORDER_* defines in src/common/border.cl.
enum class BorderMode : int { replicate = 0, reflect101 = 1, constant = 2 };

struct Border {
  BorderMode mode = BorderMode::replicate;
  int value = 0;  // for constant: the value of every channel outside the image, in sample units (0..255 for u8)
};

// "replicate", "reflect101", "constant" or "constant=V" (V 0..65535; check_border checks it for a sample type).
// Throws std::invalid_argument.
Border parse_border(std::string_view text);
std::string to_string(const Border& border);
// Throws std::invalid_argument unless the constant is a sample value of `type` (0..255, 0..65535 for u16): part of
// every neighbourhood filter's parameter check.
void check_border(const Border& border, SampleType type = SampleType::u8);
// The largest sample value of an integer sample type: 255 for u8, 65535 for u16.
int max_sample_value(SampleType type);

// Where coordinate i (any integer) of an axis of length n reads from; -1 means "the constant".
// reflect101 keeps reflecting until the index lands inside, so windows wider than the image work.
int border_index(int i, int n, BorderMode mode);

}  // namespace clf
