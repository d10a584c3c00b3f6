// The scheduler command protocol and the rendered job scripts (exec/scheduler/scheduler_commands.h,
// exec/scheduler/job_script.h) against recorded outputs (tests/data/scheduler/README.md).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/files.h"
#include "trails/exec/scheduler/job_script.h"
#include "trails/exec/scheduler/scheduler_commands.h"

namespace trails::exec {
namespace {

std::string recorded(const std::string& name) {
  return test_support::read_text(std::string(TRAILS_TEST_DATA) + "/scheduler/" + name);
}

ArrayJob job(int elements) {
  ArrayJob j;
  j.elements = elements;
  j.manifest = "/runs/a/jobs/iter_3/manifest_a0_c0.txt";
  j.results_dir = "/runs/a/jobs/iter_3";
  j.log_dir = "/runs/a/jobs/iter_3/logs_a0_c0";
  j.worker_argv = {"/opt/trails/bin/trails", "worker"};
  return j;
}

TEST(SchedulerCommands, JobIdsAsSubmitPrintsThem) {
  EXPECT_EQ(parse_job_id(SchedulerKind::Slurm, recorded("slurm_sbatch.txt")), "4242");
  EXPECT_EQ(parse_job_id(SchedulerKind::Slurm, "4242;cluster2\n"), "4242");
  EXPECT_EQ(parse_job_id(SchedulerKind::Pbs, recorded("pbs_qsub.txt")), "1234[].pbs01");
  EXPECT_EQ(parse_job_id(SchedulerKind::Torque, recorded("torque_qsub.txt")), "77[].torque01");
  EXPECT_FALSE(parse_job_id(SchedulerKind::Slurm, "\n  \n").has_value());
}

TEST(SchedulerCommands, ActiveWhileAnElementIsListedAndNotFinished) {
  EXPECT_TRUE(job_active(SchedulerKind::Slurm, "4242", recorded("slurm_squeue_running.txt")));
  EXPECT_FALSE(job_active(SchedulerKind::Slurm, "4242", ""));
  EXPECT_FALSE(job_active(SchedulerKind::Slurm, "424", recorded("slurm_squeue_running.txt")));
  EXPECT_TRUE(job_active(SchedulerKind::Pbs, "1234[].pbs01", recorded("pbs_qstat_running.txt")));
  EXPECT_FALSE(job_active(SchedulerKind::Pbs, "1234[].pbs01", recorded("pbs_qstat_done.txt")));
  EXPECT_FALSE(job_active(SchedulerKind::Pbs, "999[].pbs01", recorded("pbs_qstat_running.txt")));
  EXPECT_TRUE(
      job_active(SchedulerKind::Torque, "77[].torque01", recorded("torque_qstat_running.txt")));
  EXPECT_FALSE(
      job_active(SchedulerKind::Torque, "77[].torque01", recorded("torque_qstat_done.txt")));
}

TEST(SchedulerCommands, AJobTheSchedulerForgotIsToldFromAFailureToAsk) {
  EXPECT_TRUE(
      job_unknown(SchedulerKind::Slurm, "slurm_load_jobs error: Invalid job id specified\n"));
  EXPECT_FALSE(job_unknown(SchedulerKind::Slurm,
                           "slurm_load_jobs error: Unable to contact slurm controller\n"));
  EXPECT_TRUE(job_unknown(SchedulerKind::Pbs, recorded("pbs_qstat_finished_stderr.txt")));
  EXPECT_TRUE(job_unknown(SchedulerKind::Torque, "qstat: Unknown Job Id 77[].torque01"));
  EXPECT_FALSE(job_unknown(SchedulerKind::Pbs, "qstat: cannot connect to server pbs01"));
}

TEST(SchedulerCommands, ArrayLimitsFromEachScheduler) {
  EXPECT_EQ(parse_max_array_size(SchedulerKind::Slurm, recorded("slurm_scontrol_show_config.txt")),
            10001);
  EXPECT_EQ(parse_max_array_size(SchedulerKind::Pbs, recorded("pbs_qstat_Bf.txt")), 3);
  EXPECT_EQ(parse_max_array_size(SchedulerKind::Torque, recorded("torque_qstat_Bf.txt")), 3);
  EXPECT_FALSE(parse_max_array_size(SchedulerKind::Slurm, "MaxJobCount = 10000\n").has_value());
}

TEST(SchedulerCommands, TransientSubmitErrorsAreToldFromPermanentOnes) {
  EXPECT_TRUE(transient_submit_error(
      "sbatch: error: QOSMaxSubmitJobPerUserLimit\nsbatch: error: Batch job submission failed"));
  EXPECT_TRUE(transient_submit_error("sbatch: error: Socket timed out on send/recv operation"));
  EXPECT_TRUE(transient_submit_error("sbatch: error: Unable to contact slurm controller"));
  EXPECT_TRUE(transient_submit_error("qsub: Server temporarily unavailable"));
  EXPECT_FALSE(transient_submit_error(
      "sbatch: error: Batch job submission failed: Invalid partition name specified"));
  EXPECT_FALSE(transient_submit_error("qsub: Unknown queue"));
}

TEST(JobScript, SlurmCarriesEveryKeyInTrailsMdOrder) {
  config::SchedulerConfig k;
  k.partition = "gpu";
  k.account = "proj7";
  k.walltime = "02:00:00";
  k.cpus_per_task = 4;
  k.gpus_per_task = 1;
  k.gres = "gpu:a100:1";
  k.memory = "8G";
  k.extra_directives = {"--qos=long", "#SBATCH --constraint=a100"};
  k.module_loads = {"module load cuda/12"};
  k.job_name = "alad";
  ArrayJob j = job(10);
  j.throttle = 4;
  const std::string s = render_job_script(SchedulerKind::Slurm, k, j);
  const std::string expected_head =
      "#!/bin/bash\n"
      "#SBATCH --job-name=alad\n"
      "#SBATCH --array=0-9%4\n"
      "#SBATCH --time=02:00:00\n"
      "#SBATCH --cpus-per-task=4\n"
      "#SBATCH --output=/runs/a/jobs/iter_3/logs_a0_c0/%A_%a.out\n"
      "#SBATCH --error=/runs/a/jobs/iter_3/logs_a0_c0/%A_%a.err\n"
      "#SBATCH --partition=gpu\n"
      "#SBATCH --account=proj7\n"
      "#SBATCH --gpus-per-task=1\n"
      "#SBATCH --gres=gpu:a100:1\n"
      "#SBATCH --mem=8G\n"
      "#SBATCH --qos=long\n"
      "#SBATCH --constraint=a100\n"
      "set -euo pipefail\n"
      "module load cuda/12\n";
  EXPECT_EQ(s.substr(0, expected_head.size()), expected_head) << s;
  EXPECT_NE(s.find("PACK=$(sed -n \"$((${SLURM_ARRAY_TASK_ID}+1))p\" \"$MANIFEST\")"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("SCRATCH=\"${TMPDIR:-}\""), std::string::npos) << s;
  EXPECT_NE(s.find("'/opt/trails/bin/trails' 'worker' --pack \"$PACK\" --results "
                   "'/runs/a/jobs/iter_3' ${SCRATCH:+--scratch \"$SCRATCH\"}"),
            std::string::npos)
      << s;
}

TEST(JobScript, PbsAndTorqueArraysAndResources) {
  config::SchedulerConfig k;
  k.partition = "workq";
  k.cpus_per_task = 2;
  k.gpus_per_task = 1;
  k.memory = "4gb";
  k.scratch = "/local/$USER";
  const std::string pbs = render_job_script(SchedulerKind::Pbs, k, job(5));
  for (const char* line :
       {"#PBS -N trails-md\n", "#PBS -V\n", "#PBS -J 0-4\n",
        "#PBS -l select=1:ncpus=2:ngpus=1:mem=4gb\n", "#PBS -l walltime=01:00:00\n",
        "#PBS -o /runs/a/jobs/iter_3/logs_a0_c0/\n", "#PBS -q workq\n", "${PBS_ARRAY_INDEX}",
        "SCRATCH=\"/local/$USER\"\n"}) {
    EXPECT_NE(pbs.find(line), std::string::npos) << line << " in\n" << pbs;
  }
  const std::string torque = render_job_script(SchedulerKind::Torque, k, job(5));
  for (const char* line :
       {"#PBS -t 0-4\n", "#PBS -l nodes=1:ppn=2:gpus=1\n", "#PBS -l mem=4gb\n", "${PBS_ARRAYID}"}) {
    EXPECT_NE(torque.find(line), std::string::npos) << line << " in\n" << torque;
  }
  EXPECT_EQ(torque.find("-J "), std::string::npos);
}

// Packed on the task's devices (ArrayJob::gpus from execution.devices): the GPUs are requested
// unless gpus_per_task or gres asks already.
TEST(JobScript, DevicesOfTheTaskRequestTheirGpus) {
  config::SchedulerConfig k;
  ArrayJob j = job(4);
  j.gpus = 2;
  EXPECT_NE(render_job_script(SchedulerKind::Slurm, k, j).find("#SBATCH --gres=gpu:2\n"),
            std::string::npos);
  EXPECT_NE(render_job_script(SchedulerKind::Pbs, k, j).find("#PBS -l select=1:ncpus=1:ngpus=2\n"),
            std::string::npos);
  EXPECT_NE(render_job_script(SchedulerKind::Torque, k, j).find("#PBS -l nodes=1:ppn=1:gpus=2\n"),
            std::string::npos);
  k.gres = "gpu:a100:2";
  const std::string own = render_job_script(SchedulerKind::Slurm, k, j);
  EXPECT_NE(own.find("#SBATCH --gres=gpu:a100:2\n"), std::string::npos);
  EXPECT_EQ(own.find("--gres=gpu:2"), std::string::npos) << own;
  k.gres.reset();
  k.gpus_per_task = 4;
  EXPECT_EQ(render_job_script(SchedulerKind::Slurm, k, j).find("--gres"), std::string::npos);
  EXPECT_NE(render_job_script(SchedulerKind::Pbs, k, j).find(":ngpus=4"), std::string::npos);
}

TEST(JobScript, WalltimesInEverySpelling) {
  EXPECT_EQ(walltime_seconds("01:00:00"), 3600.0);
  EXPECT_EQ(walltime_seconds("1-02:00:00"), 93600.0);
  EXPECT_EQ(walltime_seconds("1-02"), 93600.0);
  EXPECT_EQ(walltime_seconds("30:15"), 1815.0);
  EXPECT_EQ(walltime_seconds("90"), 5400.0);
  EXPECT_FALSE(walltime_seconds("soon").has_value());
  EXPECT_FALSE(walltime_seconds("").has_value());
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
}

}  // namespace
}  // namespace trails::exec
