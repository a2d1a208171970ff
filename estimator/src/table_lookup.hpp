// The table lookups of the method chain (table_lookup.cpp): what one platform's own kernel
// tables say about an op. predict.hpp declares the entry points validation also uses
// (quote_from_tables, quote_group, quote_through_gemm, conv_gemm_correction); these are
// the ones the chain and the fallback models share. Private to estimator/.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "predict.hpp"
#include "tables.hpp"

namespace fomcast::est {

// An op of unknown element type is timed as fp32.
inline DType normalized(DType d) { return d == DType::unknown ? DType::fp32 : d; }
// Two independent relative uncertainties combined.
inline double quad(double a, double b) { return std::sqrt(a * a + b * b); }

// Table precisions for an op of dtype, best first.
std::vector<KernelPrecision> precisions_for(DType);
// "NV_V100's fp32 train conv forward table": how notes and details name a group.
std::string group_name(const std::string& platform, const TableGroup&);

// Every shape of the op (a backward conv without a direction is backward-data plus
// backward-filter) through the platform's tables at dtype; nullopt when one cannot be timed.
std::optional<Quote> quote_op(const PlatformTables&, const Platform&, const Op&, DType);
// Whether an op is one the memory-bound tables time (tables.hpp's is_memory_kind with a
// tensor shape: any elementwise op, a layer norm, a softmax), and its time from one
// platform's table of its kind, carried to its dtype by bytes; nullopt without a group.
bool memory_table_fits(const Op&);
std::optional<Quote> quote_memory(const PlatformTables&, const Platform&, const Op&, DType,
                                  const KernelEntry* exclude = nullptr);
// A collective from the target's own collective table (measured allreduce and the like).
std::optional<Quote> collective_from_tables(const Context&, const CollectiveShape&);

}  // namespace fomcast::est
