// impact — toi_double.cpp: the double instantiation of toi_impl.hpp, and the solvers it shares
// with toi_float.cpp (toi/toi_solver_instances.hpp).
#include "toi_impl.hpp"

namespace impact {

template ToiHit<double> time_of_impact<double>(const Shape<double>&, const Motion<double>&, const Shape<double>&, const Motion<double>&,
                                       const ToiOptions<double>&);

template ToiHit<double> toi::time_of_impact_hinted<double>(const Shape<double>&, const Motion<double>&, const Shape<double>&,
                                                  const Motion<double>&, const ToiOptions<double>&,
                                                  std::span<const toi::ToiHint<double>>);

template class toi::PartSweep<double>;

namespace toi {
IMPACT_TOI_SOLVER_SHARED()
}  // namespace toi

}  // namespace impact
