// fomcast: flags in, library calls, results out. Exit status: 0 ok, 1 a failed `check`,
// 2 bad input or usage (the message names the file and position), 3 an internal error (a
// database failure that bad input does not explain, StoreError, included). Errors are told
// apart by their types alone.
#include <algorithm>
#include <iostream>
#include <new>
#include <string>

#include <CLI/CLI.hpp>

#include "context.hpp"
#include "fomcast/error.hpp"
#include "fomcast/store.hpp"
#include "fomcast/text.hpp"

int main(int argc, char** argv) {
  using namespace fomcast;
  CLI::App app{
      "fomcast: how fast would this training workload run on that machine, and what is the figure of merit "
      "of a whole machine against a baseline?"};
  app.set_version_flag("--version", "fomcast " FOMCAST_VERSION);
  app.require_subcommand(1);
  cli::Globals globals;
  const std::string db_help = "SQLite database (default $FOMCAST_DB, else ./fomcast.db); before or after the command";
  // Given once, before or after the command, and never empty (both checked below, before
  // parsing): a second --db silently won and an empty one meant ./fomcast.db.
  app.add_option("--db", globals.db, db_help);

  cli::add_bench_command(app, globals);
  cli::add_fom_commands(app, globals);
  cli::add_ingest_command(app, globals);
  cli::add_catalog_commands(app, globals);
  cli::add_estimate_command(app, globals);
  cli::add_import_bench_command(app, globals);
  cli::add_validate_command(app, globals);
  cli::add_report_command(app, globals);
  cli::add_calibrate_commands(app, globals);
  cli::add_doctor_command(app, globals);
  cli::add_scaling_command(app, globals);
  // --db is taken after the command as well as before it, and every command's --help shows it.
  cli::add_to_every_command(app, [&](CLI::App& cmd) { cmd.add_option("--db", globals.db, db_help); });

  try {
    // Checked before parsing, as parsing runs the command: a first word that names no
    // command (CLI11 says "A subcommand is required"), and --db given twice (the last won).
    bool command_seen = false;
    int db_given = 0;
    for (int i = 1; i < argc; ++i) {
      const std::string word = argv[i];
      if (word == "--db=" || (word == "--db" && i + 1 < argc && argv[i + 1][0] == '\0'))
        throw UsageError("--db: an empty path");
      if (word == "--db" || word.starts_with("--db=")) {
        ++db_given;
        i += word == "--db" ? 1 : 0;
        continue;
      }
      if (command_seen || word.starts_with("-")) continue;
      command_seen = true;
      const auto commands = app.get_subcommands({});
      if (std::none_of(commands.begin(), commands.end(), [&](const CLI::App* c) { return c->check_name(word); }))
        throw UsageError("unknown command '" + word + "' (`fomcast --help` lists them)");
    }
    if (db_given > 1) throw UsageError("--db given " + std::to_string(db_given) + " times: give the database once");
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "fomcast: usage error: " << visible(e.what()) << "\n(run `fomcast --help`)\n";
    return 2;
  } catch (const cli::CheckFailed& e) {
    cli::clear_progress_line();
    std::cerr << "fomcast: check failed: " << visible(e.what()) << "\n";
    return 1;
  } catch (const InputError& e) {
    cli::clear_progress_line();
    std::cerr << "fomcast: error: " << visible(e.what()) << "\n";
    return 2;
  } catch (const Refusal& e) {
    cli::clear_progress_line();
    std::cerr << "fomcast: cannot estimate: " << visible(e.what()) << "\n";
    return 2;
  } catch (const UsageError& e) {
    cli::clear_progress_line();
    std::cerr << "fomcast: usage error: " << visible(e.what()) << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    cli::clear_progress_line();
    std::cerr << "fomcast: error: out of memory: the input is larger than this machine's memory holds\n";
    return 3;
  } catch (const StoreError& e) {
    cli::clear_progress_line();
    std::cerr << "fomcast: internal error: " << visible(e.what()) << "\n";
    return 3;
  } catch (const std::exception& e) {
    cli::clear_progress_line();
    std::cerr << "fomcast: internal error: " << visible(e.what()) << "\n";
    return 3;
  }
  return 0;
}
