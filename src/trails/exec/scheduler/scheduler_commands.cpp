// The scheduler command protocol (scheduler_commands.h).
#include "trails/exec/scheduler/scheduler_commands.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <sstream>

namespace trails::exec {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    const auto last = line.find_last_not_of(" \t\r");
    lines.push_back(line.substr(first, last - first + 1));
  }
  return lines;
}

std::vector<std::string> fields_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> fields;
  std::string f;
  while (in >> f) fields.push_back(f);
  return fields;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// The numeric part of a PBS job id: "1234[].server" -> "1234".
std::string pbs_number(const std::string& id) {
  const auto end = id.find_first_of(".[");
  return id.substr(0, end);
}

}  // namespace

std::vector<std::string> submit_command(SchedulerKind kind, const std::string& script) {
  if (kind == SchedulerKind::Slurm) return {"sbatch", "--parsable", script};
  return {"qsub", script};
}

std::vector<std::string> status_command(SchedulerKind kind, const std::string& job_id) {
  if (kind == SchedulerKind::Slurm)
    return {"squeue", "--noheader", "--array", "--job", job_id, "--format=%i %T"};
  return {"qstat", "-t", job_id};
}

std::vector<std::string> cancel_command(SchedulerKind kind, const std::string& job_id) {
  if (kind == SchedulerKind::Slurm) return {"scancel", job_id};
  return {"qdel", job_id};
}

std::vector<std::string> cancel_element_command(SchedulerKind kind, const std::string& job_id,
                                                std::size_t element) {
  if (kind == SchedulerKind::Slurm) return {"scancel", fmt::format("{}_{}", job_id, element)};
  std::string id = job_id;
  if (const auto at = id.find("[]"); at != std::string::npos) {
    id.insert(at + 1, std::to_string(element));
  } else {
    id += fmt::format("[{}]", element);
  }
  return {"qdel", id};
}

std::vector<std::string> limits_command(SchedulerKind kind) {
  if (kind == SchedulerKind::Slurm) return {"scontrol", "show", "config"};
  return {"qstat", "-B", "-f"};
}

std::optional<std::string> parse_job_id(SchedulerKind kind, const std::string& stdout_text) {
  const std::vector<std::string> lines = lines_of(stdout_text);
  if (lines.empty()) return std::nullopt;
  std::string id = lines.back();
  // sbatch --parsable prints "ID" or "ID;cluster".
  if (kind == SchedulerKind::Slurm) id = id.substr(0, id.find(';'));
  if (id.empty() || id.find_first_of(" \t") != std::string::npos) return std::nullopt;
  return id;
}

bool job_active(SchedulerKind kind, const std::string& job_id, const std::string& stdout_text) {
  if (kind == SchedulerKind::Slurm) {
    // Lines "ID_INDEX STATE" or "ID_[RANGE] STATE"; finished elements leave squeue.
    for (const std::string& line : lines_of(stdout_text)) {
      if (line.starts_with(job_id) &&
          (line.size() == job_id.size() || line[job_id.size()] == '_' ||
           std::isspace(static_cast<unsigned char>(line[job_id.size()])) != 0)) {
        return true;
      }
    }
    return false;
  }
  // qstat -t: rows "ID NAME USER TIME STATE QUEUE"; a row of the job whose state is not
  // C (completed), F (finished) or X (expired subjob) keeps it active.
  const std::string number = pbs_number(job_id);
  for (const std::string& line : lines_of(stdout_text)) {
    const std::vector<std::string> f = fields_of(line);
    if (f.size() < 5 || pbs_number(f[0]) != number) continue;
    const std::string& state = f[f.size() - 2];
    if (state != "C" && state != "F" && state != "X") return true;
  }
  return false;
}

bool job_unknown(SchedulerKind kind, const std::string& message) {
  const std::string text = lower(message);
  if (kind == SchedulerKind::Slurm) return text.find("invalid job id") != std::string::npos;
  return text.find("job has finished") != std::string::npos ||
         text.find("unknown job id") != std::string::npos;
}

std::optional<int> parse_max_array_size(SchedulerKind kind, const std::string& stdout_text) {
  // "MaxArraySize = 1001" (scontrol show config); "max_array_size = 10000" (PBS Pro qstat -Bf),
  // "max_job_array_size = 1024" (Torque).
  for (const std::string& line : lines_of(stdout_text)) {
    const std::vector<std::string> f = fields_of(line);
    if (f.size() != 3 || f[1] != "=") continue;
    const bool named = kind == SchedulerKind::Slurm
                           ? f[0] == "MaxArraySize"
                           : f[0] == "max_array_size" || f[0] == "max_job_array_size";
    if (!named || f[2].find_first_not_of("0123456789") != std::string::npos) continue;
    try {
      return std::stoi(f[2]);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

bool transient_submit_error(const std::string& message) {
  static const std::array<const char*, 13> kMarkers = {"qosmaxsubmitjob",
                                                       "assocmaxsubmitjob",
                                                       "qos",
                                                       "submit limit",
                                                       "timed out",
                                                       "unable to contact slurm controller",
                                                       "slurmctld",
                                                       "try again",
                                                       "temporarily unavailable",
                                                       "rate limit",
                                                       "resource temporarily",
                                                       "connection refused",
                                                       "pbs_iff"};
  const std::string text = lower(message);
  return std::any_of(kMarkers.begin(), kMarkers.end(),
                     [&](const char* m) { return text.find(m) != std::string::npos; });
}

}  // namespace trails::exec
