// Convolution on the CPU as im2col + GEMM through a backend's GEMM (the Caffe method,
// one image and group at a time so the column buffer stays one image large):
//   forward          Y_g (PQ x Kg)   = col (PQ x CgRS) * W_g (CgRS x Kg)
//   backward-data    dcol (PQ x CgRS) = dY_g (PQ x Kg) * W_g^T, then col2im adds into dX
//   backward-filter  dW_g (CgRS x Kg) += col^T (CgRS x PQ) * dY_g (PQ x Kg), over images
// (column-major; PQ = output positions, CgRS = input channels per group x filter taps).
// A 1x1 filter with stride 1 and no padding needs no im2col: the image is the column
// matrix. Tensors are NCDHW (unused leading spatial dimensions are 1), filters KCDHW.
// Private to microbench/.
#pragma once

#include <cstdint>

#include "cpu_gemm.hpp"
#include "fomcast/model.hpp"

namespace fomcast::bench::detail {

int64_t conv_input_elements(const ConvShape&);   // N C D H W
int64_t conv_filter_elements(const ConvShape&);  // K Cg FD FH FW
int64_t conv_output_elements(const ConvShape&);  // N K OD OH OW
int64_t conv_col_elements(const ConvShape&);     // one image and group: PQ x CgRS (0 when not needed)

// One image's channels of one group -> its column matrix, and back (adding).
template <class T>
void im2col(const ConvShape&, const T* x_group, T* col);
template <class T>
void col2im_add(const ConvShape&, const T* col, T* dx_group);

// `col` holds conv_col_elements() values (unused for 1x1 stride-1 unpadded filters).
template <class T>
void conv_forward(const CpuGemm&, const ConvShape&, const T* x, const T* w, T* y, T* col);
template <class T>
void conv_backward_data(const CpuGemm&, const ConvShape&, const T* dy, const T* w, T* dx, T* col);
template <class T>
void conv_backward_filter(const CpuGemm&, const ConvShape&, const T* x, const T* dy, T* dw, T* col);

}  // namespace fomcast::bench::detail
