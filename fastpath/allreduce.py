"""Ring AllReduce: the layout of its flows and its timing from the flows' finish times (pure).

Layout (``fastpath.workloads`` expands in this order): N GPUs, S = 2(N-1) steps per
iteration, flow (iteration, step, gpu) at index ``(iteration x S + step) x N + gpu`` within the
workload; GPU k sends to GPU k+1 (mod N).

Timing, per GPU k and iteration j:

* ``begin`` = when its compute starts: the workload's start for j = 0, else ``end`` of j-1;
* ``end`` = when the GPU has finished the iteration: the later of the last step's chunk it received
  (flow (j, S-1, k-1)) and its own last send (flow (j, S-1, k)), the two flows the next iteration's
  first send waits for;
* its wait (the GPU idle because of the network) = ``end`` - (``begin`` + compute).

The ring's iteration time j = max_k end - min_k begin. The GPU wait share = the sum of the GPUs'
waits / the sum of their iteration times, over every GPU and iteration: 0 when communication takes
no time, rising towards 1 as the network gets slower. An iteration with an unfinished flow has no
time (NaN), nor have the ones after it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]


def allreduce_index(n_gpus: int, iteration: int | I64, step: int | I64, gpu: int | I64) -> I64:
    """Index, within an AllReduce workload's flows, of GPU ``gpu``'s send in ``step`` of ``iteration``."""
    steps = 2 * (n_gpus - 1)
    return np.asarray((np.asarray(iteration) * steps + step) * n_gpus + gpu, dtype=np.int64)


@dataclass(frozen=True)
class AllReduceTiming:
    iteration_s: F64        # [iterations] ring-wide iteration time (NaN: did not finish)
    wait_s: F64             # [iterations] mean over GPUs of the network wait
    gpu_wait_share: float   # over the finished iterations (NaN: none finished)


def allreduce_timing(finish_s: F64, n_gpus: int, iterations: int, start_s: float, compute_s: float) -> AllReduceTiming:
    """Timing of one AllReduce workload from its flows' finish times (NaN = unfinished)."""
    steps = 2 * (n_gpus - 1)
    gpus = np.arange(n_gpus)
    ends = np.full((iterations, n_gpus), np.nan)
    for j in range(iterations):
        received = finish_s[allreduce_index(n_gpus, j, steps - 1, (gpus - 1) % n_gpus)]
        own = finish_s[allreduce_index(n_gpus, j, steps - 1, gpus)]
        ends[j] = np.maximum(received, own)          # NaN stays NaN
    begins = np.vstack([np.full((1, n_gpus), start_s), ends[:-1]])
    done = ~np.isnan(ends).any(axis=1)
    done = np.logical_and.accumulate(done) if iterations else done
    iteration_s = np.where(done, ends.max(axis=1) - begins.min(axis=1), np.nan)
    waits = ends - (begins + compute_s)
    wait_s = np.where(done, waits.mean(axis=1), np.nan)
    if not done.any():
        return AllReduceTiming(iteration_s, wait_s, float("nan"))
    share = float(waits[done].sum() / (ends - begins)[done].sum()) if (ends - begins)[done].sum() > 0 else 0.0
    return AllReduceTiming(iteration_s, wait_s, share)


__all__ = ["AllReduceTiming", "allreduce_index", "allreduce_timing"]
