// Format `pytorch-et`: a PyTorch execution trace in JSON (schemas 1.0.1 to 1.1.0), read
// alone: shapes and counts per pass, no times. The rules live with the ET model
// (pytorch/execution_trace.hpp); read with the Kineto trace of the same run, the ET lends
// that trace its shapes instead (kKinetoEtJoin, pytorch/kineto.cpp).
#include "common/readers.hpp"
#include "pytorch/execution_trace.hpp"

namespace fomcast::ingest {
namespace {

int detect_pytorch_et(std::string_view head, std::string_view) { return is_et_json_head(head) ? 90 : 0; }

Workload read_pytorch_et(const InputFile& file, const IngestOptions& options) {
  return read_execution_trace(file, options, "pytorch-et");
}

}  // namespace

const FormatReader kPytorchEtFormat{"pytorch-et", detect_pytorch_et, read_pytorch_et};

}  // namespace fomcast::ingest
