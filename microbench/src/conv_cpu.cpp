// im2col / col2im and the three convolution directions on a backend's GEMM.
#include "conv_cpu.hpp"

#include <algorithm>

#include "parallel.hpp"

namespace fomcast::bench::detail {
namespace {

struct Geometry {
  int64_t n, c, k, groups, cg, kg;
  int64_t id, ih, iw, fd, fh, fw, od, oh, ow;
  int64_t sd, sh, sw, pd, ph, pw, dd, dh, dw;
  int64_t in_image, out_image, pq, taps, cgrs;
  bool pointwise;
};

Geometry geometry(const ConvShape& s) {
  Geometry g{};
  g.n = s.n;
  g.c = s.c;
  g.k = s.k;
  g.groups = std::max<int64_t>(1, s.groups);
  g.cg = s.c / g.groups;
  g.kg = s.k / g.groups;
  const auto out = s.output();
  g.id = s.input[0], g.ih = s.input[1], g.iw = s.input[2];
  g.fd = s.filter[0], g.fh = s.filter[1], g.fw = s.filter[2];
  g.od = out[0], g.oh = out[1], g.ow = out[2];
  g.sd = s.stride[0], g.sh = s.stride[1], g.sw = s.stride[2];
  g.pd = s.pad[0], g.ph = s.pad[1], g.pw = s.pad[2];
  g.dd = s.dilation[0], g.dh = s.dilation[1], g.dw = s.dilation[2];
  g.in_image = g.id * g.ih * g.iw;
  g.pq = g.od * g.oh * g.ow;
  g.out_image = g.pq;
  g.taps = g.fd * g.fh * g.fw;
  g.cgrs = g.cg * g.taps;
  g.pointwise = g.taps == 1 && s.stride == std::array<int64_t, 3>{1, 1, 1} && s.pad == std::array<int64_t, 3>{0, 0, 0};
  return g;
}

// Output positions o in [lo, hi) read input index o*stride - pad + tap inside [0, size).
void valid_range(int64_t out, int64_t stride, int64_t pad, int64_t tap, int64_t size, int64_t& lo, int64_t& hi) {
  // o*stride >= pad - tap  and  o*stride < size + pad - tap
  const int64_t a = pad - tap, b = size + pad - tap;
  lo = a <= 0 ? 0 : (a + stride - 1) / stride;
  hi = b <= 0 ? 0 : (b + stride - 1) / stride;
  lo = std::min(lo, out);
  hi = std::clamp(hi, lo, out);
}

template <class T>
void zero(T* p, int64_t n) {
  for_range(n, n, [=](int64_t lo, int64_t hi) { std::fill(p + lo, p + hi, T(0)); });
}

}  // namespace

template <class T>
void im2col(const ConvShape& s, const T* x, T* col);

namespace {

// The column matrix of one image's group: the image itself for a 1x1 stride-1 unpadded
// filter, else im2col into `col`.
template <class T>
const T* columns(const Geometry& g, const ConvShape& s, const T* x_group, T* col) {
  if (g.pointwise) return x_group;
  im2col(s, x_group, col);
  return col;
}

}  // namespace

int64_t conv_input_elements(const ConvShape& s) { return s.n * s.c * s.input[0] * s.input[1] * s.input[2]; }
int64_t conv_filter_elements(const ConvShape& s) {
  return s.k * (s.c / std::max<int64_t>(1, s.groups)) * s.filter[0] * s.filter[1] * s.filter[2];
}
int64_t conv_output_elements(const ConvShape& s) {
  const auto o = s.output();
  return s.n * s.k * o[0] * o[1] * o[2];
}
int64_t conv_col_elements(const ConvShape& s) {
  const Geometry g = geometry(s);
  return g.pointwise ? 0 : g.pq * g.cgrs;
}

template <class T>
void im2col(const ConvShape& s, const T* x, T* col) {
  const Geometry g = geometry(s);
  for_range(g.cgrs, g.cgrs * g.pq, [&](int64_t first, int64_t last) {
    for (int64_t row = first; row < last; ++row) {
      const int64_t tw = row % g.fw, th = (row / g.fw) % g.fh, td = (row / (g.fw * g.fh)) % g.fd, ch = row / g.taps;
      const T* xc = x + ch * g.in_image;
      T* out = col + row * g.pq;
      int64_t w_lo, w_hi;
      valid_range(g.ow, g.sw, g.pw, tw * g.dw, g.iw, w_lo, w_hi);
      for (int64_t od = 0; od < g.od; ++od) {
        const int64_t id = od * g.sd - g.pd + td * g.dd;
        for (int64_t oh = 0; oh < g.oh; ++oh) {
          T* o = out + (od * g.oh + oh) * g.ow;
          const int64_t ih = oh * g.sh - g.ph + th * g.dh;
          if (id < 0 || id >= g.id || ih < 0 || ih >= g.ih) {
            std::fill(o, o + g.ow, T(0));
            continue;
          }
          const T* xr = xc + (id * g.ih + ih) * g.iw - g.pw + tw * g.dw;
          std::fill(o, o + w_lo, T(0));
          if (g.sw == 1)
            std::copy(xr + w_lo, xr + w_hi, o + w_lo);
          else
            for (int64_t ow = w_lo; ow < w_hi; ++ow) o[ow] = xr[ow * g.sw];
          std::fill(o + w_hi, o + g.ow, T(0));
        }
      }
    }
  });
}

template <class T>
void col2im_add(const ConvShape& s, const T* col, T* dx) {
  const Geometry g = geometry(s);
  // Channels split among threads: channels own disjoint parts of dx, so no two threads add
  // into the same element.
  for_range(g.cg, g.cgrs * g.pq, [&](int64_t first, int64_t last) {
    for (int64_t ch = first; ch < last; ++ch) {
      T* xc = dx + ch * g.in_image;
      for (int64_t tap = 0; tap < g.taps; ++tap) {
        const int64_t tw = tap % g.fw, th = (tap / g.fw) % g.fh, td = tap / (g.fw * g.fh);
        const T* src = col + (ch * g.taps + tap) * g.pq;
        int64_t w_lo, w_hi;
        valid_range(g.ow, g.sw, g.pw, tw * g.dw, g.iw, w_lo, w_hi);
        for (int64_t od = 0; od < g.od; ++od) {
          const int64_t id = od * g.sd - g.pd + td * g.dd;
          if (id < 0 || id >= g.id) continue;
          for (int64_t oh = 0; oh < g.oh; ++oh) {
            const int64_t ih = oh * g.sh - g.ph + th * g.dh;
            if (ih < 0 || ih >= g.ih) continue;
            const T* o = src + (od * g.oh + oh) * g.ow;
            T* xr = xc + (id * g.ih + ih) * g.iw - g.pw + tw * g.dw;
            for (int64_t ow = w_lo; ow < w_hi; ++ow) xr[ow * g.sw] += o[ow];
          }
        }
      }
    }
  });
}

template <class T>
void conv_forward(const CpuGemm& gemm, const ConvShape& s, const T* x, const T* w, T* y, T* col) {
  const Geometry g = geometry(s);
  const auto fn = gemm.get<T>();
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const T* a = columns(g, s, x + (n * g.c + grp * g.cg) * g.in_image, col);
      fn(false, false, g.pq, g.kg, g.cgrs, T(1), a, g.pq, w + grp * g.kg * g.cgrs, g.cgrs, T(0),
         y + (n * g.k + grp * g.kg) * g.pq, g.pq);
    }
}

