// Name rules the text readers added to ops.hpp: MPI and OpenCL calls, step names, the
// collective a call is, and Python lambdas that are not the LAMB optimizer.
#include <doctest/doctest.h>

#include "common/ops.hpp"

using namespace fomcast;
using namespace fomcast::ingest;

TEST_CASE("MPI, OpenCL and Python names classify as their work") {
  // TAU and nsys MPI names.
  for (const char* n : {"MPI_Allreduce()", "MPI_Barrier()  ", "MPI_Send()", "MPI_Irecv()", "MPI_Waitall()",
                        "MPI_Reduce()", "MPI_Bcast", "MPI_Alltoallv()", "MPI Collective Sync"})
    CHECK_MESSAGE(classify_name(n) == OpKind::collective, n);
  for (const char* n : {"MPI_Init()", "MPI_Comm_rank()", "MPI_Finalize()", "MPI_Cart_create()"})
    CHECK_MESSAGE(classify_name(n) == OpKind::other, n);
  CHECK(classify_name("cl_int clEnqueueReadBuffer(cl_command_queue, cl_mem) C") == OpKind::memcpy);
  // cProfile lists lambdas; CloverLeaf kernels are lambdas too: neither is LAMB.
  CHECK(classify_name("train.py:12(<lambda>)") == OpKind::other);
  CHECK(phase_from_name("train.py:12(<lambda>)") == Phase::forward);
  CHECK(classify_name("void clover::par_ranged2d_kernel<PdV_kernel()::[lambda(int, int) (instance 2)]>") ==
        OpKind::elementwise);
  CHECK(classify_name("multi_tensor_lamb") == OpKind::optimizer);
  CHECK(classify_name("{method 'dot' of 'numpy.ndarray' objects}") == OpKind::gemm);
}

TEST_CASE("TensorFlow op types, grappler's layout transposes and cProfile's torch functions") {
  // Op types no substring rule reached (read as other), and a random fill read as a norm.
  for (const char* n : {"AddV2", "Neg", "GreaterEqual", "Maximum", "Rsqrt", "SquaredDifference", "StridedSlice",
                        "RandomStandardNormal", "TruncatedNormal", "LogicalAnd"})
    CHECK_MESSAGE(classify_name(n) == OpKind::elementwise, n);
  // Grappler's transposes around a conv: elementwise traffic, and no optimizer at all.
  const char* layout = "import/conv68/Conv2D-0-TransposeNHWCToNCHW-LayoutOptimizer";
  CHECK(classify_name(layout) == OpKind::elementwise);
  CHECK(phase_from_name(layout) == Phase::forward);
  CHECK(classify_name("void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true>") == OpKind::elementwise);
  // cProfile's names for torch's C functions.
  CHECK(classify_name("{built-in method addmm}") == OpKind::gemm);
  CHECK(classify_name("{built-in method dot}") == OpKind::gemm);
  CHECK(classify_name("{built-in method mm}") == OpKind::gemm);
  CHECK(classify_name("{built-in method bmm}") == OpKind::batched_gemm);
  CHECK(classify_name("aten::baddbmm") == OpKind::batched_gemm);
}

TEST_CASE("pointwise aten ops classify as elementwise, not other") {
  // ResNet-50 traces of PyTorch 1.8 run ReLU as aten::clamp_min; fused optimizers run
  // aten::_foreach_* ops.
  for (const char* n : {"aten::clamp_min",     "aten::clamp_min_",
                        "aten::clamp",         "aten::hardtanh_",
                        "aten::hardswish",     "aten::softplus",
                        "aten::mish",          "aten::elu",
                        "aten::erf",           "aten::log",
                        "aten::reciprocal",    "aten::sin",
                        "aten::cos",           "aten::floor",
                        "aten::round",         "aten::sign",
                        "aten::lerp_",         "aten::ones_like",
                        "aten::zeros_like",    "aten::_foreach_add_",
                        "aten::_foreach_mul_", "aten::uniform_",
                        "aten::normal_",       "aten::randn",
                        "aten::bernoulli_",    "saxpy(double *, double *, double *, double, int)"})
    CHECK_MESSAGE(classify_name(n) == OpKind::elementwise, n);
  // The rules before them still win.
  CHECK(classify_name("aten::log_softmax") == OpKind::reduction);
  CHECK(classify_name("aten::_log_softmax_backward_data") == OpKind::reduction);
  CHECK(classify_name("aten::mse_loss") == OpKind::reduction);
  CHECK(classify_name("aten::mse_loss_backward") == OpKind::reduction);
}

