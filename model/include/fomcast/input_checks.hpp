// What a person types, checked one way everywhere: the numbers in flags and study fields,
// and workload names. Every command and the study parser use these, so the same mistake
// reads the same wherever it is made ("--nodes: must be > 0 (got -1)"). The ranges are
// generous (a nanosecond to a century, a million nodes): they exist so that a typo (1e308,
// 1e-308, an integer that overflows) is an error naming its flag or field, not an
// overflow, an infinite FOM or a 300-digit number further on.
#pragma once

#include <string>
#include <string_view>

namespace fomcast {

// The values a quantity may take: finite, above zero where `positive`, within [min, max],
// whole where `integer`.
struct NumberRange {
  double min = 0;
  double max = 0;
  bool positive = false;  // 0 itself is refused ("must be > 0"), whatever min says
  bool integer = false;
};

namespace ranges {
// Node counts (a study side, nodes per unit of work, --nodes): a fraction of a node is a
// share of one; more than a million is no machine.
inline constexpr NumberRange nodes{1e-3, 1e6, true, false};
// Measured or given times: a nanosecond to about 32 years (seconds), 114 years (hours).
inline constexpr NumberRange seconds{1e-9, 1e9, true, false};
inline constexpr NumberRange hours{1e-9, 1e6, true, false};
// Epochs per run, samples per pass and per epoch: whole and positive; the products of
// these (passes per run) stay well inside 64 bits.
inline constexpr NumberRange epochs{1, 1e6, true, true};
inline constexpr NumberRange batch{1, 1e9, true, true};
inline constexpr NumberRange samples{1, 1e15, true, true};
// Micro-batches per step and pipeline: the 1F1B schedule is timed micro-batch by micro-batch
// (a million took 6.8 GB); Megatron's largest runs use a few thousand.
inline constexpr NumberRange micro_batches{1, 1e4, true, true};
// A share in percent (check --max-drop): a FOM cannot drop more than all of it.
inline constexpr NumberRange percent{0, 100, false, false};
}  // namespace ranges

// "" when `value` lies in `range`, else what is wrong, for "FIELD: " to be put before it:
// "must be > 0 (got -1)", "must be <= 1,000,000 (got 1e+308)", "must be a finite number
// (got nan)", "must be a whole number (got 2.5)".
std::string range_problem(double value, const NumberRange& range);

// The same for a number as typed (a flag's text): the whole text must be one decimal
// number. `normalised` receives the number as the flag's own parser reads it (integers
// written out whole: "1e3" -> "1000"), untouched when there is a problem.
std::string text_range_problem(std::string_view text, const NumberRange& range, std::string* normalised = nullptr);

// Throws UsageError("NAME: problem") when `value` is out of `range`; returns it otherwise.
double check_range(double value, std::string_view name, const NumberRange& range);

// Workload names: at least one and at most 128 bytes, printable (no control characters,
// valid UTF-8), no leading '-' (it would read as a flag) and no surrounding spaces.
inline constexpr std::size_t kMaxWorkloadNameBytes = 128;
// "" when `name` may name a workload, else what is wrong ("must not start with '-'").
std::string workload_name_problem(std::string_view name);

// Free text a person attaches to a record (calibrate --note, fom --label): valid UTF-8, no
// control characters, at most kMaxNoteBytes. A label with byte 0xFF was stored and then
// broke every JSON output that read it; one with a newline broke the history table.
inline constexpr std::size_t kMaxNoteBytes = 1000;
std::string note_text_problem(std::string_view text);

}  // namespace fomcast
