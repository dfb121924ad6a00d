// SPDX-License-Identifier: Apache-2.0
// Which planes of a video frame are filtered, and the grey output stream (see clfilters/video.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "clfilters/video.hpp"

namespace clf::video {
namespace {

std::string plane_label(char name) {
  switch (name) {
    case 'y': return "Y";
    case 'u': return "U";
    case 'v': return "V";
    case 'a': return "alpha";
    default: return "UV";
  }
}

std::string stream_label(const StreamInfo& info) {
  return info.format == VideoFormat::y4m ? "C" + info.colorspace : info.colorspace;
}

}  // namespace

StreamInfo grey_stream_info(const StreamInfo& input) {
  if (input.bits != 8)
    throw std::invalid_argument(fmt::format("grey_stream_info: {}-bit input; the grey stream is 8-bit", input.bits));
  StreamInfo out;
  out.format = input.format == VideoFormat::y4m ? VideoFormat::y4m : VideoFormat::gray;
  out.width = input.width;
  out.height = input.height;
  out.colorspace = input.format == VideoFormat::y4m ? "mono" : "gray";
  out.rate_num = input.rate_num;
  out.rate_den = input.rate_den;
  out.planes = {PlaneInfo{.name = 'y', .width = input.width, .height = input.height, .offset = 0}};
  out.frame_bytes = input.luma_bytes();
  if (input.format != VideoFormat::y4m) return out;
  // The header's tags in their order, C replaced by Cmono (added if absent); XYSCSS names the input's chroma.
  std::string header = "YUV4MPEG2";
  bool has_colorspace = false;
  std::size_t pos = 9;
  const std::string& line = input.header;
  while (pos < line.size()) {
    const std::size_t end = std::min(line.find(' ', pos + 1), line.size());
    const std::string tag = line.substr(pos + 1, end - pos - 1);
    pos = end;
    if (tag.empty() || tag.rfind("XYSCSS=", 0) == 0) continue;
    if (tag[0] == 'C') {
      header += " Cmono";
      has_colorspace = true;
    } else {
      header += " " + tag;
    }
  }
  if (!has_colorspace) header += " Cmono";
  out.header = header;
  return out;
}

std::vector<int> select_planes(const StreamInfo& info, const std::string& text, const std::string& name) {
  std::vector<int> chosen;
  auto choose = [&](char plane) {
    for (std::size_t i = 0; i < info.planes.size(); ++i)
      if (info.planes[i].name == plane) {
        chosen.push_back(int(i));
        return;
      }
    if (info.format == VideoFormat::nv12 || info.format == VideoFormat::p010)
      throw std::invalid_argument(fmt::format(
          "{}: {} interleaves U and V in one plane, which is not filtered (only y is); give --planes y, or read "
          "the video as {} (e.g. ffmpeg ... -pix_fmt {})",
          name, info.colorspace, info.bits == 8 ? "i420" : "yuv420p10le", info.bits == 8 ? "yuv420p" : "yuv420p10le"));
    throw std::invalid_argument(fmt::format("{}: a {} stream has no {} plane (only {})", name, stream_label(info),
                                            plane_label(plane), info.planes.size() == 1 ? "Y" : "Y, U and V"));
  };
  std::size_t start = 0;
  bool any = false;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    start = comma + 1;
    if (item.empty()) continue;
    any = true;
    if (item == "all") {
      for (char plane : {'y', 'u', 'v'})
        if (plane == 'y' || info.planes.size() > 1) choose(plane);
    } else if (item == "y" || item == "u" || item == "v") {
      choose(item[0]);
    } else {
      throw std::invalid_argument(
          fmt::format("unknown plane '{}' (expected y, u, v, all or a comma list such as y,u)", item.substr(0, 20)));
    }
  }
  if (!any) throw std::invalid_argument("no plane named (expected y, u, v, all or a comma list such as y,u)");
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  return chosen;
}

VideoPlan same_layout_plan(const StreamInfo& input, const std::vector<int>& filtered) {
  VideoPlan plan{.output = input, .planes = {}};
  for (std::size_t i = 0; i < input.planes.size(); ++i) plan.planes.push_back({.source = int(i), .filtered = false});
  for (int i : filtered) {
    if (i < 0 || std::size_t(i) >= input.planes.size())
      throw std::invalid_argument(
          fmt::format("same_layout_plan: no plane {} in a stream of {}", i, input.planes.size()));
    plan.planes[std::size_t(i)].filtered = true;
  }
  return plan;
}

VideoPlan grey_output_plan(const StreamInfo& input) {
  return {.output = grey_stream_info(input), .planes = {{.source = 0, .filtered = true}}};
}

}  // namespace clf::video