TEST_CASE("the collective a call is") {
  CHECK(collective_kind_from_name("MPI_Allreduce()") == CollectiveKind::allreduce);
  CHECK(collective_kind_from_name("all-reduce") == CollectiveKind::allreduce);
  CHECK(collective_kind_from_name("ncclKernel_ReduceScatter_RING") == CollectiveKind::reduce_scatter);
  CHECK(collective_kind_from_name("MPI_Bcast()") == CollectiveKind::broadcast);
  CHECK(collective_kind_from_name("MPI_Reduce()") == CollectiveKind::reduce);
  CHECK(collective_kind_from_name("MPI_Alltoallv()") == CollectiveKind::alltoall);
  CHECK(collective_kind_from_name("MPI_Barrier()") == CollectiveKind::barrier);
  CHECK(collective_kind_from_name("MPI_Isend()") == CollectiveKind::send_recv);
  CHECK(collective_kind_from_name("gather") == CollectiveKind::other);
}

TEST_CASE("a broadcast of shapes is local work, a broadcast between devices a collective") {
  // TF's BroadcastGradientArgs and torch's broadcast_tensors / broadcast_all (cProfile) in
  // single-device jobs had been collectives, timed by the network model.
  for (const char* n :
       {"BroadcastGradientArgs", "{built-in method broadcast_tensors}", "functional.py:45(broadcast_tensors)",
        "utils.py:8(broadcast_all)", "BroadcastTo", "aten::broadcast_tensors"})
    CHECK_MESSAGE(classify_name(n) != OpKind::collective, n);
  // Shapes and views, no data moved; BroadcastTo writes its output.
  CHECK(classify_name("BroadcastGradientArgs") == OpKind::other);
  CHECK(classify_name("{built-in method broadcast_tensors}") == OpKind::other);
  CHECK(classify_name("BroadcastTo") == OpKind::elementwise);
  for (const char* n : {"nccl:broadcast", "c10d::broadcast_", "ncclKernel_Broadcast_RING_LL_Sum_int8_t",
                        "{built-in method torch._C._broadcast_coalesced}", "HorovodBroadcast", "CollectiveBcastSend",
                        "MPI_Bcast", "distributed_c10d.py:1390(broadcast)"})
    CHECK_MESSAGE(classify_name(n) == OpKind::collective, n);
}

TEST_CASE("rocBLAS / hipBLASLt Tensile kernels are GEMMs; LRN only as a word") {
  // An MI300 bf16 GEMM kernel whose tuning tags spell "ELFLRn" had read as a local response norm.
  CHECK(classify_name("Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI16x16x16x1_SN_1LDSB1_AFC1_ELFLR0_EMLLn1_GRVW8_ISA942_"
                      "LBSPPA128_LPA4_LPB4_MIAV1_MMFGLC_NLCA1_PGR2_PLR1_SIA3_SS1_SU0_SUM0_SUS0_TLDS1_USFGROn1_VWA4_"
                      "VWB4_WSGRA0_WSGRB0_WG32_4_1") == OpKind::gemm);
  CHECK(classify_name("Cijk_B_PostGSU2_BBS_BH") == OpKind::gemm);
  CHECK(classify_name("some_kernel_ELFLRn20_x") != OpKind::normalization);
  for (const char* n : {"LRN", "LRNGrad", "cudnn::lrnForward", "norm1/LRN"})
    CHECK_MESSAGE(classify_name(n) == OpKind::normalization, n);
  // TF's fused chain of unary ops (Log1p and friends) is pointwise work.
  CHECK(classify_name("_UnaryOpsComposition") == OpKind::elementwise);
}

TEST_CASE("step names") {
  for (const char* n : {"ProfilerStep#5", "train_step", "Trainer.training_step", "step", "Step 12", "iteration 3",
                        "iter_7", "step42", "train_on_batch"})
    CHECK_MESSAGE(is_step_name(n), n);
  for (const char* n : {"steps", "step_size", "iterator", "Optimizer.step#SGD.step", "stepper", "MPI_Send", ""})
    CHECK_MESSAGE(!is_step_name(n), n);
}

TEST_CASE("the element type a GPU kernel's name spells") {
  CHECK(dtype_from_kernel_name("Cijk_Ailk_Bljk_BBS_BH_MT256x128x64_MI16x16x16x1_SN_1LDSB0") == DType::bf16);
  CHECK(dtype_from_kernel_name("Cijk_Alik_Bljk_HHS_BH_MT128x128x32") == DType::fp16);
  CHECK(dtype_from_kernel_name("Cijk_Ailk_Bljk_SB_MT64x64x8_SE_K1") == DType::fp32);
  CHECK(dtype_from_kernel_name("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64") == DType::bf16);
  CHECK(dtype_from_kernel_name("volta_h884gemm_64x64_ldg8_nn") == DType::fp16);
  CHECK(dtype_from_kernel_name("ampere_sgemm_32x32_sliced1x4_tn") == DType::fp32);
  CHECK(dtype_from_kernel_name("maxwell_scudnn_128x128_relu_medium_nn_v1") == DType::fp32);
  CHECK(dtype_from_kernel_name("sm80_xmma_gemm_tf32f32_tf32f32_f32_nn") == DType::tf32);
  CHECK(dtype_from_kernel_name("void cutlass::Kernel<cutlass_80_tensorop_d884gemm>") == DType::unknown);
  CHECK(dtype_from_kernel_name("Im3d2Col.kd") == DType::unknown);
}