template <class T>
void conv_backward_data(const CpuGemm& gemm, const ConvShape& s, const T* dy, const T* w, T* dx, T* col) {
  const Geometry g = geometry(s);
  const auto fn = gemm.get<T>();
  if (!g.pointwise) zero(dx, g.n * g.c * g.in_image);
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const T* dyg = dy + (n * g.k + grp * g.kg) * g.pq;
      const T* wg = w + grp * g.kg * g.cgrs;
      T* dxg = dx + (n * g.c + grp * g.cg) * g.in_image;
      if (g.pointwise) {
        fn(false, true, g.pq, g.cg, g.kg, T(1), dyg, g.pq, wg, g.cgrs, T(0), dxg, g.pq);
      } else {
        fn(false, true, g.pq, g.cgrs, g.kg, T(1), dyg, g.pq, wg, g.cgrs, T(0), col, g.pq);
        col2im_add(s, col, dxg);
      }
    }
}

template <class T>
void conv_backward_filter(const CpuGemm& gemm, const ConvShape& s, const T* x, const T* dy, T* dw, T* col) {
  const Geometry g = geometry(s);
  const auto fn = gemm.get<T>();
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const T* a = columns(g, s, x + (n * g.c + grp * g.cg) * g.in_image, col);
      fn(true, false, g.cgrs, g.kg, g.pq, T(1), a, g.pq, dy + (n * g.k + grp * g.kg) * g.pq, g.pq, n == 0 ? T(0) : T(1),
         dw + grp * g.kg * g.cgrs, g.cgrs);
    }
}

// T is a template argument, which parentheses would not allow.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define FOMCAST_CONV_INSTANTIATE(T)                                                                  \
  template void im2col<T>(const ConvShape&, const T*, T*);                                           \
  template void col2im_add<T>(const ConvShape&, const T*, T*);                                       \
  template void conv_forward<T>(const CpuGemm&, const ConvShape&, const T*, const T*, T*, T*);       \
  template void conv_backward_data<T>(const CpuGemm&, const ConvShape&, const T*, const T*, T*, T*); \
  template void conv_backward_filter<T>(const CpuGemm&, const ConvShape&, const T*, const T*, T*, T*);
FOMCAST_CONV_INSTANTIATE(float)
FOMCAST_CONV_INSTANTIATE(double)
// NOLINTEND(bugprone-macro-parentheses)
#undef FOMCAST_CONV_INSTANTIATE

}  // namespace fomcast::bench::detail
