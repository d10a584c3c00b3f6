// `trails integrate CONFIG TASK.json` (commands.h): runs one segment of the built-in engine
// described by CONFIG's engine block on a command-engine task file and writes the outputs the
// task file names. A command-engine program can call it to reproduce the built-in engine bit
// for bit (docs/engines.md, "The command engine"; examples/command-engine/).
#include <fmt/format.h>

#include "commands.h"
#include "trails/config/load.h"
#include "trails/core/error.h"
#include "trails/engines/command/task_file.h"
#include "trails/engines/registry.h"

namespace trails::app {

Command add_integrate(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "integrate",
      "Run one segment of the built-in engine of CONFIG on a command-engine task file");
  static std::string config_file;
  static std::string task_file;
  sub->add_option("config", config_file, "Campaign YAML whose engine is md_engine: builtin")
      ->required();
  sub->add_option("task", task_file, "The task file (TRAILS_TASK_FILE)")->required();
  return {sub, [] {
            const auto config = config::load_campaign_config(config_file);
            const config::EngineSpec spec = config.engine_spec();
            if (!std::holds_alternative<config::BuiltinSpec>(spec)) {
              throw core::ConfigError(fmt::format(
                  "{}: trails integrate runs the built-in engine; set engine.md_engine: builtin",
                  config_file));
            }
            const auto request = engines::command::read_task_file(task_file);
            const auto engine = engines::make_engine(spec, {});
            const auto result = engine->make_instance()->run(request.task);
            if (!result.ok()) throw core::EngineError(result.error);
            engines::command::write_task_outputs(result, request.json);
            return 0;
          }};
}

}  // namespace trails::app
