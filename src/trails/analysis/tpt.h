// Transition path theory (Metzner, Schütte & Vanden-Eijnden 2009; Noé et al. 2009) and mean
// first passage times on an MSM. Pure numerics; dense linear solves (Eigen PartialPivLU).
// Sets are state indices into the model's active set (not original state ids).
// Times are in the units of the model's lag (frames if lag is in frames): one MSM step = lag.
// Cost: O(n^3) per solve. Throws core::InputError for empty, overlapping or out-of-range sets.
#pragma once

#include <span>
#include <vector>

#include <Eigen/Core>

#include "trails/analysis/msm_model.h"

namespace trails::analysis {

// q+_i = P(reach B before A | start in i): 0 on A, 1 on B, q+_i = sum_j T_ij q+_j elsewhere.
Eigen::VectorXd forward_committor(const Eigen::Ref<const Eigen::MatrixXd>& T,
                                  std::span<const int> A, std::span<const int> B);
// q-_i = P(came from A rather than B | in i): the forward committor B -> A of the time-reversed
// chain T~_ij = pi_j T_ji / pi_i (= 1 - q+ for reversible T).
Eigen::VectorXd backward_committor(const Eigen::Ref<const Eigen::MatrixXd>& T,
                                   const Eigen::Ref<const Eigen::VectorXd>& pi,
                                   std::span<const int> A, std::span<const int> B);

struct ReactiveFlux {
  Eigen::VectorXd forward_committor, backward_committor;
  Eigen::MatrixXd gross_flux;  // f_ij = pi_i q-_i T_ij q+_j (i != j), per step
  Eigen::MatrixXd net_flux;    // max(0, f_ij - f_ji)
  double total_flux = 0.0;     // sum_{i in A, j not in A} f_ij, per step
  double rate = 0.0;           // k_AB = total_flux / sum_i pi_i q-_i / lag, per unit of lag
  double mfpt = 0.0;           // 1 / rate: the TPT A -> B passage time (units of lag)
};

ReactiveFlux reactive_flux(const MsmModel& model, std::span<const int> A, std::span<const int> B);

// Mean first passage time from every state to B (0 on B): (I - T_{B'B'}) m = 1 on the
// complement B', times lag. Every state must reach B (else InputError: singular system).
Eigen::VectorXd mfpt_to_set(const MsmModel& model, std::span<const int> B);

// MFPT from A to B: sum_{i in A} pi_i m_i / sum_{i in A} pi_i (deeptime's msm.mfpt(A, B)).
double mfpt(const MsmModel& model, std::span<const int> A, std::span<const int> B);

// mfpt(sets[a], sets[b]) for every pair of sets (k x k): 0 on the diagonal, NaN where either set
// is empty or the time is not finite.
Eigen::MatrixXd mfpt_between_sets(const MsmModel& model, const std::vector<std::vector<int>>& sets);

}  // namespace trails::analysis
