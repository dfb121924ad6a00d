#include "clfilters/image.hpp"

namespace clf {

const char* sample_type_name(SampleType t) {
  switch (t) {
    case SampleType::u8: return "uint8";
    case SampleType::u16: return "uint16";
    case SampleType::i16: return "int16";
    case SampleType::f32: return "float32";
  }
  return "?";
}

Image to_filter_layout(const Image& image) {
  if (image.type != SampleType::u8 || image.channels == 1 || image.channels == 4) return image;
  if (image.channels > 4) throw std::invalid_argument("images have at most 4 channels");
  Image out(image.width, image.height, 4);
  const auto src = image.samples<std::uint8_t>();
  auto dst = out.samples<std::uint8_t>();
  const std::size_t c = static_cast<std::size_t>(image.channels);
  for (std::size_t i = 0; i < image.pixel_count(); ++i)
    for (std::size_t ch = 0; ch < 4; ++ch) dst[i * 4 + ch] = ch < c ? src[i * c + ch] : 255;
  return out;
}

Image from_filter_layout(const Image& image, int channels) {
  if (channels == image.channels) return image;
  if (channels > image.channels) throw std::invalid_argument("from_filter_layout cannot add channels");
  Image out(image.width, image.height, channels, image.type);
  const std::size_t from = static_cast<std::size_t>(image.channels), to = static_cast<std::size_t>(channels);
  const std::size_t bytes = sample_size(image.type);
  for (std::size_t i = 0; i < image.pixel_count(); ++i)
    std::memcpy(out.data.data() + i * to * bytes, image.data.data() + i * from * bytes, to * bytes);
  return out;
}

}  // namespace clf
